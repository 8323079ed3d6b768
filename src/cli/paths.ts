import path from "node:path";
import { usageError } from "../errors.js";
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
