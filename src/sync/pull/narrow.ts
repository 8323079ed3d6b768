import type { WireRecord } from "../../api/wire.js";
import { courseFilePath, inCourseFolders } from "../../tree/layout.js";
import { courseValuesOfRecord, snapshotRecord } from "../entities.js";
import { folderSet } from "../local/pending.js";
import type { LocalView } from "../local-view.js";
import { jsonEqual } from "../reconcile.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot.js";

// A pull of a tree the stat cache last saw clean reads only the course folders where anything
// can have changed: those that differ from what the cache saw (a walk of stats, as status
// makes it) and those the site's changes touch. Every other folder holds exactly what the last
// sync wrote there, and the site lists its records as the snapshot has them: reconciling it
// would change nothing, so its chapters are left out of the plan altogether, and its course
// stands in the local view as the snapshot has it (its folder's name stays taken).

/** The site lists the record as the last sync has it (its content by hash, not read). */
function listedAsSynced(record: WireRecord, entry: SnapshotEntry | undefined): boolean {
  return (
    entry !== undefined && entry.conflict === undefined && jsonEqual(snapshotRecord(record), entry.record)
  );
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
