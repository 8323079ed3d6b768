import type { Listing } from "../../api/client.js";
import type { WireRecord } from "../../api/wire.js";
import { courseFilePath, inCourseFolders } from "../../tree/layout.js";
import type { StatCache } from "../../tree/stat-cache.js";
import { joinSides, type LocalSide, type OpenLocalOptions, openLocalIn } from "../local/open.js";
import { folderSet } from "../local/pending.js";
import { changedSinceClean } from "../local/unchanged.js";
import type { LocalView } from "../local/view.js";
import { courseValuesOfRecord, sameAsSnapshot } from "../model/entities.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot-model.js";

// A pull of a tree the stat cache last saw clean reads only the course folders where anything
// can have changed: those that differ from what the cache saw (a walk of stats, as status
// makes it) and those the site's changes touch. Every other folder holds exactly what the last
// sync wrote there, and the site lists its records as the snapshot has them: reconciling it
// would change nothing, so its chapters are left out of the plan altogether, and its course
// stands in the local view as the snapshot has it (its folder's name stays taken).

/** Course folders the walk checks in one turn of the event loop while the listing arrives. */
const FOLDERS_PER_TURN = 16;

/** The site lists the record as the last sync has it (its content by hash, not read). */
function listedAsSynced(record: WireRecord, entry: SnapshotEntry | undefined): boolean {
  return entry !== undefined && entry.conflict === undefined && sameAsSnapshot(record, entry.record);
}

/**
 * The course folders the site's changes since the last sync touch: where a record it lists
 * differently (or no longer lists) was filed, and the folder of the course a changed or new
 * chapter is in now. A new course has no folder yet. Undefined when an entry is filed outside
 * a course folder (then the whole tree is read).
 */
export function remoteFolders(
  snapshot: Snapshot,
  courses: readonly WireRecord[],
  chapters: readonly WireRecord[],
): Set<string> | undefined {
  const { add, folders } = folderSet();
  const listedCourses = new Set<number>();
  for (const record of courses) {
    listedCourses.add(record.id);
    const entry = snapshot.courses[record.id];
    if (!listedAsSynced(record, entry)) add(entry?.path);
  }
  const listedChapters = new Set<number>();
  for (const record of chapters) {
    listedChapters.add(record.id);
    const entry = snapshot.chapters[record.id];
    // A snapshot from before bodies were recorded rewrites the file: as a change.
    if (entry?.body !== undefined && listedAsSynced(record, entry)) continue;
    add(entry?.path);
    add(snapshot.courses[Number(record.course_id)]?.path);
  }
  for (const [id, entry] of Object.entries(snapshot.courses))
    if (!listedCourses.has(Number(id))) add(entry.path);
  for (const [id, entry] of Object.entries(snapshot.chapters))
    if (!listedChapters.has(Number(id))) add(entry.path);
  return folders();
}

/** What a pull plans with when it reads only some course folders. */
export interface Narrowed {
  /** Every course, and the chapters filed in the folders read. */
  base: Snapshot;
  /** The chapters the site lists that are new or filed in the folders read. */
  remoteChapters: WireRecord[];
}

/** The snapshot and the site's chapters, narrowed to these course folders (and new chapters). */
export function narrowTo(
  snapshot: Snapshot,
  folders: ReadonlySet<string>,
  remoteChapters: readonly WireRecord[],
): Narrowed {
  const inside = inCourseFolders(folders);
  const chapters: Record<string, SnapshotEntry> = {};
  for (const [id, entry] of Object.entries(snapshot.chapters)) if (inside(entry.path)) chapters[id] = entry;
  return {
    base: { ...snapshot, chapters },
    remoteChapters: remoteChapters.filter((record) => {
      const entry = snapshot.chapters[record.id];
      return entry === undefined || inside(entry.path);
    }),
  };
}

/**
 * Put the courses of the folders not read into a view of the folders read, as the snapshot has
 * them: their files are what the last sync wrote (the walk said so).
 */
export function withCoursesAsSynced(
  local: LocalView,
  snapshot: Snapshot,
  folders: ReadonlySet<string>,
): void {
  const inside = inCourseFolders(folders);
  for (const [id, entry] of Object.entries(snapshot.courses)) {
    if (inside(entry.path)) continue;
    const key = `course:${id}`;
    local.courses.set(key, {
      id: Number(id),
      key,
      folder: entry.path,
      file: courseFilePath(entry.path),
      hash: entry.hash,
      values: courseValuesOfRecord(entry.record),
      unchanged: true,
    });
    local.courseByFolder.set(entry.path, key);
  }
}

/** The snapshot after a narrowed pull: the plan's, with the chapters of the folders not read as they were. */
export function widened(loaded: Snapshot, folders: ReadonlySet<string>, next: Snapshot): Snapshot {
  const inside = inCourseFolders(folders);
  const chapters: Record<string, SnapshotEntry> = {};
  for (const [id, entry] of Object.entries(loaded.chapters)) if (!inside(entry.path)) chapters[id] = entry;
  Object.assign(chapters, next.chapters);
  return { ...next, chapters };
}

/** How many of the tree's course folders a narrowed pull read. */
export function foldersRead(local: LocalView, read: ReadonlySet<string>): { read: number; of: number } {
  const folders = new Set([...local.courses.values()].map((course) => course.folder));
  return { read: [...read].filter((folder) => folders.has(folder)).length, of: folders.size };
}

/** The local side of the course folders read, and what the plan takes with it. */
export interface NarrowSide extends Narrowed {
  side: LocalSide<Snapshot>;
  /** The course folders read. */
  folders: Set<string>;
}

/** How the local side is opened: the same for the whole tree and for some folders. */
export type OpenOptions = Pick<
  OpenLocalOptions<Snapshot>,
  "ignore" | "bodies" | "statCache" | "cache" | "onWarning"
>;

/**
 * The local side read only where anything can have changed (see the top of this file): when the stat
 * cache last saw the tree clean at this stamp, the course folders that differ since (read
 * while the listing arrives), and those the site's changes touch (known once it is whole).
 * Undefined when that cannot be told, or a file there is invalid (what it holds back can
 * reach beyond its folder): the whole tree is read then.
 */
export async function openNarrowly(
  root: string,
  snapshot: Snapshot,
  stamp: string | undefined,
  listing: Promise<[Listing, Listing]>,
  open: OpenOptions & { statCache: StatCache },
): Promise<NarrowSide | undefined> {
  const changed = await changedSinceClean(root, open.statCache, stamp, open.ignore, undefined, {
    turnEvery: FOLDERS_PER_TURN,
  });
  if (!changed) return undefined;
  // Told only if this way is taken: else the whole tree's scan tells them.
  const warnings: string[] = [];
  const openIn = (folders: ReadonlySet<string>) =>
    openLocalIn(root, snapshot, folders, { ...open, onWarning: (message) => warnings.push(message) });
  const here = openIn(changed);
  here.catch(() => {});
  const [courses, chapters] = await listing.catch(async (error: unknown) => {
    await here.catch(() => {});
    throw error;
  });
  const read = await here;
  const remote = remoteFolders(snapshot, courses.records, chapters.records);
  if (!remote || !read) return undefined;
  const more = new Set([...remote].filter((folder) => !changed.has(folder)));
  const side = more.size > 0 ? await openIn(more).then((also) => also && joinSides(read, also)) : read;
  if (!side || side.problems.length > 0) return undefined;
  for (const message of warnings.sort()) open.onWarning?.(message);
  const folders = new Set([...changed, ...more]);
  const { base, remoteChapters } = narrowTo(snapshot, folders, chapters.records);
  withCoursesAsSynced(side.local, snapshot, folders);
  return { side, folders, base, remoteChapters };
}
