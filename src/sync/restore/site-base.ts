import type { WireRecord } from "../../api/wire.js";
import type { LocalChapter, LocalCourse, LocalView } from "../local/view.js";
import { snapshotRecord } from "../model/entities.js";
import type { ContentCache } from "../state/content-cache.js";
import { type IdMap, SiteIds } from "../state/id-map.js";
import { newestTime } from "../state/recovery.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot-model.js";

// `coursesync restore` makes the site hold the tree. Its base is not the last sync but the site
// as it is now: a record the site still has is compared with the file field by field (the tree
// wins every difference), a record it lost is created again from its file (which takes the new
// id), and a record only the site has is deleted only when asked (--delete).

/** A hash no file has: every file is read and compared with the site's record. */
const COMPARE = "restore";

/** What the site holds, listed. */
export interface SiteListing {
  courses: readonly WireRecord[];
  chapters: readonly WireRecord[];
}

/** The base a restore plans against, and what it found. */
export interface RestoreBase {
  snapshot: Snapshot;
  /** Records of the last sync the site no longer has (created again from their files). */
  lost: number;
  /** Records only the site has (deleted with --delete; else left alone and left out). */
  extra: number;
  /** The newest time of any record listed (see Snapshot.listed). */
  newest: string | undefined;
}

const TABLE = { course: "courses", chapter: "chapters" } as const;

/** Where a record only the site has stands in messages: its course's folder, or a name of its own. */
function extraPath(kind: "course" | "chapter", record: WireRecord, next: Snapshot): string {
  if (kind === "course")
    return `courses/(only on the site: course ${record.id}${record.slug ? `, ${String(record.slug)}` : ""})`;
  const course =
    next.courses[String(record.course_id)]?.path ?? `courses/(course ${String(record.course_id)})`;
  return `${course}/(only on the site: chapter ${record.id}, ${JSON.stringify(record.title)})`;
}

/**
 * The snapshot a restore plans against: the last sync's entries (their paths) with the records
 * as the site has them now; entries the site lost left out (their files are then new); records
 * only the site has added when `extras` (so that push sees them deleted here). Chapter texts go
 * into the content cache, as a pull keeps them. Another site's snapshot keeps its id map.
 */
export async function siteAsBase(
  loaded: Snapshot,
  listed: SiteListing,
  cache: ContentCache,
  extras: boolean,
): Promise<RestoreBase> {
  const map = loaded.ids ? new SiteIds(loaded.ids) : undefined;
  const ids: IdMap | undefined = loaded.ids ? { courses: {}, chapters: {} } : undefined;
  const next: Snapshot = { ...loaded, courses: {}, chapters: {}, ...(ids ? { ids } : {}) };
  let extra = 0;
  for (const kind of ["course", "chapter"] as const) {
    const table = TABLE[kind];
    for (const record of listed[table]) {
      const tree = map ? map.recordToTree(kind, record) : record;
      const old = loaded[table][tree.id];
      if (!old) {
        extra++;
        // Deleted only when asked, and only on the site the files' ids are: another site's
        // records the tree has not received are left to its own pulls.
        if (!extras || map) continue;
      }
      if (typeof record.content === "string") await cache.stage(record.content);
      const entry: SnapshotEntry = {
        path: old?.path ?? extraPath(kind, tree, next),
        hash: COMPARE,
        record: snapshotRecord(tree),
      };
      next[table][tree.id] = entry;
      if (ids && tree.id >= 0) ids[table][tree.id] = record.id;
    }
  }
  await cache.flush();
  const lost = ["courses", "chapters"].reduce(
    (n, table) =>
      n +
      Object.keys(loaded[table as "courses"]).filter((id) => next[table as "courses"][id] === undefined)
        .length,
    0,
  );
  return { snapshot: next, lost, extra, newest: newestTime([...listed.courses, ...listed.chapters]) };
}

/** The restore base of a site read through `client`: both lists, then siteAsBase. */
export async function restoreBase(
  loaded: Snapshot,
  client: { listAll(resource: "courses" | "chapters"): Promise<{ records: WireRecord[] }> },
  cache: ContentCache,
  extras: boolean,
): Promise<RestoreBase> {
  const [courses, chapters] = await Promise.all([client.listAll("courses"), client.listAll("chapters")]);
  return siteAsBase(loaded, { courses: courses.records, chapters: chapters.records }, cache, extras);
}

/**
 * The local view of a restore: a file whose record the site lost (its id is not in the base) is
 * a new file, keyed as one (`course:new:<folder>`), so that the id the site gives it is never
 * taken for the old id another file may still carry.
 */
export function lostAsNew(local: LocalView, base: Snapshot): LocalView {
  const courses = new Map<string, LocalCourse>();
  const rekeyed = new Map<string, string>();
  for (const course of local.courses.values()) {
    const lost = course.id !== undefined && !base.courses[course.id];
    const next = lost ? { ...course, id: undefined, key: `course:new:${course.folder}` } : course;
    rekeyed.set(course.key, next.key);
    courses.set(next.key, next);
  }
  const chapters = new Map<string, LocalChapter>();
  for (const chapter of local.chapters.values()) {
    const lost = chapter.id !== undefined && !base.chapters[chapter.id];
    const courseKey = rekeyed.get(chapter.courseKey) ?? chapter.courseKey;
    const next = lost
      ? { ...chapter, id: undefined, key: `chapter:new:${chapter.file}`, courseKey }
      : { ...chapter, courseKey };
    chapters.set(next.key, next);
  }
  const courseByFolder = new Map(
    [...local.courseByFolder].map(([folder, key]) => [folder, rekeyed.get(key) ?? key]),
  );
  return { ...local, courses, chapters, courseByFolder };
}

/** The newest time a restore saw of the site: its listing's, and the records it made (in `next`). */
export function restoredListed(next: Snapshot, restored: RestoreBase): string | undefined {
  const records = [...Object.values(next.courses), ...Object.values(next.chapters)].map((e) => e.record);
  return newestTime([...records, ...(restored.newest ? [{ id: 0, created_at: restored.newest }] : [])]);
}
