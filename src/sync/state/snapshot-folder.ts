import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import PQueue from "p-queue";
import { UserError } from "../../errors.js";
import { type FolderData, statAt } from "../../tree/folder-thread.js";
import { atomicWrite } from "../../tree/fs-ops.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import { COURSES_DIR, hasConflictMarkers, ORPHANS_FILE, SITE_FILE, shardJson } from "./shards.js";

// Reading and writing a site's snapshot folder (see shards.ts for what its files hold).
//
// A save writes only the files whose bytes change. Several files are one change: a save that
// touches more than one file of a folder already in use first writes all it will do into one
// uncommitted file, `.coursesync/<site>.pending` (whole, synced), then the files, then removes
// it. A run killed in between leaves it: readers see the folder with it laid over, and the
// next save finishes it first. So the snapshot read is always the one saved before or the one
// saved after, never a mix, and the push journal (which names its snapshot by hash) stays right.
// The first save in this format writes site.json last: until it is there the folder does not
// count (the single file of earlier versions, or nothing, is the snapshot).

/** Where one site's snapshot is kept: absolute paths. */
export interface FolderPaths {
  /** The tree root, for messages. */
  root: string;
  /** `.coursesync/<site>/`: committed. */
  folder: string;
  /** `.coursesync/<site>.json`: the single file of earlier versions. */
  legacy: string;
  /** `.coursesync/<site>.pending`: a save under way (uncommitted). */
  pending: string;
}

/** A save under way: each file of the folder it changes, with its text, or null to remove it. */
type Changes = Record<string, string | null>;

/** A tree path, with /, for messages. */
function rel(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}

/** The error for a snapshot file that cannot be read as one: it is never read as empty. */
export function snapshotError(file: string, why: string): UserError {
  return new UserError(`the snapshot ${file} ${why}; it is never read as empty`, {
    hint: "Restore it (e.g. `git checkout -- .coursesync`), or move it away and run `coursesync pull` to adopt the tree again.",
  });
}

/** The error for a snapshot file git could not merge; `folder`: what to take one side of. */
export function conflictError(file: string, folder: string): UserError {
  return new UserError(
    `the snapshot ${file} holds git merge conflict markers: the snapshot is generated data, it is not merged by hand`,
    {
      hint:
        `Take one side of the whole folder, then pull: \`git checkout --theirs -- ${folder}\` (or --ours), ` +
        `\`git add ${folder}\`, \`coursesync pull\`. Either side is a safe base: a change it does not know ` +
        "shows as the same on both sides or as a conflict, never as lost.",
    },
  );
}

/** The files of a folder on disk, relative to it, with /: site.json, orphans.json, courses/*.json. */
async function filesOnDisk(folder: string): Promise<string[]> {
  const top = await readdir(folder).catch(() => [] as string[]);
  const courses = top.includes(COURSES_DIR)
    ? await readdir(path.join(folder, COURSES_DIR)).catch(() => [] as string[])
    : [];
  return [
    ...top.filter((name) => name === SITE_FILE || name === ORPHANS_FILE),
    ...courses.filter((name) => name.endsWith(".json")).map((name) => `${COURSES_DIR}/${name}`),
  ];
}

async function readPending(paths: FolderPaths): Promise<Changes | undefined> {
  let text: string;
  try {
    text = await readFile(paths.pending, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Changes;
  } catch {}
  throw new UserError(`${rel(paths.root, paths.pending)} (a snapshot save under way) does not parse`, {
    hint: "It is written whole before a save starts, so it was damaged since: remove it and run `coursesync pull`.",
  });
}

/** Run jobs a few at a time (thousands of files, each a small read or write). */
async function inParallel(jobs: (() => Promise<unknown>)[]): Promise<void> {
  await new PQueue({ concurrency: 16 }).addAll(jobs);
}

/**
 * The files of the folder as the snapshot stands (a save under way laid over), parsed, or
 * undefined when the folder has no site.json (none yet, or a first save that did not finish).
 */
export async function readFolder(paths: FolderPaths): Promise<Map<string, unknown> | undefined> {
  const pending = await readPending(paths);
  const names = new Set(await filesOnDisk(paths.folder));
  for (const [name, text] of Object.entries(pending ?? {})) {
    if (text === null) names.delete(name);
    else names.add(name);
  }
  if (!names.has(SITE_FILE)) return undefined;
  const out = new Map<string, unknown>();
  const folder = rel(paths.root, paths.folder);
  // Read one after another, synchronously: thousands of small files, each read in microseconds,
  // where a promise per file costs more than the read.
  for (const name of [...names].sort()) {
    const text = pending?.[name] ?? readFileSync(path.join(paths.folder, name), "utf8");
    try {
      out.set(name, JSON.parse(text));
    } catch (error) {
      // Git's conflict markers never parse: looked for only then.
      const file = `${folder}/${name}`;
      if (hasConflictMarkers(text)) throw conflictError(file, folder);
      throw snapshotError(file, `does not parse (${(error as Error).message})`);
    }
  }
  return out;
}

/** The text of a file, or undefined when it cannot be read. */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Up to this many files a save syncs each to the disk before its rename (a sync's usual few).
 * A larger one (a first pull, a migration) does not: thousands of syncs would make it wait on
 * the disk for each, as git does not for its work tree; its commit point (site.json, or the
 * pending file) is synced all the same.
 */
const SYNCED_FILES = 32;

async function apply(paths: FolderPaths, changes: Changes, fs: TreeFs, flush: boolean): Promise<void> {
  await inParallel(
    Object.entries(changes).map(([name, text]) => async () => {
      const file = path.join(paths.folder, ...name.split("/"));
      if (text === null) await fs.rm(file);
      else await atomicWrite(file, text, { fs, flush });
    }),
  );
}

/**
 * Write the folder's files (relative name → the value its text is made of): only those whose
 * bytes change, and remove those it no longer has. Each text is made when its file is compared,
 * and only changed texts are kept (a first save keeps none: it writes as it goes). Returns
 * whether this was the first save in this format.
 */
export async function writeFolder(
  paths: FolderPaths,
  files: Map<string, unknown>,
  fs: TreeFs,
): Promise<boolean> {
  // A save an earlier run was killed in: finished first, so the disk is what readers saw.
  const pending = await readPending(paths);
  if (pending) {
    await apply(paths, pending, fs, Object.keys(pending).length <= SYNCED_FILES);
    await fs.rm(paths.pending);
  }
  const onDisk = await filesOnDisk(paths.folder);
  const established = onDisk.includes(SITE_FILE);
  const present = new Set(onDisk);
  /** The file's text when it differs from the disk's, else undefined. */
  const changed = (name: string): string | undefined => {
    const text = shardJson(files.get(name));
    return present.has(name) && readText(path.join(paths.folder, name)) === text ? undefined : text;
  };
  if (!established) {
    // Nothing reads the folder until site.json is there: each file is written in place as its
    // text is made (no temp file to rename: one killed part-way is compared and written again
    // by the next save), site.json last and atomically (it makes the folder the snapshot).
    const names = [...files.keys()].filter((name) => name !== SITE_FILE);
    const flush = names.length < SYNCED_FILES;
    const folders = new Set(names.map((name) => path.dirname(path.join(paths.folder, ...name.split("/")))));
    for (const folder of folders) await fs.mkdir(folder);
    await inParallel(
      names.map((name) => async () => {
        const text = changed(name);
        if (text !== undefined)
          await fs.writeFile(path.join(paths.folder, ...name.split("/")), text, { flush });
      }),
    );
    const gone = onDisk.filter((name) => !files.has(name));
    await apply(paths, Object.fromEntries(gone.map((name) => [name, null])), fs, flush);
    await apply(paths, { [SITE_FILE]: shardJson(files.get(SITE_FILE)) }, fs, true);
  } else {
    const changes: Changes = {};
    for (const name of onDisk) if (!files.has(name)) changes[name] = null;
    for (const name of files.keys()) {
      const text = changed(name);
      if (text !== undefined) changes[name] = text;
    }
    const names = Object.keys(changes).sort();
    if (names.length === 1) await apply(paths, changes, fs, true);
    else if (names.length > 1) {
      const journal = JSON.stringify(Object.fromEntries(names.map((n) => [n, changes[n]])));
      await atomicWrite(paths.pending, journal, { fs, flush: true });
      await apply(paths, changes, fs, names.length <= SYNCED_FILES);
      await fs.rm(paths.pending);
    }
  }
  // The single file of earlier versions goes once the folder is complete.
  if (existsSync(paths.legacy)) await fs.rm(paths.legacy);
  return !established;
}

/**
 * A cheap signature of the committed snapshot on disk, without reading it: size, mtime and inode
 * of each of its files (every save replaces a file by a rename: a new inode), and of a save under
 * way. Undefined when the site has no snapshot files. `courses`: its `courses/` folder as
 * another thread already read it (null: it could not be read), for the same signature without
 * a stat of each file here.
 */
export function folderStamp(paths: FolderPaths, courses?: FolderData | null): string | undefined {
  const parts: string[] = [];
  const add = (name: string, file: string) => {
    try {
      const stat = lstatSync(file);
      parts.push(`${name} ${stat.size} ${stat.mtimeMs} ${stat.ino}`);
    } catch {}
  };
  add("legacy", paths.legacy);
  add("pending", paths.pending);
  add(SITE_FILE, path.join(paths.folder, SITE_FILE));
  add(ORPHANS_FILE, path.join(paths.folder, ORPHANS_FILE));
  const folder = `${paths.folder}/${COURSES_DIR}`;
  if (courses === undefined) {
    let names: string[] = [];
    try {
      names = readdirSync(folder);
    } catch {}
    for (const name of names.sort()) if (name.endsWith(".json")) add(name, `${folder}/${name}`);
  } else if (courses !== null) {
    for (const [i, name] of courses.names.entries()) {
      const stat = name.endsWith(".json") ? statAt(courses, i) : undefined;
      if (stat) parts.push(`${name} ${stat.size} ${stat.mtimeMs} ${stat.ino}`);
    }
  }
  return parts.length === 0 ? undefined : sha256(parts.join("\n"));
}
