import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { nodeFs, type TreeFs } from "../../tree/tree-fs.js";

// A pull in watch runs while the author may save: pull reads a file, the author saves it, and
// pull's write would replace that save. The files a pull may replace are stat-ed before it, and
// each replace or remove first checks that the file is as it was: a save in between stops the
// pull before it touches that file (its snapshot is not saved), and the next poll pulls again,
// after that save was pushed, merging it as it merges any edit.

/** The author saved `file` while a pull was under way: the pull stopped before overwriting it. */
export class SavedDuringPull extends Error {
  /** The files the pull had already written (absolute paths): the pull's, not saves. */
  written: string[] = [];

  constructor(readonly file: string) {
    super(`${file} was saved while the site's changes were being written; they are pulled again`);
  }
}

/** What tells a file's version apart without reading it: its size and modification time. */
async function versionOf(file: string): Promise<string | undefined> {
  const found = await stat(file).catch(() => undefined);
  return found?.isFile() ? `${found.size}:${found.mtimeMs}` : undefined;
}

/** Stats at once, at most: a whole tree's files are stat-ed side by side, not one after another. */
const STATS_AT_ONCE = 64;

/** The versions of the files in these folders (absolute paths), before a pull. */
export async function filesBefore(folders: readonly string[]): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (const folder of folders) {
    const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
    const files = entries.filter((entry) => entry.isFile()).map((e) => path.join(e.parentPath, e.name));
    for (let i = 0; i < files.length; i += STATS_AT_ONCE) {
      const some = files.slice(i, i + STATS_AT_ONCE);
      const found = await Promise.all(some.map(versionOf));
      some.forEach((file, n) => {
        if (found[n] !== undefined) versions.set(file, found[n]);
      });
    }
  }
  return versions;
}

/**
 * The file system a pull writes through, refusing to replace or remove a file of `versions`
 * that changed since (SavedDuringPull). What the pull itself does to a file is its new version.
 */
export function guardSaves(versions: Map<string, string | undefined>, base: TreeFs = nodeFs): TreeFs {
  // Every file the pull put in place or removed so far, told with a save that stops it.
  const written = new Set<string>();
  const check = async (file: string) => {
    if (!versions.has(file)) return;
    if ((await versionOf(file)) === versions.get(file)) return;
    const stop = new SavedDuringPull(file);
    stop.written = [...written];
    throw stop;
  };
  return {
    ...base,
    writeFile: base.writeFile.bind(base),
    appendFile: base.appendFile.bind(base),
    mkdir: base.mkdir.bind(base),
    rmdir: base.rmdir.bind(base),
    rename: async (from, to) => {
      await check(to);
      await check(from);
      await base.rename(from, to);
      written.add(from).add(to);
      if (versions.has(from)) versions.set(from, undefined);
      if (versions.has(to)) versions.set(to, await versionOf(to));
    },
    rm: async (file) => {
      await check(file);
      await base.rm(file);
      written.add(file);
      if (versions.has(file)) versions.set(file, undefined);
    },
  };
}
