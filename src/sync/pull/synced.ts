import type { WireRecord } from "../../api/wire.js";
import { courseFilePath } from "../../tree/layout.js";
import type { LocalView } from "../local/view.js";
import { sameAsSnapshot } from "../model/entities.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot-model.js";
import type { PullInput } from "./plan-model.js";

/** The courses a pull has nothing to do for, and their chapters. */
export interface Synced {
  courses: ReadonlySet<number>;
  chapters: ReadonlySet<number>;
}

/** The site lists the record as the snapshot has it (its content by hash, not read). */
function listedAsSynced(remote: WireRecord | undefined, entry: SnapshotEntry): boolean {
  return remote !== undefined && entry.conflict === undefined && sameAsSnapshot(remote, entry.record);
}

/** The tree holds the record's file where, and as, the last sync wrote it. */
function keptAsSynced(
  mine: { file: string; hash: string; unchanged: boolean } | undefined,
  file: string,
  entry: SnapshotEntry,
): boolean {
  return mine?.unchanged === true && mine.file === file && mine.hash === entry.hash;
}

/**
 * The courses that are synced as a whole: the site lists the course and exactly the chapters
 * the snapshot files under it, each as the snapshot has it; the tree holds each file where and
 * as the last sync wrote it, and nothing else a pull reads there (no new or untracked chapter,
 * no conflict copy, no held record). Reconciling them changes nothing, and no other record's
 * change can move their files (their folder and file names stay taken), so a pull leaves them
 * out of its plan, their snapshot entries the very objects it holds. Empty when the body
 * format changed (every file is then rewritten).
 */
export function syncedCourses(
  input: PullInput,
  base: Snapshot,
  remote: { courses: ReadonlyMap<number, WireRecord>; chapters: ReadonlyMap<number, WireRecord> },
): Synced {
  const courses = new Set<number>();
  const chapters = new Set<number>();
  if ((input.snapshot?.body ?? "html") !== input.bodies.mode) return { courses, chapters };
  const { local } = input;
  // Per course: its chapters as the snapshot files them, as the site lists them, as the tree has them.
  const filed = new Map<number, number[]>();
  for (const [key, entry] of Object.entries(base.chapters)) {
    const course = Number(entry.record.course_id);
    const list = filed.get(course);
    if (list) list.push(Number(key));
    else filed.set(course, [Number(key)]);
  }
  const listed = countBy(remote.chapters.values(), (record) => Number(record.course_id));
  const inFolder = countBy(local.chapters.values(), (chapter) => chapter.courseKey);
  const withCopies = new Set<string>();
  for (const copy of input.existingCopies) withCopies.add(copy.split("/").slice(0, 2).join("/"));
  for (const [key, entry] of Object.entries(base.courses)) {
    const id = Number(key);
    const ids = filed.get(id) ?? [];
    if (
      input.held?.courses.has(id) ||
      withCopies.has(entry.path) ||
      !listedAsSynced(remote.courses.get(id), entry) ||
      !keptAsSynced(local.courses.get(`course:${id}`), courseFilePath(entry.path), entry) ||
      (listed.get(id) ?? 0) !== ids.length ||
      (inFolder.get(`course:${id}`) ?? 0) !== ids.length ||
      !ids.every((chapter) => chapterSynced(chapter, base, input, remote.chapters, local))
    ) {
      continue;
    }
    courses.add(id);
    for (const chapter of ids) chapters.add(chapter);
  }
  return { courses, chapters };
}

function chapterSynced(
  id: number,
  base: Snapshot,
  input: PullInput,
  remote: ReadonlyMap<number, WireRecord>,
  local: LocalView,
): boolean {
  const entry = base.chapters[id]!;
  const mine = local.chapters.get(`chapter:${id}`);
  return (
    entry.body !== undefined &&
    !input.held?.chapters.has(id) &&
    listedAsSynced(remote.get(id), entry) &&
    mine?.courseKey === `course:${entry.record.course_id}` &&
    keptAsSynced(mine, entry.path, entry)
  );
}

function countBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, number> {
  const counts = new Map<K, number>();
  for (const item of items) {
    const key = keyOf(item);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
