import type { Listing } from "../../api/client.js";
import type { WireRecord } from "../../api/wire.js";
import { openLocalIn } from "../local/open.js";
import { folderSet } from "../local/pending.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { RecordReader } from "./complete.js";
import { loadListedSnapshot, type StartedListing } from "./listing.js";
import { type NarrowSide, narrowTo, type OpenOptions, withCoursesAsSynced } from "./narrow.js";
import type { Held } from "./plan-model.js";

// A pull of named records only (watch, told by the site's events which records changed): each
// is read on its own (GET /courses/:id, GET /chapters/:id) instead of paging the lists, and
// every other record is left as the last sync has it (held, as an invalid file's records are).
// A record read as gone (404) is deleted here only after the confirm step reads it again.

/** The records a pull is limited to, by id; what reading them adds is added here. */
export interface NamedRecords {
  courses: Set<number>;
  chapters: Set<number>;
}

/** Named records, as given (copied, so that what reading adds stays in this pull). */
export function namedRecords(courses: Iterable<number>, chapters: Iterable<number>): NamedRecords {
  return { courses: new Set(courses), chapters: new Set(chapters) };
}

/** One list made of records read one by one. */
function listingOf(records: (WireRecord | undefined)[], requests: number): Listing {
  return { records: records.filter((r): r is WireRecord => r !== undefined), pages: 0, requests };
}

/**
 * Read the named records one by one, and what they reach: the course of a chapter that is new
 * here (its folder is made with it), and every chapter the last sync filed in a course that is
 * gone (so that none is left without its course). Names what it adds in `named`.
 */
export async function readNamed(
  snapshot: Snapshot | undefined,
  named: NamedRecords,
  client: RecordReader,
): Promise<[Listing, Listing]> {
  const read = (resource: "courses" | "chapters", ids: Iterable<number>) =>
    Promise.all([...ids].map((id) => client.get(resource, id)));
  const chapters = await read("chapters", named.chapters);
  for (const chapter of chapters) {
    const course = Number(chapter?.course_id);
    if (chapter && !snapshot?.courses[course]) named.courses.add(course);
  }
  const courses = await read("courses", named.courses);
  let requests = named.chapters.size + named.courses.size;
  const gone = new Set([...named.courses].filter((_, i) => courses[i] === undefined).map(String));
  const orphans = Object.entries(snapshot?.chapters ?? {})
    .filter(([id, entry]) => gone.has(String(entry.record.course_id)) && !named.chapters.has(Number(id)))
    .map(([id]) => Number(id));
  if (orphans.length > 0) {
    for (const id of orphans) named.chapters.add(id);
    chapters.push(...(await read("chapters", orphans)));
    requests += orphans.length;
  }
  return [listingOf(courses, 0), listingOf(chapters, requests)];
}

/**
 * The lists of a pull of named records: the last sync read (and checked to be this site's)
 * as for the lists, then the records read one by one through the client's one gate.
 */
export async function startNamedListing(
  options: { root: string; site: string; siteUrl: string },
  client: RecordReader,
  named: NamedRecords,
): Promise<StartedListing> {
  const loaded = await loadListedSnapshot(options);
  const listed = readNamed(loaded, named, client);
  listed.catch(() => {});
  return {
    loaded,
    listed,
    attach(handlers) {
      void listed.then(
        ([courses, chapters]) => {
          handlers.courses?.(courses.records);
          handlers.chapters?.(chapters.records);
        },
        () => {},
      );
    },
  };
}

/** Hold every record of the last sync the pull is not limited to, beside those `held` holds. */
export function holdUnnamed(held: Held, base: Snapshot | undefined, named: NamedRecords): Held {
  const courses = new Set(held.courses);
  const chapters = new Set(held.chapters);
  for (const id of Object.keys(base?.courses ?? {}).map(Number)) if (!named.courses.has(id)) courses.add(id);
  for (const id of Object.keys(base?.chapters ?? {}).map(Number))
    if (!named.chapters.has(id)) chapters.add(id);
  return { courses, chapters };
}

/**
 * The local side of a pull of named records: only the course folders they are filed in (and
 * the folders of their courses), every other course as the last sync has it. Undefined when
 * that cannot be told (an entry outside a course folder, a file there holding a record filed
 * elsewhere, an invalid file): the whole tree is read then.
 */
export async function openNamed(
  root: string,
  snapshot: Snapshot,
  listing: Promise<[Listing, Listing]>,
  named: NamedRecords,
  open: OpenOptions,
): Promise<NarrowSide | undefined> {
  const [, chapters] = await listing;
  // A course new here takes a folder name: the whole tree is read to see every name taken.
  if ([...named.courses].some((id) => !snapshot.courses[id])) return undefined;
  const { add, folders: found } = folderSet();
  for (const id of named.courses) add(snapshot.courses[id]?.path);
  for (const id of named.chapters) add(snapshot.chapters[id]?.path);
  for (const record of chapters.records) add(snapshot.courses[Number(record.course_id)]?.path);
  const folders = found();
  const side = folders && (await openLocalIn(root, snapshot, folders, open));
  if (!folders || !side || side.problems.length > 0) return undefined;
  const { base, remoteChapters } = narrowTo(snapshot, folders, chapters.records);
  withCoursesAsSynced(side.local, snapshot, folders);
  return { side, folders, base, remoteChapters };
}
