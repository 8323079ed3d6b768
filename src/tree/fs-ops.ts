import { mkdir, readFile, rename, rm, rmdir } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { sha256 } from "../util/hash.js";

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

/** Write a file atomically (temp file in the same folder, fsync, rename). */
export async function writeTreeFile(root: string, relPath: string, text: string): Promise<void> {
  const file = abs(root, relPath);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, text);
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
export async function moveTreePath(root: string, from: string, to: string): Promise<void> {
  const target = abs(root, to);
  await mkdir(path.dirname(target), { recursive: true });
  await rename(abs(root, from), target);
}

/** Remove a file; a file already gone is fine. */
export async function removeTreeFile(root: string, relPath: string): Promise<void> {
  await rm(abs(root, relPath), { force: true });
}

/** Remove a folder if it is empty; returns whether it did. */
export async function removeEmptyFolder(root: string, relPath: string): Promise<boolean> {
  try {
    await rmdir(abs(root, relPath));
    return true;
  } catch {
    return false;
  }
}
