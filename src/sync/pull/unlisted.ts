import PQueue from "p-queue";
import type { WireRecord } from "../../api/wire.js";
import { courseFilePath } from "../../tree/layout.js";
import type { LocalView } from "../local/view.js";
import type { Change } from "../model/report.js";
import type { Selection } from "../selection.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { RecordReader } from "./complete.js";
import type { Held } from "./held.js";

// "Cannot see it" is never "deleted" (DESIGN section 4). Lists are paged by offset: when someone
// deletes records while pull pages through (or edits them, on a site that orders its lists by
// updated_at), later records slide to earlier pages and are never listed. So a record of the
// last sync that the listing left out is deleted here only after a direct read answers 404;
// one that reads back fine means the listing moved, and then nothing is deleted from it.

/** Ids of the last sync's records, per kind. */
export interface RecordIds {
  courses: number[];
  chapters: number[];
}

/** A record named to the person: its kind, id and file (a course by its folder). */
export interface RecordRef {
  kind: "course" | "chapter";
  id: number;
  path: string;
}

/** A listing that left out records the site still has: what it missed, what waits. */
export interface ListingMoved {
  /** Records the listing left out that read back fine: kept here as they are. */
  missed: RecordRef[];
  /** Records the site did delete: kept here too, deleted by the next pull with a whole listing. */
  waiting: RecordRef[];
}

/**
 * The records of the last sync that the listing left out and that a plan made from it would
 * delete here, or drop from the snapshot, or call deleted on the site (a conflict): those a
 * direct read must confirm. Records the plan leaves alone (out of scope, held) are not named.
 * Pure.
 */
export function unlistedRecords(
  base: Pick<Snapshot, "courses" | "chapters"> | undefined,
  listed: { courses: readonly WireRecord[]; chapters: readonly WireRecord[] },
  plan: { snapshot: Pick<Snapshot, "courses" | "chapters">; changes: readonly Change[] },
): RecordIds {
  const named = new Set(plan.changes.map((change) => `${change.kind}:${change.id}`));
  const missing = (table: "courses" | "chapters", records: readonly WireRecord[]) => {
    const kind = table === "courses" ? "course" : "chapter";
    const seen = new Set(records.map((record) => record.id));
    return Object.keys(base?.[table] ?? {})
      .map(Number)
      .filter((id) => !seen.has(id) && (!(id in plan.snapshot[table]) || named.has(`${kind}:${id}`)))
      .sort((a, b) => a - b);
  };
  return { courses: missing("courses", listed.courses), chapters: missing("chapters", listed.chapters) };
}

/** What the direct reads of unlisted records found. */
export interface Confirmed {
  /** Records that read back fine: the listing missed them. */
  live: RecordIds;
  /** Records the site answered 404 for (or whose course it did). */
  gone: RecordIds;
  /** Requests made. */
  reads: number;
}

/**
 * Read each unlisted record directly, all at once through the reader's one gate. A chapter
 * whose course is unlisted too waits for the course's read: when the course is gone, so is
 * the chapter (no read); else it is read itself.
 */
export async function confirmUnlisted(
  unlisted: RecordIds,
  reader: RecordReader,
  courseOf: (chapter: number) => number | undefined,
): Promise<Confirmed> {
  const out: Confirmed = {
    live: { courses: [], chapters: [] },
    gone: { courses: [], chapters: [] },
    reads: 0,
  };
  // The reader's own gate keeps these within the site's limits; this only bounds what waits.
  const queue = new PQueue({ concurrency: 64 });
  const read = (resource: "courses" | "chapters", id: number) =>
    queue.add(async () => {
      out.reads++;
      return (await reader.get(resource, id)) !== undefined;
    });
  const courses = new Map(unlisted.courses.map((id) => [id, read("courses", id)]));
  const settle = async (resource: "courses" | "chapters", id: number, live: Promise<boolean>) => {
    (((await live) ? out.live : out.gone)[resource] as number[]).push(id);
  };
  await Promise.all([
    ...[...courses].map(([id, live]) => settle("courses", id, live)),
    ...unlisted.chapters.map((id) => {
      const course = courses.get(courseOf(id) ?? Number.NaN);
      const live = course ? course.then((alive) => alive && read("chapters", id)) : read("chapters", id);
      return settle("chapters", id, live);
    }),
  ]);
  out.live.courses.sort((a, b) => a - b);
  out.live.chapters.sort((a, b) => a - b);
  out.gone.courses.sort((a, b) => a - b);
  out.gone.chapters.sort((a, b) => a - b);
  return out;
}

/**
 * Whether the listing moved, and if so what it missed and which deletes wait; undefined when
 * every unlisted record is confirmed gone (the listing is whole: its deletes go ahead). Pure.
 */
export function listingMoved(
  confirmed: Pick<Confirmed, "live" | "gone">,
  where: (kind: "course" | "chapter", id: number) => string,
): ListingMoved | undefined {
  const { live, gone } = confirmed;
  if (live.courses.length + live.chapters.length === 0) return undefined;
  const refs = (ids: RecordIds): RecordRef[] => [
    ...ids.courses.map((id) => ({ kind: "course" as const, id, path: where("course", id) })),
    ...ids.chapters.map((id) => ({ kind: "chapter" as const, id, path: where("chapter", id) })),
  ];
  return { missed: refs(live), waiting: refs(gone) };
}

/** Where a record of the last sync is here: its file (a course: its folder), else the snapshot's path. */
export function recordPath(
  local: LocalView,
  base: Pick<Snapshot, "courses" | "chapters"> | undefined,
): (kind: "course" | "chapter", id: number) => string {
  return (kind, id) =>
    kind === "course"
      ? (local.courses.get(`course:${id}`)?.folder ?? base?.courses[id]?.path ?? "")
      : (local.chapters.get(`chapter:${id}`)?.file ?? base?.chapters[id]?.path ?? "");
}

/**
 * The records a moved listing holds back (every record it left out, live or gone) and the
 * files a plan must not touch for others (a course folder that would move carries them).
 */
function heldByListing(moved: ListingMoved): {
  held: { courses: Set<number>; chapters: Set<number> };
  files: Set<string>;
} {
  const all = [...moved.missed, ...moved.waiting];
  const ids = (kind: RecordRef["kind"]) => new Set(all.filter((r) => r.kind === kind).map((r) => r.id));
  const files = all
    .filter((ref) => ref.path !== "")
    .map((ref) => (ref.kind === "course" ? courseFilePath(ref.path) : ref.path));
  return { held: { courses: ids("course"), chapters: ids("chapter") }, files: new Set(files) };
}

/** What the check of a listing found: whether it moved, and the reads it took. */
export interface ListingCheck {
  moved: ListingMoved | undefined;
  reads: number;
}

/**
 * Confirm by direct reads that the unlisted records are gone (one request each; none when the
 * listing left nothing out), and say whether the listing moved.
 */
export async function checkUnlisted(
  unlisted: RecordIds,
  reader: RecordReader,
  where: Pick<ConfirmOptions, "base" | "local">,
): Promise<ListingCheck> {
  // No line tells of these reads (-v logs them): every pull that meets a delete makes a few.
  if (unlisted.courses.length + unlisted.chapters.length === 0) return { moved: undefined, reads: 0 };
  const courseOf = (chapter: number) => {
    const course = where.base?.chapters[chapter]?.record.course_id;
    return course === undefined || course === null ? undefined : Number(course);
  };
  const confirmed = await confirmUnlisted(unlisted, reader, courseOf);
  return { moved: listingMoved(confirmed, recordPath(where.local, where.base)), reads: confirmed.reads };
}

/** What planning with a confirmed listing needs besides the plan: the reads, and where records are. */
export interface ConfirmOptions {
  base: Pick<Snapshot, "courses" | "chapters"> | undefined;
  listed: { courses: readonly WireRecord[]; chapters: readonly WireRecord[] };
  reader: RecordReader;
  local: LocalView;
}

/**
 * The confirm step between plan and execute: read directly the records of the last sync that
 * the listing left out and this plan would delete (one request each; none when the listing
 * left nothing out), and say whether the listing moved.
 */
export function confirmDeletes(
  plan: { snapshot: Snapshot; changes: Change[] },
  options: ConfirmOptions,
): Promise<ListingCheck> {
  return checkUnlisted(unlistedRecords(options.base, options.listed, plan), options.reader, options);
}

/**
 * The plan after the confirm step (pure): all gone, the first plan stands; any still on the
 * site, the listing moved, and the plan is made again with every record it left out held as it
 * is (its file and snapshot entry untouched, and no course folder moved that carries its file),
 * so nothing is deleted from that listing.
 */
export function planAfterCheck<P>(
  first: P,
  check: ListingCheck,
  plan: (held: Held, select: Selection | undefined) => P,
  held: Held,
  select: Selection | undefined,
): P {
  if (!check.moved) return first;
  const byListing = heldByListing(check.moved);
  const more: Held = {
    courses: new Set([...held.courses, ...byListing.held.courses]),
    chapters: new Set([...held.chapters, ...byListing.held.chapters]),
  };
  const around = (file: string) => !byListing.files.has(file) && (select?.(file) ?? true);
  return plan(more, around);
}

/** Plan, confirm the deletes of what the listing left out, and plan again if it moved. */
export async function planConfirmingDeletes<P extends { snapshot: Snapshot; changes: Change[] }>(
  plan: (held: Held, select: Selection | undefined) => P,
  held: Held,
  select: Selection | undefined,
  options: ConfirmOptions,
): Promise<{ plan: P; check: ListingCheck }> {
  const first = plan(held, select);
  const check = await confirmDeletes(first, options);
  return { plan: planAfterCheck(first, check, plan, held, select), check };
}
