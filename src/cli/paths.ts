import { existsSync } from "node:fs";
import path from "node:path";
import { Option } from "commander";
import { usageError } from "../errors.js";
import type { Snapshot } from "../sync/state/snapshot-model.js";
import type { CliIO } from "./io.js";

/** Paths given on the command line, as tree-relative paths with /; outside the tree is an error. */
export function treePaths(io: CliIO, root: string, paths: readonly string[]): string[] {
  return paths.map((given) => {
    const full = path.resolve(io.cwd, given);
    const rel = path.relative(root, full);
    if (rel.startsWith("..") || path.isAbsolute(rel)) {
      throw usageError(`${given} is outside the tree ${root}`);
    }
    return rel === "" ? "." : rel.split(path.sep).join("/");
  });
}

/** The value of --max-delete: a whole number of records, or undefined when not given. */
export function maxDeleteFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(Number.isInteger(n) && n >= 0)) throw usageError(`--max-delete: "${value}" is not a whole number`);
  return n;
}

/**
 * Paths given on the command line that name something: a file or folder in the tree, or one
 * the last sync knew (a deleted file names its delete). Any other is a typo, said as such
 * rather than matching nothing in silence.
 */
export function knownTreePaths(
  io: CliIO,
  root: string,
  paths: readonly string[],
  snapshot: Snapshot | undefined,
): string[] {
  const rels = treePaths(io, root, paths);
  const synced = snapshot
    ? [...Object.values(snapshot.courses), ...Object.values(snapshot.chapters)].map((entry) => entry.path)
    : [];
  rels.forEach((rel, i) => {
    if (rel === "." || existsSync(path.join(root, ...rel.split("/")))) return;
    if (synced.some((known) => known === rel || known.startsWith(`${rel}/`))) return;
    throw usageError(
      `${paths[i]}: no such file or folder in the tree, and the last sync knew none there`,
      "Check the path; `coursesync status` lists what is pending.",
    );
  });
  return rels;
}

/** The flags of a file selection, as commander collects them (each repeatable). */
export interface SelectionFlags {
  only?: string[];
  ignore?: string[];
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** --only <glob>: repeatable, a gitignore-style glob of tree paths. */
export function onlyOption(verb: string): Option {
  return new Option(
    "--only <glob>",
    `${verb} only the files matching this gitignore-style glob of tree paths (repeatable), e.g. 'courses/intro-*/**'`,
  ).argParser(collect);
}

/** --ignore <glob>: repeatable, files left alone. */
export function ignoreOption(): Option {
  return new Option(
    "--ignore <glob>",
    "leave the files matching this glob alone (repeatable), e.g. '**/*draft*.md'",
  ).argParser(collect);
}
