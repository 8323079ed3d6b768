import { stableStringify } from "../../util/stable-json.js";
import type { IdMap } from "./id-map.js";
import type { Snapshot, SnapshotEntry } from "./snapshot-model.js";

// The committed snapshot of a site is a folder, `.coursesync/<site>/`: `site.json` (what the
// whole snapshot shares) and one file per course under `courses/` holding the course's entry,
// the entries of its chapters and, for a site other than the default one, their ids on that
// site. A change to one record rewrites one small file, and git merges the folder line by line.
// This module is the pure part: a snapshot to file texts and back.

/** The site file of the folder: what the whole snapshot shares. */
export const SITE_FILE = "site.json";
/** The folder of the per-course files, inside the site's folder. */
export const COURSES_DIR = "courses";
/** Chapters whose course the snapshot does not hold, and ids of no known record. */
export const ORPHANS_FILE = "orphans.json";
/** The format of the folder (the single file of earlier versions was 1). */
export const FOLDER_VERSION = 2;

/** The text of one file of the folder: sorted keys, one value per line, LF, final newline. */
export const shardJson: (value: unknown) => string = stableStringify;

/** The file of one course, relative to the site's folder (a provisional course's id is negative). */
export function courseShard(id: string): string {
  return `${COURSES_DIR}/${id}.json`;
}

/** Where an entry lives: a course in its own file, a chapter in its course's (or the orphans). */
function homes(snapshot: Snapshot) {
  const ofEntry = (entry: SnapshotEntry | undefined): string => {
    const course = (entry?.record as { course_id?: unknown } | undefined)?.course_id;
    const key = typeof course === "number" || typeof course === "string" ? String(course) : undefined;
    return key !== undefined && snapshot.courses[key] ? courseShard(key) : ORPHANS_FILE;
  };
  const ofChapter = (id: string): string => ofEntry(snapshot.chapters[id]);
  const ofCourse = (id: string): string => (snapshot.courses[id] ? courseShard(id) : ORPHANS_FILE);
  return { ofEntry, ofChapter, ofCourse };
}

/** The file of the folder (relative to it) that holds a record's entry. */
export function entryFile(snapshot: Snapshot, kind: "courses" | "chapters", id: string): string {
  return kind === "courses" ? courseShard(id) : homes(snapshot).ofChapter(id);
}

interface Shard {
  course?: SnapshotEntry;
  chapters: Record<string, SnapshotEntry>;
  ids?: IdMap;
}

/**
 * The files of a snapshot, relative to its folder, each with the value its text is made of
 * (`shardJson`), in order of name; `site.json` among them. Texts are made by whoever writes, one
 * at a time: the whole snapshot's text is never in memory at once. The same snapshot always
 * gives the same bytes.
 */
export function splitSnapshot(snapshot: Snapshot): Map<string, unknown> {
  const shards = new Map<string, Shard>();
  const shard = (file: string): Shard => {
    let found = shards.get(file);
    if (!found) {
      found = { chapters: {}, ...(snapshot.ids ? { ids: { courses: {}, chapters: {} } } : {}) };
      shards.set(file, found);
    }
    return found;
  };
  const home = homes(snapshot);
  for (const [id, entry] of Object.entries(snapshot.courses)) shard(courseShard(id)).course = entry;
  for (const [id, entry] of Object.entries(snapshot.chapters)) shard(home.ofChapter(id)).chapters[id] = entry;
  for (const [id, site] of Object.entries(snapshot.ids?.courses ?? {}))
    shard(home.ofCourse(id)).ids!.courses[id] = site;
  for (const [id, site] of Object.entries(snapshot.ids?.chapters ?? {}))
    shard(snapshot.chapters[id] ? home.ofChapter(id) : ORPHANS_FILE).ids!.chapters[id] = site;
  const files = new Map<string, unknown>();
  for (const file of [...shards.keys()].sort()) files.set(file, shards.get(file));
  const site = {
    version: FOLDER_VERSION,
    site: snapshot.site,
    ...(snapshot.body !== undefined ? { body: snapshot.body } : {}),
    // A site other than the default one keeps an id map (its slices are in the course files).
    ...(snapshot.ids ? { id_map: true } : {}),
    ...(snapshot.listed !== undefined ? { listed: snapshot.listed } : {}),
  };
  files.set(SITE_FILE, site);
  return files;
}

/** A line git writes into a file it could not merge. */
const CONFLICT_MARKER = /^(?:<{7}|>{7})(?: |$)|^={7}$/m;

/** Whether a file of the folder holds git's conflict markers. */
export function hasConflictMarkers(text: string): boolean {
  return CONFLICT_MARKER.test(text);
}

/** Why a folder does not join: the file (relative to the folder) and what is wrong with it. */
export class ShardProblem extends Error {
  constructor(
    readonly file: string,
    readonly why: string,
  ) {
    super(`${file} ${why}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Join the files of a folder (relative path → parsed JSON) into a snapshot. An entry found in
 * two files (a git merge that moved a chapter on one side and changed it on the other) is taken
 * from the file it belongs in, else from the first file by name: either is a base it was
 * synced at, and the next save writes it in one place again.
 */
export function joinSnapshot(files: Map<string, unknown>): Snapshot {
  const head = files.get(SITE_FILE);
  if (!isObject(head) || head.version !== FOLDER_VERSION || typeof head.site !== "string")
    throw new ShardProblem(
      SITE_FILE,
      `is not the site file of a coursesync snapshot of version ${FOLDER_VERSION}`,
    );
  if (head.body !== undefined && head.body !== "markdown" && head.body !== "html")
    throw new ShardProblem(SITE_FILE, `has an unknown body format ${JSON.stringify(head.body)}`);
  const snapshot: Snapshot = {
    version: 1,
    site: head.site,
    ...(head.body !== undefined ? { body: head.body as "markdown" | "html" } : {}),
    ...(typeof head.listed === "string" ? { listed: head.listed } : {}),
    courses: {},
    chapters: {},
    ...(head.id_map === true ? { ids: { courses: {}, chapters: {} } } : {}),
  };
  const names = [...files.keys()].filter((file) => file !== SITE_FILE).sort();
  const found = {
    courses: new Map<string, [string, SnapshotEntry][]>(),
    chapters: new Map<string, [string, SnapshotEntry][]>(),
  };
  const idsFound = {
    courses: new Map<string, [string, number][]>(),
    chapters: new Map<string, [string, number][]>(),
  };
  const add = <T>(map: Map<string, [string, T][]>, id: string, file: string, value: T) => {
    const list = map.get(id);
    if (list) list.push([file, value]);
    else map.set(id, [[file, value]]);
  };
  for (const file of names) {
    const shard = files.get(file);
    if (
      !isObject(shard) ||
      !isObject(shard.chapters) ||
      (shard.course !== undefined && !isObject(shard.course))
    )
      throw new ShardProblem(file, "is not a course file of a coursesync snapshot");
    const course = shard.course as SnapshotEntry | undefined;
    if (course && !Number.isSafeInteger(course.record?.id))
      throw new ShardProblem(file, "has a broken course entry (its record has no id)");
    if (course) add(found.courses, String(course.record.id), file, course);
    for (const [id, entry] of Object.entries(shard.chapters))
      add(found.chapters, id, file, entry as SnapshotEntry);
    if (shard.ids === undefined) continue;
    if (
      !snapshot.ids ||
      !isObject(shard.ids) ||
      !isObject(shard.ids.courses) ||
      !isObject(shard.ids.chapters)
    )
      throw new ShardProblem(file, "has a broken id map (ids)");
    for (const kind of ["courses", "chapters"] as const)
      for (const [id, site] of Object.entries(shard.ids[kind] as object))
        add(idsFound[kind], id, file, site as number);
  }
  const pick = <T>(list: [string, T][], home: (value: T) => string): T =>
    (list.find(([file, value]) => file === home(value)) ?? list[0]!)[1];
  for (const [id, list] of found.courses) snapshot.courses[id] = pick(list, () => courseShard(id));
  const home = homes(snapshot);
  for (const [id, list] of found.chapters) snapshot.chapters[id] = pick(list, home.ofEntry);
  if (snapshot.ids) {
    for (const [id, list] of idsFound.courses) snapshot.ids.courses[id] = pick(list, () => home.ofCourse(id));
    for (const [id, list] of idsFound.chapters)
      snapshot.ids.chapters[id] = pick(list, () =>
        snapshot.chapters[id] ? home.ofChapter(id) : ORPHANS_FILE,
      );
  }
  return snapshot;
}
