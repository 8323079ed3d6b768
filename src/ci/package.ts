/**
 * The package.json (and what is known of its lockfile) that pins the coursesync the CI jobs
 * run: `npm ci` installs exactly what the lockfile says, checked by its integrity hashes, and
 * the jobs run that copy (`npx --no-install coursesync`), never a name looked up on a registry.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { usageError } from "../errors.js";

/** The package's name on a registry, and the folder npm installs it in. */
const NAME = "coursesync";

/** An exact version (1.2.3, 1.2.3-rc.1): a range or a tag could install another one. */
const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** A tarball in the repository, by a path relative to its top: file:vendor/coursesync-1.2.3.tgz. */
function isTarball(spec: string): boolean {
  const file = spec.startsWith("file:") ? spec.slice(5) : "";
  return (
    file.endsWith(".tgz") &&
    !/\s/.test(file) &&
    !path.isAbsolute(file) &&
    !/^[A-Za-z]:/.test(file) &&
    !file.split(/[\\/]/).includes("..")
  );
}

/**
 * `spec` when the jobs may install from it: an exact version, or `file:<path>.tgz` inside the
 * repository. Anything else is a usage error saying why.
 */
export function pinnedSpec(spec: string): string {
  if (EXACT.test(spec) || isTarball(spec)) return spec;
  throw usageError(
    `--from ${spec}: the jobs must install one exact coursesync`,
    "Give an exact version (such as 0.1.0), or a tarball committed in the repository, by its path from the top: file:vendor/coursesync-0.1.0.tgz (made by `npm pack` of coursesync). A range, a tag or a URL could install another version than the one the tree was made with.",
  );
}

/** The tarball a `file:` spec names, relative to the repository's top; undefined for a version. */
export function tarballOf(spec: string): string | undefined {
  return spec.startsWith("file:") ? spec.slice(5) : undefined;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The text of `package.json` pinning coursesync to `spec`: a new private one, or `existing`
 * with only the coursesync entry changed (in dependencies if it is there, else devDependencies),
 * in its own indentation. Undefined when `existing` pins it so already.
 */
export function pinnedPackageJson(existing: string | undefined, spec: string): string | undefined {
  if (existing === undefined) {
    const fresh = {
      private: true,
      description: "The coursesync the CI jobs run, pinned (written by `coursesync ci`).",
      devDependencies: { [NAME]: spec },
    };
    return `${JSON.stringify(fresh, null, 2)}\n`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(existing);
  } catch (error) {
    throw usageError(
      `package.json at the repository's top is not valid JSON (${(error as Error).message})`,
      "Fix it (or move it away), then run the command again: the jobs install coursesync from it.",
    );
  }
  if (!isObject(parsed)) {
    throw usageError(
      "package.json at the repository's top does not hold a JSON object",
      "Fix it (or move it away), then run the command again: the jobs install coursesync from it.",
    );
  }
  const field =
    isObject(parsed.dependencies) && NAME in parsed.dependencies ? "dependencies" : "devDependencies";
  const deps = isObject(parsed[field]) ? parsed[field] : {};
  if (deps[NAME] === spec) return undefined;
  parsed[field] = { ...deps, [NAME]: spec };
  const indent = /^\{\r?\n([ \t]+)"/.exec(existing)?.[1] ?? 2;
  return `${JSON.stringify(parsed, null, indent)}\n`;
}

/** Whether package-lock.json locks coursesync as package.json pins it. */
export type LockState = "missing" | "stale" | "current";

/** Whether package-lock.json locks coursesync as `spec` pins it (no lockfile: "missing"). */
export function lockState(lockfile: string | undefined, spec: string): LockState {
  if (lockfile === undefined) return "missing";
  let entry: unknown;
  try {
    const parsed = JSON.parse(lockfile) as { packages?: Record<string, unknown> };
    entry = parsed.packages?.[`node_modules/${NAME}`];
  } catch {
    return "stale";
  }
  if (!isObject(entry)) return "stale";
  const tarball = tarballOf(spec);
  const locked = tarball === undefined ? entry.version === spec : entry.resolved === spec;
  return locked && typeof entry.integrity === "string" ? "current" : "stale";
}

/**
 * `.gitignore` at the repository's top with `lines` added where missing (the install's
 * node_modules, GitLab's npm cache): the jobs' commits add the tree's folder, which may be the
 * top. Undefined when it has them all.
 */
export function gitignoreWith(existing: string | undefined, lines: readonly string[]): string | undefined {
  const have = new Set(
    (existing ?? "")
      .split(/\r?\n/)
      .map((line) => line.trim().replace(/^\//, "").replace(/\/$/, ""))
      .filter((line) => line !== ""),
  );
  const missing = lines.filter((line) => !have.has(line.replace(/^\//, "").replace(/\/$/, "")));
  if (missing.length === 0) return undefined;
  const before =
    existing === undefined || existing === "" ? "" : existing.endsWith("\n") ? existing : `${existing}\n`;
  return `${before}# Installed by the coursesync CI jobs (npm ci): never committed.\n${missing.join("\n")}\n`;
}

/** What `writePinnedInstall` did, and what is left for the person to do. */
export interface PinnedInstall {
  /** Files written or updated, relative to the repository's top. */
  written: string[];
  lock: LockState;
  /** The tarball a `file:` spec names, when it is not there yet. */
  missingTarball: string | undefined;
}

async function readIfThere(file: string): Promise<string | undefined> {
  return existsSync(file) ? readFile(file, "utf8") : undefined;
}

/**
 * Pin coursesync at the repository's top `top`: package.json written or updated, `.gitignore`
 * given `ignored`; says what the lockfile holds. A file already right is left alone.
 */
export async function writePinnedInstall(
  top: string,
  spec: string,
  ignored: readonly string[],
): Promise<PinnedInstall> {
  const written: string[] = [];
  const update = async (name: string, next: (text: string | undefined) => string | undefined) => {
    const text = next(await readIfThere(path.join(top, name)));
    if (text === undefined) return;
    await writeFile(path.join(top, name), text);
    written.push(name);
  };
  await update("package.json", (text) => pinnedPackageJson(text, spec));
  await update(".gitignore", (text) => gitignoreWith(text, ignored));
  const tarball = tarballOf(spec);
  return {
    written,
    lock: lockState(await readIfThere(path.join(top, "package-lock.json")), spec),
    missingTarball: tarball !== undefined && !existsSync(path.join(top, tarball)) ? tarball : undefined,
  };
}
