import { type Dirent, lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import {
  type FolderData,
  isFileKind,
  isFolderKind,
  lstatInto,
  readFoldersOnThread,
  type StatNumbers,
  statInto,
} from "../../tree/folder-thread.js";
import { tempFileOwner } from "../../tree/fs-ops.js";
import { COURSE_FILE, COURSES_DIR, isConflictCopy } from "../../tree/layout.js";
import type { StatCache, StatLines } from "../../tree/stat-cache.js";
import { sha256 } from "../../util/hash.js";
import { nextTurn } from "../../util/steps.js";

type StatKey = Pick<Stats, "size" | "mtimeMs" | "ctimeMs" | "ino">;

/** From this many course folders, a thread of its own reads the last ones. */
export const THREAD_FROM = 1_000;

/**
 * The share of the folders that thread reads: it starts late (a thread's start-up) and reads a
 * little slower than this one, whose code is warm. The scale bench's status row measures it.
 */
const THREAD_SHARE = 0.4;

/**
 * The share of a thread started early (prereadFolders): its start-up overlaps other work, and
 * it stats the snapshot's files besides. Measured by hand on the scale bench's largest tree:
 * 0.4 to 0.6 are within the noise; 0.5 was best.
 */
const PREREAD_SHARE = 0.5;

/** What one walk compares: the cache's lines in path order, and names to check against `ignore:`. */
interface Walk {
  root: string;
  cache: StatCache;
  lines: StatLines;
  /** Paths a scan would read (or report) unless ignored: each one must be ignored. */
  unknown: string[];
  /** Course folders read ahead by another thread (null: it could not read that one). */
  read?: Map<string, FolderData | null> | undefined;
}

/**
 * Whether a file with a racy entry (recorded too soon after it was written to trust its stat
 * alone) still holds the bytes of the hash recorded: then it is unchanged, and trusted from now
 * on if it is old enough (git re-reads its racily clean entries the same way).
 */
function asRecorded(walk: Walk, relPath: string, stat: StatKey, hash: string): boolean {
  let bytes: Buffer;
  try {
    bytes = readFileSync(`${walk.root}/${relPath}`);
  } catch {
    return false;
  }
  if (sha256(bytes) !== hash) return false;
  walk.cache.verified(relPath, stat, hash);
  return true;
}

/** A name a scan of a course folder reads or reports unless ignored: a chapter, course.yaml, their look-alikes. */
function scanReads(name: string): boolean {
  return /\.(md|markdown)$/i.test(name) || /^course\.ya?ml$/i.test(name);
}

/** A name Node could not read as UTF-8 (its bad bytes became U+FFFD): only a scan tells what it is. */
function oddName(name: string): boolean {
  return name.includes("\uFFFD");
}

function names(walk: Walk, folder: string): string[] | undefined {
  try {
    return readdirSync(`${walk.root}/${folder}`).sort();
  } catch {
    return undefined;
  }
}

/** A subfolder of a course folder, where a scan reports any chapter file. */
function nested(walk: Walk, folder: string): boolean {
  const found = names(walk, folder);
  if (!found) return false;
  for (const name of found) {
    const relPath = `${folder}/${name}`;
    if (oddName(name)) return false;
    if (scanReads(name)) {
      walk.unknown.push(relPath);
      continue;
    }
    const stat = lstatSync(`${walk.root}/${relPath}`, { throwIfNoEntry: false });
    if (!stat || (stat.isDirectory() && !nested(walk, relPath))) return false;
  }
  return true;
}

/**
 * A course folder: every file the cache knows has its stat unchanged, and nothing a scan reads
 * is new. Names are met in path order, as the cache's lines are.
 */
function courseFolder(walk: Walk, folder: string): boolean {
  const data = walk.read?.get(folder);
  const found = data === undefined ? names(walk, folder) : data?.names;
  if (!found) return false;
  const { lines } = walk;
  const stat: StatNumbers = { kind: 0, size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };
  for (let i = 0; i < found.length; i++) {
    const name = found[i]!;
    const relPath = `${folder}/${name}`;
    // A conflict copy is reported even where `ignore:` skips it (the built-in rules do); a
    // killed run's temp file is removed by the next pull that reads the folder.
    if (oddName(name) || isConflictCopy(name) || tempFileOwner(name) !== undefined) return false;
    if (!(data ? statInto(data, i, stat) : lstatInto(`${walk.root}/${relPath}`, stat))) return false;
    if (lines.isAt(relPath)) {
      if (!isFileKind(stat)) return false;
      const taken = lines.take(relPath, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino);
      if (taken === false || (taken !== true && !asRecorded(walk, relPath, stat, taken))) return false;
    } else if (lines.behind(relPath)) {
      return false; // a cached file is gone
    } else if (scanReads(name)) walk.unknown.push(relPath);
    else if (isFolderKind(stat) && !nested(walk, relPath)) return false;
  }
  return !lines.under(`${folder}/`);
}

/**
 * The course folders under `courses/`, sorted as their paths are (`a-b/` before `a/`), as
 * `courses/<name>`; names a scan would read at the top level go to `unknown`. Undefined when
 * `courses/` cannot be read or holds something only a scan can judge.
 */
function courseFolders(root: string, unknown: string[]): string[] | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(`${root}/${COURSES_DIR}`, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const folders: string[] = [];
  for (const entry of entries) {
    if (oddName(entry.name)) return undefined;
    if (entry.isDirectory()) folders.push(`${entry.name}/`);
    else if (entry.isSymbolicLink() || entry.name.endsWith(".md") || entry.name === COURSE_FILE) {
      unknown.push(`${COURSES_DIR}/${entry.name}`);
    }
  }
  return folders.sort().map((name) => `${COURSES_DIR}/${name.slice(0, -1)}`);
}

/** Course folders another thread reads while this one checks the rest (see prereadFolders). */
export interface Preread {
  /**
   * The folders given to that thread, in path order, in the chunks it answers one after the
   * other: this thread checks a chunk as soon as it comes, while that one reads the next. An
   * answer is undefined when the thread could not run (this thread then reads those folders).
   */
  chunks: ReadonlyArray<{
    folders: ReadonlySet<string>;
    read: Promise<Map<string, FolderData | null> | undefined>;
  }>;
  /** What it read first of the folders named in `first`, before any course folder. */
  first: Promise<Map<string, FolderData | null> | undefined>;
  /** Stop the thread: its answers are not needed. */
  stop(): void;
}

/** Course folders the thread answers at a time: this thread checks one chunk while it reads on. */
const CHUNK = 250;

/**
 * Start reading the last `share` of the tree's course folders on a thread of their own, as
 * early as a command knows it will walk the tree: the thread's start-up then overlaps what
 * the command does before the walk (loading the stat cache, stamping the snapshot). Undefined
 * below `threadFrom` folders. The walk reads itself any folder this did not.
 */
export function prereadFolders(
  root: string,
  options: { share?: number; threadFrom?: number; first?: readonly string[]; chunk?: number } = {},
): Preread | undefined {
  const sorted = courseFolders(root, []);
  if (!sorted || sorted.length < (options.threadFrom ?? THREAD_FROM)) return undefined;
  return prereadFrom(root, sorted, options.share ?? PREREAD_SHARE, options.first, options.chunk);
}

/**
 * Start a thread on the last `share` of these sorted folders (at least one stays here), after
 * the folders named `first`.
 */
function prereadFrom(
  root: string,
  sorted: readonly string[],
  share = THREAD_SHARE,
  first: readonly string[] = [],
  chunk = CHUNK,
): Preread {
  const from = Math.min(sorted.length - 1, Math.ceil(sorted.length * (1 - share)));
  const tail: string[][] = [];
  for (let at = from; at < sorted.length; at += chunk) tail.push(sorted.slice(at, at + chunk));
  const thread = readFoldersOnThread(root, [first, ...tail]);
  const [firstRead, ...reads] = thread.answers.map((answer) => answer.catch(() => undefined));
  return {
    chunks: tail.map((folders, i) => ({ folders: new Set(folders), read: reads[i]! })),
    first: firstRead!,
    stop: thread.stop,
  };
}

/**
 * Every course folder under `courses/`, in path order: the ones that differ from the cache (or
 * that went away, or hold a name a scan reads unless ignored) go to `changed`. Undefined when
 * `courses/` itself holds something only a scan can judge.
 */
async function coursesFolder(
  walk: Walk,
  options: WalkOptions,
): Promise<{ changed: Set<string>; unknown: Map<string, string[]> } | undefined> {
  const sorted = courseFolders(walk.root, walk.unknown);
  if (!sorted) return undefined;
  const changed = new Set<string>();
  const unknown = new Map<string, string[]>();
  const { lines } = walk;
  /** Cached folders before this path that the walk did not meet: gone. */
  const gone = (upTo?: string) => {
    while (!lines.done && (upTo === undefined || lines.behind(upTo))) {
      const folder = lines.folderAt();
      changed.add(folder);
      lines.skipUnder(`${folder}/`);
    }
  };
  const topLevel = walk.unknown;
  // Many folders: another thread reads the last ones while this one checks the first.
  const ahead =
    options.preread ??
    (sorted.length >= (options.threadFrom ?? THREAD_FROM) ? prereadFrom(walk.root, sorted) : undefined);
  // Each folder the thread reads is checked once its chunk has come; a thread that could not
  // run leaves its folders to this one.
  const chunkOf = new Map<string, number>();
  for (const [i, chunk] of (ahead?.chunks ?? []).entries())
    for (const folder of chunk.folders) chunkOf.set(folder, i);
  let taken = 0;
  walk.read = new Map();
  const turnEvery = options.turnEvery ?? Number.POSITIVE_INFINITY;
  for (const [at, folder] of sorted.entries()) {
    if (at % turnEvery === turnEvery - 1) await nextTurn();
    const chunk = chunkOf.get(folder);
    for (; ahead && chunk !== undefined && taken <= chunk; taken++) {
      const read = await ahead.chunks[taken]!.read;
      if (read) for (const [name, data] of read) walk.read.set(name, data);
    }
    gone(`${folder}/`);
    walk.unknown = [];
    if (!courseFolder(walk, folder)) changed.add(folder);
    else if (walk.unknown.length > 0) unknown.set(folder, walk.unknown);
    lines.skipUnder(`${folder}/`);
  }
  gone();
  walk.unknown = topLevel;
  return { changed, unknown };
}

/** How the walk reads. */
export interface WalkOptions {
  /** From this many course folders, another thread reads part of them. @default THREAD_FROM */
  threadFrom?: number;
  /** Folders a thread started reading early (prereadFolders); the walk starts none of its own. */
  preread?: Preread | undefined;
  /**
   * Let the event loop turn after this many course folders: a pull walks the tree while its
   * list pages arrive, and each answer waiting for the walk holds back the next request.
   * @default never
   */
  turnEvery?: number;
}

/**
 * Whether the tree (or the given tree paths) is exactly as the stat cache last saw it clean,
 * at this stamp: git's index check. Every file the cache knows there still has its size, mtime,
 * ctime and inode; no file a scan would read appeared (unless `ignore:` skips it), and none
 * went away. True means status has nothing to say there, without reading a file or the
 * snapshot. False only means "look properly". Paths are tree-relative with /; a path this
 * cannot judge alone (outside `courses/`, in a course's subfolder) answers false.
 */
export async function unchangedSinceClean(
  root: string,
  cache: StatCache,
  stamp: string | undefined | Promise<string | undefined>,
  ignore: readonly string[],
  paths?: readonly string[],
  options: WalkOptions = {},
): Promise<boolean> {
  const changed = await changedSinceClean(root, cache, stamp, ignore, paths, options);
  return changed !== undefined && changed.size === 0;
}

/**
 * As unchangedSinceClean, but for the whole tree says which course folders (`courses/<name>`)
 * differ from what the cache last saw clean, or had something pending then: only they can
 * hold anything pending, as long as no file there holds the id of a record filed elsewhere.
 * Undefined when it cannot tell.
 * With paths, the answer is an empty set or undefined.
 */
export async function changedSinceClean(
  root: string,
  cache: StatCache,
  stamp: string | undefined | Promise<string | undefined>,
  ignore: readonly string[],
  paths?: readonly string[],
  options: WalkOptions = {},
): Promise<Set<string> | undefined> {
  if (cache.clean === undefined || (typeof stamp !== "object" && cache.clean !== stamp)) return undefined;
  const walk: Walk = { root, cache, lines: cache.lines(), unknown: [] };
  let changed = new Set<string>();
  let unknown = new Map<string, string[]>();
  if (!paths || paths.some((p) => p === "." || p === COURSES_DIR)) {
    const found = await coursesFolder(walk, options);
    if (!found) return undefined;
    ({ changed, unknown } = found);
    for (const folder of cache.dirtyAtClean) changed.add(folder);
  } else {
    const folders = new Set<string>();
    for (const given of paths) {
      const parts = given.split("/");
      if (parts[0] !== COURSES_DIR || parts.length < 2 || parts.length > 3) return undefined;
      // A file is judged with its folder, where its conflict copy would be; it must be cached.
      const folder = parts.slice(0, 2).join("/");
      if (cache.dirtyAtClean.includes(folder)) return undefined;
      walk.lines.seek(given);
      if (parts.length === 3 && !walk.lines.isAt(given)) return undefined;
      folders.add(folder);
    }
    for (const folder of folders) {
      walk.lines.seek(`${folder}/`);
      if (!courseFolder(walk, folder)) return undefined;
    }
  }
  // A stamp still being taken (its stats read by another thread) is checked once the walk is done.
  if ((await stamp) !== cache.clean) return undefined;
  if (walk.unknown.length === 0 && unknown.size === 0) return changed;
  // Rare: names a scan would read, but that may be ignored. Only now load the matcher.
  const { ignoreMatcher } = await import("../../tree/ignore-rules.js");
  const ignored = ignoreMatcher(ignore);
  if (!walk.unknown.every(ignored)) return undefined;
  for (const [folder, names] of unknown) if (!names.every(ignored)) changed.add(folder);
  return changed;
}
