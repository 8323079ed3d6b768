import { appendFile, mkdir, rename, rm, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../errors.js";

/**
 * The calls every write to a tree goes through: its files, and the snapshot, journal, lock
 * holder and caches under `.coursesync/`. Node's below; tests put one in that fails on cue.
 */
export interface TreeFs {
  /** Write a whole file; `flush` syncs it to the disk before it is closed. */
  writeFile(file: string, data: string | Uint8Array, options?: { flush?: boolean }): Promise<void>;
  appendFile(file: string, data: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Make a folder and its parents; one that exists is fine. */
  mkdir(dir: string): Promise<void>;
  /** Remove a file; one already gone is fine. */
  rm(file: string): Promise<void>;
  /** Remove an empty folder. */
  rmdir(dir: string): Promise<void>;
}

/** The file system itself. */
export const nodeFs: TreeFs = {
  writeFile: (file, data, options) => writeFile(file, data, { flush: options?.flush === true }),
  appendFile: (file, data) => appendFile(file, data),
  rename: (from, to) => rename(from, to),
  mkdir: async (dir) => {
    await mkdir(dir, { recursive: true });
  },
  rm: (file) => rm(file, { force: true }),
  rmdir: (dir) => rmdir(dir),
};

/** Why a file-system call failed, for codes that say something about the machine, not the tool. */
const REASONS: Record<string, { reason: string; hint: string }> = {
  ENOSPC: { reason: "no space left on the device", hint: "Free some space on that disk" },
  EDQUOT: { reason: "the disk quota is used up", hint: "Free some space, or ask for a larger quota" },
  EACCES: {
    reason: "permission denied",
    hint: "Make it and its folder writable for you (ls -l shows who owns them; chmod u+w changes it)",
  },
  EPERM: {
    reason: "operation not permitted",
    hint: "Make it and its folder writable for you, and check that nothing locks it (an editor, a virus scanner)",
  },
  EROFS: {
    reason: "the file system is read-only",
    hint: "Mount it writable, or work on a copy of the tree somewhere writable",
  },
  EMFILE: {
    reason: "too many open files",
    hint: "Raise the limit of open files (e.g. `ulimit -n 4096`) or lower `concurrency` in coursesync.yaml",
  },
  ENFILE: {
    reason: "the system has too many open files",
    hint: "Close some programs, or raise the system's limit of open files",
  },
};

/** Codes a run that found the tree in the way reports as such (a folder where a file goes, ...). */
const IN_THE_WAY: Record<string, string> = {
  EISDIR: "a folder is in the way",
  ENOTDIR: "a file is in the way where a folder should be",
  EEXIST: "it already exists",
  ENOTEMPTY: "the folder is not empty",
};

const KEPT = "; what was done so far is kept, and running the command again finishes the rest.";

/**
 * A file-system failure the user can fix (a full disk, permissions, a read-only mount, too
 * many open files, a file in the way) as a UserError: what could not be done to which path,
 * why, and what to do. Undefined for any other error.
 */
export function fileSystemError(error: unknown, action: string): UserError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!(error instanceof Error) || typeof code !== "string") return undefined;
  const known = REASONS[code];
  const inTheWay = IN_THE_WAY[code];
  if (!known && !inTheWay) return undefined;
  return new UserError(`cannot ${action}: ${known?.reason ?? inTheWay} (${code})`, {
    hint: `${known?.hint ?? "Fix the file or folder named above"}${KEPT}`,
    cause: error,
  });
}

/**
 * A TreeFs whose failures the user can fix are UserErrors naming the path relative to the
 * tree (a temp file by the file it stands for). Node's own errors name no path for a failed
 * write, and an absolute one elsewhere; the tree-relative path is the one the user knows.
 */
export function guardedFs(root: string, base: TreeFs = nodeFs): TreeFs {
  const shown = (file: string) =>
    (path.relative(root, file).split(path.sep).join("/") || ".").replace(/\.\d+\.\d+\.tmp$/, "");
  const guard =
    <A extends unknown[]>(call: (...args: A) => Promise<void>, action: (...args: A) => string) =>
    async (...args: A): Promise<void> => {
      try {
        await call(...args);
      } catch (error) {
        // Only what the machine says: other codes (ENOENT, ...) are for the caller to act on.
        const code = (error as NodeJS.ErrnoException).code;
        throw code !== undefined && Object.hasOwn(REASONS, code)
          ? (fileSystemError(error, action(...args)) ?? error)
          : error;
      }
    };
  return {
    writeFile: guard(base.writeFile.bind(base), (file) => `write ${shown(file)}`),
    appendFile: guard(base.appendFile.bind(base), (file) => `write ${shown(file)}`),
    rename: guard(base.rename.bind(base), (from, to) =>
      shown(from) === shown(to) ? `write ${shown(to)}` : `move ${shown(from)} to ${shown(to)}`,
    ),
    mkdir: guard(base.mkdir.bind(base), (dir) => `make the folder ${shown(dir)}`),
    rm: guard(base.rm.bind(base), (file) => `remove ${shown(file)}`),
    rmdir: guard(base.rmdir.bind(base), (dir) => `remove ${shown(dir)}`),
  };
}
