import { randomInt } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import { sha256 } from "../util/hash.js";
import { processRunning } from "../util/process.js";
import { guardedFs, nodeFs, type TreeFs } from "./tree-fs.js";

/** An absolute path for a relative tree path written with /. */
export function abs(root: string, relPath: string): string {
  const full = path.resolve(root, ...relPath.split("/"));
  const rootFull = path.resolve(root);
  // Names are made safe before they get here; this is the last line of defence.
  if (full !== rootFull && !full.startsWith(rootFull + path.sep)) {
    throw new Error(`refusing to touch ${relPath}: it is outside the tree`);
  }
  return full;
}

/** How atomicWrite writes. */
export interface WriteOptions {
  /** The file system to write through (default: Node's, errors as Node raises them). */
  fs?: TreeFs;
  /** Sync the file to the disk before the rename (the snapshot: once a run, and it must hold). */
  flush?: boolean;
}

/**
 * Write a file atomically: a temp file in the same folder, then rename over the target, so a
 * crash or kill -9 never leaves a half-written file. Lean on purpose (no fsync unless asked,
 * no realpath, no mkdir unless the folder is missing): resolving every target's real path and
 * syncing each made a pull of thousands of files wait on the disk for each; git does not fsync
 * its work tree either.
 */
export async function atomicWrite(
  file: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  const fs = options.fs ?? nodeFs;
  await throughTemp(file, (temp) => fs.writeFile(temp, data, { flush: options.flush === true }), fs);
}

/**
 * As atomicWrite, for a file made of pieces: each is written as it comes (`pieces` is asked
 * again for a second try), so a file of many megabytes is never one string and one buffer in
 * memory at once.
 */
export async function atomicWritePieces(
  file: string,
  pieces: () => Iterable<string>,
  options: Omit<WriteOptions, "flush"> = {},
): Promise<void> {
  const fs = options.fs ?? nodeFs;
  await throughTemp(
    file,
    async (temp) => {
      await fs.writeFile(temp, "");
      for (const piece of pieces()) await fs.appendFile(temp, piece);
    },
    fs,
  );
}

/** Write a temp file beside `file` (`write` makes it), then rename it over `file`. */
async function throughTemp(
  file: string,
  write: (temp: string) => Promise<void>,
  fs: TreeFs,
  retry = true,
): Promise<void> {
  // Unique without a counter kept between calls: writes to one file may run side by side.
  const temp = `${file}.${process.pid}.${randomInt(2 ** 47)}.tmp`;
  try {
    await write(temp);
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp);
    // The folder is missing: new, or removed since (a course folder renamed or deleted while
    // a long run such as watch goes on). Make it and write again, once. Trying the write first
    // costs one failed call per new folder instead of a mkdir per file.
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && retry) {
      await fs.mkdir(path.dirname(file));
      return throughTemp(file, write, fs, false);
    }
    throw error;
  }
}

/** The pid in the name of a temp file atomicWrite makes (`<file>.<pid>.<n>.tmp`), if it is one. */
export function tempFileOwner(name: string): number | undefined {
  // Asked of every file a walk of the tree meets: most end otherwise, told without a match.
  if (!name.endsWith(".tmp")) return undefined;
  const match = /\.(\d+)\.\d+\.tmp$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * Remove the temp files of runs that were killed mid-write (their process is gone); a temp
 * file of a process still running, this one included, is left alone. Returns how many went.
 */
export async function removeLeftoverTemps(
  root: string,
  relPaths: readonly string[],
  fs: TreeFs = guardedFs(root),
): Promise<number> {
  let removed = 0;
  for (const relPath of relPaths) {
    const pid = tempFileOwner(relPath);
    if (pid === undefined || pid === process.pid || processRunning(pid)) continue;
    await fs.rm(abs(root, relPath));
    removed++;
  }
  return removed;
}

/** Write a tree file atomically (through `fs`: by default Node's, failures named in the tree). */
export async function writeTreeFile(
  root: string,
  relPath: string,
  text: string,
  fs: TreeFs = guardedFs(root),
): Promise<void> {
  await atomicWrite(abs(root, relPath), text, { fs });
}

/**
 * Move a file written elsewhere in the tree's file system (a staged temp file whose bytes are
 * the text to write) into place, making its folder. Returns false when it was not moved (another
 * file system, a folder in the way, a full disk, ...): the caller writes the text instead, and
 * that write reports what is wrong with the file.
 */
export async function placeTreeFile(
  root: string,
  staged: string,
  relPath: string,
  fs: TreeFs = guardedFs(root),
): Promise<boolean> {
  const target = abs(root, relPath);
  try {
    await fs.rename(staged, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
  }
  try {
    await fs.mkdir(path.dirname(target));
    await fs.rename(staged, target);
    return true;
  } catch {
    return false;
  }
}

/** The SHA-256 of a tree file's bytes, or undefined when it does not exist. */
export async function hashTreeFile(root: string, relPath: string): Promise<string | undefined> {
  try {
    return sha256(await readFile(abs(root, relPath)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Move a file or folder inside the tree, creating the target's folder. */
export async function moveTreePath(
  root: string,
  from: string,
  to: string,
  fs: TreeFs = guardedFs(root),
): Promise<void> {
  const target = abs(root, to);
  await fs.mkdir(path.dirname(target));
  await fs.rename(abs(root, from), target);
}

/** Whether anything (a file, a folder, a link) is at a path of the tree. */
export async function treePathExists(root: string, relPath: string): Promise<boolean> {
  try {
    await lstat(abs(root, relPath));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Remove a file; a file already gone is fine. */
export async function removeTreeFile(
  root: string,
  relPath: string,
  fs: TreeFs = guardedFs(root),
): Promise<void> {
  await fs.rm(abs(root, relPath));
}

/** Remove a folder if it is empty; returns whether it did. */
export async function removeEmptyFolder(
  root: string,
  relPath: string,
  fs: TreeFs = guardedFs(root),
): Promise<boolean> {
  try {
    await fs.rmdir(abs(root, relPath));
    return true;
  } catch {
    return false;
  }
}
