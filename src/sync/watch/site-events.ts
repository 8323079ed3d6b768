import { itemIdentity } from "../../api/client.js";
import type { JsonObject } from "../../api/wire.js";
import type { Snapshot } from "../state/snapshot-model.js";

// What the first page of the site's events says watch must pull: pure, data in and data out.
// The API leaves the events' fields unsaid: an event is read as naming a course or a chapter
// when it has a `type` such as "chapter.updated" and a `resource_id`; anything else about a
// course or a chapter that cannot be placed asks for a full comparison, never a guess.

/** One course or chapter event, as far as it could be read. */
export interface SiteEvent {
  kind: "course" | "chapter";
  action: "created" | "updated" | "deleted";
  id: number;
  /** A chapter event's course (after the change), when the site names it. */
  courseId?: number | undefined;
}

/** What a poll must do about the site. */
export type RemoteWork =
  | { kind: "none" }
  /**
   * Pull these records only, each read on its own (`folders`: the course folders the last sync
   * filed them in, for the save guard).
   */
  | { kind: "records"; courses: number[]; chapters: number[]; folders: string[] }
  /** Pull these course folders (a pull limited to them). */
  | { kind: "folders"; folders: string[] }
  /** Pull the whole site: `why` says what made it necessary. */
  | { kind: "full"; why: string };

const ACTIONS: Record<string, SiteEvent["action"]> = {
  created: "created",
  create: "created",
  updated: "updated",
  update: "updated",
  deleted: "deleted",
  delete: "deleted",
  destroyed: "deleted",
  destroy: "deleted",
};

function wholeNumber(value: unknown): number | undefined {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * Read one event: a SiteEvent, "other" for an event about neither courses nor chapters, or
 * "unreadable" for one about them that does not say which record and what happened.
 */
export function readEvent(event: JsonObject): SiteEvent | "other" | "unreadable" {
  const type = typeof event.type === "string" ? event.type.toLowerCase() : "";
  const match = /^(course|chapter)s?[._: ](\w+)$/.exec(type);
  if (!match) return /course|chapter/.test(type) || type === "" ? "unreadable" : "other";
  const action = ACTIONS[match[2]!];
  const id = wholeNumber(event.resource_id);
  if (action === undefined || id === undefined) return "unreadable";
  const courseId = wholeNumber(event.course_id);
  return { kind: match[1] as SiteEvent["kind"], action, id, ...(courseId ? { courseId } : {}) };
}

/** When an event happened, for telling the order of a page: its id, else its time. */
function orderOf(event: JsonObject): number {
  if (typeof event.id === "number") return event.id;
  return typeof event.created_at === "string" ? Date.parse(event.created_at) : Number.NaN;
}

/** Whether a page of events is listed oldest first (then its first page never shows what is new). */
export function oldestFirst(page: readonly JsonObject[]): boolean {
  if (page.length < 2) return false;
  const [first, last] = [orderOf(page[0]!), orderOf(page.at(-1)!)];
  return Number.isFinite(first) && Number.isFinite(last) && first < last;
}

/**
 * The events of a newest-first page that came after those `seen` holds (the identities of the
 * previous page), newest first; undefined when none of the page was seen before: a gap, since
 * events between the two pages may be on later pages or dropped by the site.
 */
export function newEvents(page: readonly JsonObject[], seen: ReadonlySet<unknown>): JsonObject[] | undefined {
  const fresh: JsonObject[] = [];
  for (const event of page) {
    if (seen.has(itemIdentity(event))) return fresh;
    fresh.push(event);
  }
  return page.length === 0 ? [] : undefined;
}

/** The course folder of a course id in the snapshot, if it knows the course. */
function courseFolder(snapshot: Snapshot, id: number | undefined): string | undefined {
  return id === undefined ? undefined : snapshot.courses[String(id)]?.path;
}

/** The folders one event touches, or why it needs a full comparison. */
function foldersOf(event: SiteEvent, snapshot: Snapshot): string[] | string {
  const known = (event.kind === "course" ? snapshot.courses : snapshot.chapters)[String(event.id)];
  if (event.kind === "course") {
    if (known) return [known.path];
    return event.action === "deleted" ? [] : `course ${event.id} is new on the site`;
  }
  const folders = known ? [known.path.slice(0, known.path.lastIndexOf("/"))] : [];
  if (event.courseId !== undefined) {
    const course = courseFolder(snapshot, event.courseId);
    if (course === undefined) return `chapter ${event.id} is in course ${event.courseId}, new here`;
    folders.push(course);
  }
  if (folders.length > 0 || event.action === "deleted") return folders;
  return `chapter ${event.id} is new on the site and its course is not named`;
}

/**
 * Most records one pull reads one by one (a deleted course counts its chapters): beyond, the
 * lists limited to their folders are cheaper.
 */
export const NAMED_MAX = 20;

/** How many records reading a course or chapter one by one takes: a deleted course, its chapters too. */
function readsFor(event: SiteEvent, snapshot: Snapshot): number {
  if (event.kind === "chapter" || event.action !== "deleted") return 1;
  const course = String(event.id);
  return (
    1 + Object.values(snapshot.chapters).filter((entry) => String(entry.record.course_id) === course).length
  );
}

/**
 * What the new events ask for: the records they name, each read on its own (up to NAMED_MAX
 * reads); beyond, the course folders they touch (each folder once, sorted), or a full
 * comparison when one of them names what the snapshot cannot place. `echo` takes each event
 * that is watch's own write coming back, and true drops it.
 */
export function workOf(
  events: readonly JsonObject[],
  snapshot: Snapshot | undefined,
  echo: (event: SiteEvent) => boolean,
): RemoteWork {
  const folders = new Set<string>();
  const named = { course: new Set<number>(), chapter: new Set<number>() };
  let reads = 0;
  let unplaced: string | undefined;
  for (const raw of events) {
    const event = readEvent(raw);
    if (event === "other") continue;
    if (event === "unreadable") return { kind: "full", why: "an event that does not name its record" };
    if (echo(event)) continue;
    if (!snapshot) return { kind: "full", why: "no snapshot yet" };
    if (!named[event.kind].has(event.id)) reads += readsFor(event, snapshot);
    named[event.kind].add(event.id);
    const touched = foldersOf(event, snapshot);
    if (typeof touched === "string") unplaced ??= touched;
    else for (const folder of touched) folders.add(folder);
  }
  if (named.course.size + named.chapter.size === 0) return { kind: "none" };
  const sorted = (ids: Set<number>) => [...ids].sort((a, b) => a - b);
  if (reads <= NAMED_MAX) {
    const [courses, chapters] = [sorted(named.course), sorted(named.chapter)];
    return { kind: "records", courses, chapters, folders: [...folders].sort() };
  }
  if (unplaced !== undefined) return { kind: "full", why: unplaced };
  return { kind: "folders", folders: [...folders].sort() };
}

/**
 * watch's own writes, to be known when they come back as events: one expected event per write
 * (a record written twice expects two), taken as they come. What never came back is forgotten
 * at the next full comparison, which would have brought in anything it hid.
 */
export class EchoLog {
  private readonly expected = new Map<string, number>();

  /** A write of watch's own: its event will come. */
  wrote(kind: SiteEvent["kind"], id: number, action: SiteEvent["action"]): void {
    const key = `${kind} ${id} ${action}`;
    this.expected.set(key, (this.expected.get(key) ?? 0) + 1);
  }

  /** Whether this event is one of watch's own writes coming back (then it is taken). */
  take(event: SiteEvent): boolean {
    const key = `${event.kind} ${event.id} ${event.action}`;
    const count = this.expected.get(key) ?? 0;
    if (count === 0) return false;
    if (count === 1) this.expected.delete(key);
    else this.expected.set(key, count - 1);
    return true;
  }

  /** Forget every write still expected. */
  clear(): void {
    this.expected.clear();
  }
}
