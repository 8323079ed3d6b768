import { appendFile, mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../errors.js";

/**
 * The calls every write to a tree goes through: its files, and the snapshot, journal, lock
 * holder and caches under `.coursesync/`; and reading a file or a folder's names back. Node's
 * below, and one in memory (memoryFs); tests put one in that fails on cue.
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
  /** A whole file's text (UTF-8). */
  readFile(file: string): Promise<string>;
  /** The names of a folder's entries, files and folders. */
  readdir(dir: string): Promise<string[]>;
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
  readFile: (file) => readFile(file, "utf8"),
  readdir: (dir) => readdir(dir),
};

/** An error as Node's file system raises it: a code, and the path it is about. */
function fsError(code: string, call: string, file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${call} '${file}'`), { code, syscall: call, path: file });
}

/**
 * A file system in memory, over absolute paths (for tests of the steps that read and write a
 * tree): the files' texts by path, and the folders made. A write into a folder not made fails
 * (ENOENT), as with Node's.
 */
export function memoryFs(files = new Map<string, string>(), folders = new Set<string>()): TreeFs {
  const norm = (p: string) => path.resolve(p);
  const hasFolder = (dir: string) => dir === path.parse(dir).root || folders.has(dir);
  const children = (dir: string) =>
    [...files.keys(), ...folders].filter((p) => path.dirname(p) === dir).map((p) => path.basename(p));
  const parentMade = (file: string, call: string) => {
    if (!hasFolder(path.dirname(file))) throw fsError("ENOENT", call, file);
  };
  const text = (data: string | Uint8Array) =>
    typeof data === "string" ? data : Buffer.from(data).toString("utf8");
  return {
    writeFile: async (file, data) => {
      file = norm(file);
      parentMade(file, "open");
      if (folders.has(file)) throw fsError("EISDIR", "open", file);
      files.set(file, text(data));
    },
    appendFile: async (file, data) => {
      file = norm(file);
      parentMade(file, "open");
      files.set(file, (files.get(file) ?? "") + data);
    },
    rename: async (from, to) => {
      from = norm(from);
      to = norm(to);
      parentMade(to, "rename");
      if (files.has(from)) {
        files.set(to, files.get(from)!);
        files.delete(from);
        return;
      }
      if (!folders.has(from)) throw fsError("ENOENT", "rename", from);
      const moved = (p: string) =>
        p === from || p.startsWith(`${from}${path.sep}`) ? to + p.slice(from.length) : p;
      for (const [p, data] of [...files]) {
        if (moved(p) === p) continue;
        files.delete(p);
        files.set(moved(p), data);
      }
      for (const p of [...folders]) {
        if (moved(p) === p) continue;
        folders.delete(p);
        folders.add(moved(p));
      }
    },
    mkdir: async (dir) => {
      for (let at = norm(dir); !hasFolder(at); at = path.dirname(at)) {
        if (files.has(at)) throw fsError("EEXIST", "mkdir", at);
        folders.add(at);
      }
    },
    rm: async (file) => {
      file = norm(file);
      if (folders.has(file)) throw fsError("EISDIR", "rm", file);
      files.delete(file);
    },
    rmdir: async (dir) => {
      dir = norm(dir);
      if (!folders.has(dir)) throw fsError(files.has(dir) ? "ENOTDIR" : "ENOENT", "rmdir", dir);
      if (children(dir).length > 0) throw fsError("ENOTEMPTY", "rmdir", dir);
      folders.delete(dir);
    },
    readFile: async (file) => {
      file = norm(file);
      const data = files.get(file);
      if (data === undefined) throw fsError(folders.has(file) ? "EISDIR" : "ENOENT", "open", file);
      return data;
    },
    readdir: async (dir) => {
      dir = norm(dir);
      if (!hasFolder(dir)) throw fsError(files.has(dir) ? "ENOTDIR" : "ENOENT", "scandir", dir);
      return children(dir).sort();
    },
  };
}

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
    // Reads are the caller's to act on (a missing file is an answer, not a failure).
    readFile: (file) => base.readFile(file),
    readdir: (dir) => base.readdir(dir),
  };
}
