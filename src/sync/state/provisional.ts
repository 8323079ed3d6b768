import type { ChapterFile } from "../../tree/chapter-file.js";
import { recordFilePath } from "../../tree/layout.js";
import type { ScanResult } from "../../tree/scan.js";
import {
  bodyKey,
  courseValuesOfFile,
  courseValuesOfRecord,
  fieldsEqual,
  valuesEqual,
} from "../model/entities.js";
import type { PushPlan } from "../push/plan.js";
import type { Snapshot, SnapshotEntry } from "./snapshot-model.js";

// A record a non-default site holds that the default site has not given an id yet (a file first
// pushed to that site, or a record made there and pulled) is provisional: the site's snapshot
// keeps it under the negative of the site's id, at the path of its file, which carries no id.
// Once the default site gives the file its id, the record is re-keyed to it here: the same
// record on the site, never a create of the new id beside it nor a delete of the old one.

/** One provisional record taken to be a tree record now. */
export interface Rekeyed {
  kind: "course" | "chapter";
  /** The provisional key (the negative of the site's id). */
  from: number;
  /** The tree id it is known by now; for a relocated id-less file, `from` again. */
  to: number;
  /** Where its file is now. */
  path: string;
  /** How it was found: the file at its path has the id, the default site's snapshot put that id at its path, or equal content. */
  how: "id" | "path" | "content";
}

type Kind = "course" | "chapter";
const TABLE = { course: "courses", chapter: "chapters" } as const;

interface TreeFile {
  /** The course folder or the chapter file. */
  path: string;
  id: number | undefined;
  /** Whether the record's fields equal a provisional entry's. */
  equals(entry: SnapshotEntry): boolean;
}

/**
 * The snapshot of a non-default site with its provisional records re-keyed to the tree ids
 * their files have since received (pure; the scan says what the files hold). A provisional
 * record whose file is gone is matched, in this order, to the file the default site's
 * snapshot says got its id at that path, then to the one file the site does not know whose
 * fields and body equal the record's (a rename or a move). One that matches nothing stays as
 * it is.
 */
export function rekeyProvisional(
  snapshot: Snapshot,
  scan: ScanResult,
  defaultSnapshot: Snapshot | undefined,
): { snapshot: Snapshot; rekeyed: Rekeyed[] } {
  const ids = snapshot.ids;
  const pending = (kind: Kind) => Object.keys(snapshot[TABLE[kind]]).some((id) => Number(id) < 0);
  if (!ids || !(pending("course") || pending("chapter"))) return { snapshot, rekeyed: [] };
  const next: Snapshot = {
    ...snapshot,
    courses: { ...snapshot.courses },
    chapters: { ...snapshot.chapters },
    ids: { courses: { ...ids.courses }, chapters: { ...ids.chapters } },
  };
  const map = next.ids!;
  const rekeyed: Rekeyed[] = [];

  const courseFiles: TreeFile[] = scan.courses.flatMap((course) => {
    const parsed = course.parsed;
    if (!course.file || !parsed) return [];
    const values = courseValuesOfFile(parsed);
    return [
      {
        path: course.folder,
        id: parsed.id,
        equals: (entry) => valuesEqual(values, courseValuesOfRecord(entry.record)),
      },
    ];
  });
  rekeyKind("course", courseFiles, scan, next, defaultSnapshot, rekeyed, (from, to) => {
    map.courses[to] = -from;
    for (const [id, entry] of Object.entries(next.chapters))
      if (Number(entry.record.course_id) === from)
        next.chapters[id] = { ...entry, record: { ...entry.record, course_id: to } };
  });

  // A chapter's course is its folder's: the tree id of the course file there, or the
  // provisional record at that folder.
  const courseOfFolder = new Map<string, number>();
  for (const [id, entry] of Object.entries(next.courses)) courseOfFolder.set(entry.path, Number(id));
  for (const course of scan.courses)
    if (course.parsed?.id !== undefined) courseOfFolder.set(course.folder, course.parsed.id);
  const chapterFiles: TreeFile[] = scan.chapters.flatMap((chapter) => {
    const parsed = chapter.parsed;
    if (!parsed) return [];
    return [
      {
        path: chapter.file,
        id: parsed.id,
        equals: (entry) => sameChapter(parsed, courseOfFolder.get(chapter.folder), entry),
      },
    ];
  });
  rekeyKind("chapter", chapterFiles, scan, next, defaultSnapshot, rekeyed, (from, to) => {
    map.chapters[to] = -from;
  });
  return { snapshot: next, rekeyed };
}

function sameChapter(parsed: ChapterFile, course: number | undefined, entry: SnapshotEntry): boolean {
  const record = entry.record;
  return (
    parsed.content === undefined &&
    entry.body === bodyKey(parsed.format, parsed.body) &&
    fieldsEqual("title", parsed.title, record.title ?? null) &&
    fieldsEqual("ordinal", parsed.ordinal, record.ordinal ?? null) &&
    course !== undefined &&
    Number(record.course_id) === course
  );
}

function rekeyKind(
  kind: Kind,
  files: readonly TreeFile[],
  scan: ScanResult,
  next: Snapshot,
  defaultSnapshot: Snapshot | undefined,
  rekeyed: Rekeyed[],
  mapped: (from: number, to: number) => void,
): void {
  const table = next[TABLE[kind]];
  const map = next.ids![TABLE[kind]];
  const onDisk = new Set(
    kind === "course"
      ? scan.courses.filter((c) => c.file).map((c) => c.folder)
      : scan.chapters.map((c) => c.file),
  );
  const known = new Set(Object.values(table).map((entry) => entry.path));
  // Files the site does not hold yet: a tree id it has no mapping for, or no id at a path no
  // record of it has (a new file, or a provisional one moved).
  const unclaimed = (file: TreeFile) =>
    file.id === undefined ? !known.has(file.path) : file.id > 0 && !(String(file.id) in map);
  const taken = new Set<string>();
  const provisional = Object.keys(table)
    .map(Number)
    .filter((id) => id < 0)
    .sort((a, b) => b - a);
  for (const from of provisional) {
    const entry = table[from]!;
    const here = files.find((file) => file.path === entry.path);
    let match: { file?: TreeFile; to: number; how: Rekeyed["how"] } | undefined;
    if (here && here.id === undefined) continue; // still the id-less file it was
    if (!here && onDisk.has(entry.path)) continue; // unchanged since the last sync: not parsed
    if (here && here.id !== undefined && unclaimed(here) && !taken.has(here.path))
      match = { file: here, to: here.id, how: "id" };
    if (!match && defaultSnapshot) {
      const atPath = Object.entries(defaultSnapshot[TABLE[kind]]).find(([, e]) => e.path === entry.path);
      const file = atPath && files.find((f) => f.id === Number(atPath[0]));
      if (file && unclaimed(file) && !taken.has(file.path)) match = { file, to: file.id!, how: "path" };
    }
    if (!match) {
      const equal = files.filter((file) => unclaimed(file) && !taken.has(file.path) && file.equals(entry));
      if (equal.length === 1) match = { file: equal[0], to: equal[0]!.id ?? from, how: "content" };
    }
    if (!match?.file) continue;
    taken.add(match.file.path);
    if (match.to === from) {
      // An id-less file moved: the same provisional record, at its new path.
      table[from] = { ...entry, path: match.file.path };
      rekeyed.push({ kind, from, to: from, path: match.file.path, how: match.how });
      continue;
    }
    delete table[from];
    // A journal of this run's own writes may hold the record under its tree id already: newer.
    table[match.to] ??= { ...entry, record: { ...entry.record, id: match.to } };
    mapped(from, match.to);
    rekeyed.push({ kind, from, to: match.to, path: match.file.path, how: match.how });
  }
}

/**
 * The safe rule for a provisional record whose file is gone and matched nothing: its delete is
 * held (kept on the site, reported) while the same push creates anything there, as one of those
 * new files may be it, renamed and edited after the default site gave it its id. Only a push
 * with nothing new for the site makes the file's removal certain; that push deletes it, shown
 * in its plan and under the delete guard like any delete.
 */
export function holdUnmatchedProvisional(plan: PushPlan): void {
  const creates = plan.ops.filter((op) => op.type === "create");
  const held = plan.ops.filter((op) => op.type === "delete" && op.id < 0);
  if (creates.length === 0 || held.length === 0) return;
  plan.ops = plan.ops.filter((op) => !held.includes(op));
  const news = creates.map((op) => recordFilePath(op.kind, op.path));
  plan.kept = held.map((op) => ({
    kind: op.kind,
    path: op.path,
    reason: `its file is gone and it matches no file here; it may be one of the files this push creates (${news.join(", ")}), renamed and edited, so it is not deleted now: a later push with nothing new for the site deletes it`,
  }));
}
