import type { WireRecord } from "../../api/wire.js";
import { courseFilePath, courseFolderContaining, inCourseFolders } from "../../tree/layout.js";
import type { ScanResult } from "../../tree/scan.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import { courseValuesOfRecord, snapshotRecord } from "../entities.js";
import type { LocalView } from "../local-view.js";
import { jsonEqual } from "../reconcile.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot.js";
import type { FileOp } from "./plan.js";

// A pull of a tree the stat cache last saw clean reads only the course folders where anything
// can have changed: those that differ from what the cache saw (a walk of stats, as status
// makes it) and those the site's changes touch. Every other folder holds exactly what the last
// sync wrote there, and the site lists its records as the snapshot has them: reconciling it
// would change nothing, so its chapters are left out of the plan altogether, and its course
// stands in the local view as the snapshot has it (its folder's name stays taken).

/**
 * The course folders of the tree paths added to it; undefined when one is outside every
 * course folder (what is there only a read of the whole tree can judge).
 */
function folderSet(): { add: (relPath: string | undefined) => void; folders: () => Set<string> | undefined } {
  const found = new Set<string>();
  let outside = false;
  return {
    add: (relPath) => {
      if (relPath === undefined) return;
      const folder = courseFolderContaining(relPath);
      if (folder === undefined) outside = true;
      else found.add(folder);
    },
    folders: () => (outside ? undefined : found),
  };
}

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

/**
 * The course folders where the tree may hold something a pull left pending: any file that is
 * not byte for byte what the last sync wrote where it wrote it (an edit, a new or moved file,
 * one gone), an invalid file, a conflict copy. Everywhere else the tree is what the pull's
 * snapshot says. Undefined when one of them is outside a course folder.
 */
export function pendingFolders(
  side: {
    scan: ScanResult;
    local: LocalView;
    snapshot: Snapshot | undefined;
    problems: readonly FileProblem[];
  },
  ops: readonly FileOp[],
): string[] | undefined {
  const { add, folders } = folderSet();
  const { local, snapshot } = side;
  for (const course of local.courses.values()) {
    const entry = course.id === undefined ? undefined : snapshot?.courses[course.id];
    if (course.unchanged && entry?.path === course.folder && entry.hash === course.hash) continue;
    add(course.folder);
    add(entry?.path);
  }
  for (const chapter of local.chapters.values()) {
    const entry = chapter.id === undefined ? undefined : snapshot?.chapters[chapter.id];
    if (chapter.unchanged && entry?.path === chapter.file && entry.hash === chapter.hash) continue;
    add(chapter.file);
    add(entry?.path);
  }
  for (const [id, entry] of Object.entries(snapshot?.courses ?? {}))
    if (!local.courses.has(`course:${id}`)) add(entry.path);
  for (const [id, entry] of Object.entries(snapshot?.chapters ?? {}))
    if (!local.chapters.has(`chapter:${id}`)) add(entry.path);
  for (const problem of side.problems) add(problem.file);
  for (const copy of side.scan.copies) add(copy);
  for (const op of ops) if (op.op === "copy") add(op.path);
  const found = folders();
  return found && [...found].sort();
}
