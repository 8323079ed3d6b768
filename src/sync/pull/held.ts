import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { COURSE_FILE, COURSES_DIR, conflictCopyPath, courseFilePath } from "../../tree/layout.js";
import { courseFolderBase } from "../../tree/naming.js";
import type { ScanResult } from "../../tree/scan.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import type { LocalView } from "../local/view.js";
import {
  chapterFileText,
  courseFileText,
  courseValuesOfRecord,
  fieldsEqual,
  sameAsSnapshot,
  valuesOfRecord,
} from "../model/entities.js";
import type { Change } from "../model/report.js";
import type { ContentReader } from "../model/spilled.js";
import { type Fields, jsonEqual, type Kind } from "../reconcile.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot-model.js";
import type { FileOp, Held } from "./plan-model.js";
import { recordValuesRead } from "./spill.js";

export type { Held } from "./plan-model.js";

/** What the tree and the site hold, and what is wrong with the tree. */
export interface HoldInput {
  scan: ScanResult;
  local: LocalView;
  /** Every problem of the tree's files (the scan's and the local view's). */
  problems: readonly FileProblem[];
  snapshot: Snapshot | undefined;
  remoteCourses: readonly WireRecord[];
  remoteChapters: readonly WireRecord[];
  bodies: BodyCodec;
  /** Reads a spilled site text, for the copy of a held chapter (see pull/spill.ts). */
  reader?: ContentReader | undefined;
}

/** How pull goes around invalid files. */
export interface HoldPlan {
  held: Held;
  /**
   * The local view with a stand-in for every file and course folder it left out because of a
   * problem: their names stay theirs, so no write of this pull lands on them.
   */
  local: LocalView;
  /** The site's versions of held records it changed, written beside their files. */
  ops: FileOp[];
  /** One `skipped` change per held record the site changed or deleted. */
  changes: Change[];
}

type Where = { kind: "folder" | "course-file" | "chapter"; folder: string } | undefined;

/** What a tree path is: a course folder, its course.yaml, a chapter file, or none of them. */
function where(file: string): Where {
  const parts = file.split("/");
  if (parts[0] !== COURSES_DIR || parts.length < 2 || parts.length > 3) return undefined;
  const folder = `${parts[0]}/${parts[1]}`;
  if (parts.length === 2) return parts[1]!.endsWith(".md") ? undefined : { kind: "folder", folder };
  if (parts[2] === COURSE_FILE) return { kind: "course-file", folder };
  return parts[2]!.endsWith(".md") ? { kind: "chapter", folder } : undefined;
}

/**
 * Decide which records an invalid file holds back (DESIGN 4: an invalid file is never read as
 * deleted, nor as new), and what pull does for them instead. Pure.
 *
 * - A chapter file that is invalid holds the chapter it is (by the last sync's path, or by
 *   the id it carries).
 * - An invalid course.yaml (or a course folder without one) holds its whole folder: the course,
 *   every chapter in it, and every chapter the site has in that course, so nothing moves into
 *   or out of a folder whose course is not known for sure.
 * - The course of a folder holding a held chapter is held too when the site renamed or deleted
 *   it: its folder does not move or go while an invalid file is in it.
 *
 * A held record's snapshot entry stays as it was (the next pull after the fix reconciles three
 * ways); when the site changed it, its version is written beside the file as a conflict copy.
 */
export function holdInvalid(input: HoldInput): HoldPlan {
  const at = lookups(input);
  const { why, frozen } = heldByFiles(at);
  // The file each held chapter has here: the invalid one when there are two.
  const chapterHere = new Map<number, string>();
  for (const chapter of input.scan.chapters) {
    for (const id of at.chaptersOfFile(chapter.file)) {
      if (!chapterHere.has(id) || at.invalidFiles.has(chapter.file)) chapterHere.set(id, chapter.file);
    }
  }
  holdPinnedCourses(at, why, chapterHere);
  const { ops, changes } = reportHeld(at, why, frozen, chapterHere);
  return {
    held: { courses: new Set(why.course.keys()), chapters: new Set(why.chapter.keys()) },
    local: withStandIns(input.local, input.scan, at.invalid),
    ops,
    changes,
  };
}

/** The last sync and the site by id, and which records a file or folder of the tree is. */
function lookups(input: HoldInput) {
  const { scan, local, snapshot } = input;
  const base = { courses: snapshot?.courses ?? {}, chapters: snapshot?.chapters ?? {} };
  const remote = {
    course: new Map(input.remoteCourses.map((r) => [r.id, r])),
    chapter: new Map(input.remoteChapters.map((r) => [r.id, r])),
  };
  const invalidFiles = new Set(input.problems.map((p) => p.file));
  const courseAt = new Map(Object.entries(base.courses).map(([id, e]) => [e.path, Number(id)]));
  const chapterAt = new Map(Object.entries(base.chapters).map(([id, e]) => [e.path, Number(id)]));
  const scanned = new Map(scan.chapters.map((c) => [c.file, c]));
  const defined = (ids: Array<number | undefined>) => ids.filter((id): id is number => id !== undefined);
  return {
    input,
    base,
    remote,
    invalidFiles,
    invalid: [...invalidFiles].sort(),
    chaptersOfFile: (file: string) => defined([chapterAt.get(file), scanned.get(file)?.parsed?.id]),
    coursesOfFolder: (folder: string) =>
      defined([
        courseAt.get(folder),
        scan.courses.find((c) => c.folder === folder)?.parsed?.id,
        local.courses.get(local.courseByFolder.get(folder) ?? "")?.id,
      ]),
  };
}

type Lookups = ReturnType<typeof lookups>;

/** Why each record is held, in words that name the invalid file. */
type Why = Record<Kind, Map<number, string>>;

/** Courses held whole: why, and the folder they have here. */
type Frozen = Map<number, { reason: string; folder: string }>;

function holdIn(why: Why, kind: Kind, id: number, reason: string): void {
  if (!why[kind].has(id)) why[kind].set(id, reason);
}

/** The records the invalid files hold, and the courses they hold whole. */
function heldByFiles(at: Lookups): { why: Why; frozen: Frozen } {
  const { base, input } = at;
  const why: Why = { course: new Map(), chapter: new Map() };
  const frozen: Frozen = new Map();
  for (const file of at.invalid) {
    const place = where(file);
    if (place?.kind === "chapter")
      for (const id of at.chaptersOfFile(file)) holdIn(why, "chapter", id, "its file is invalid");
    if (place?.kind !== "folder" && place?.kind !== "course-file") continue;
    const reason = `${file} is invalid`;
    for (const id of at.coursesOfFolder(place.folder)) {
      holdIn(why, "course", id, place.kind === "course-file" ? "its file is invalid" : reason);
      frozen.set(id, { reason, folder: place.folder });
    }
    for (const chapter of input.scan.chapters) {
      if (chapter.folder === place.folder)
        for (const id of at.chaptersOfFile(chapter.file)) holdIn(why, "chapter", id, reason);
    }
    for (const [id, entry] of Object.entries(base.chapters)) {
      if (entry.path.startsWith(`${place.folder}/`)) holdIn(why, "chapter", Number(id), reason);
    }
  }
  // Chapters the last sync or the site has in a course held whole wait with it.
  const courseOf = (record: WireRecord | undefined) => frozen.get(Number(record?.course_id))?.reason;
  for (const [id, entry] of Object.entries(base.chapters)) {
    const reason = courseOf(entry.record);
    if (reason) holdIn(why, "chapter", Number(id), reason);
  }
  for (const [id, record] of at.remote.chapter) {
    const reason = courseOf(record);
    if (reason) holdIn(why, "chapter", id, reason);
  }
  return { why, frozen };
}

/**
 * A folder holding a held or invalid chapter file stays where it is while the file is so: its
 * course is held when the site renamed or deleted it.
 */
function holdPinnedCourses(at: Lookups, why: Why, chapterHere: ReadonlyMap<number, string>): void {
  const pinned = new Map<string, string>();
  const pin = (file: string, state: string) => {
    const folder = file.slice(0, file.lastIndexOf("/"));
    if (!pinned.has(folder)) pinned.set(folder, `its folder holds ${file}, which ${state}`);
  };
  for (const file of at.invalid) if (where(file)?.kind === "chapter") pin(file, "is invalid");
  for (const id of why.chapter.keys()) {
    const file = chapterHere.get(id);
    if (file) pin(file, "waits too");
  }
  for (const [folder, reason] of pinned) {
    for (const id of at.coursesOfFolder(folder)) {
      const entry = at.base.courses[id];
      const site = at.remote.course.get(id);
      // Deleted on the site, or named otherwise now: its folder would move or go.
      const moves =
        entry !== undefined &&
        (!site ||
          ((!jsonEqual(site.title ?? null, entry.record.title ?? null) ||
            !jsonEqual(site.slug ?? null, entry.record.slug ?? null)) &&
            courseFolderBase({ id, title: site.title, slug: site.slug }) !== folder.split("/")[1]));
      if (moves) holdIn(why, "course", id, reason);
    }
  }
}

/** One `skipped` change per held record the site changed or deleted; its version as a copy. */
function reportHeld(
  at: Lookups,
  why: Why,
  frozen: Frozen,
  chapterHere: ReadonlyMap<number, string>,
): { ops: FileOp[]; changes: Change[] } {
  const { base, remote, input } = at;
  const scannedFolders = new Set(input.scan.courses.map((c) => c.folder));
  const courseHere = (id: number): string | undefined => {
    const mine = input.local.courses.get(`course:${id}`);
    if (mine) return mine.file;
    const folder = base.courses[id]?.path;
    return folder !== undefined && scannedFolders.has(folder) ? courseFilePath(folder) : undefined;
  };
  const out = { ops: [] as FileOp[], changes: [] as Change[] };
  const report = (kind: Kind, id: number, reason: string, file: string | undefined, text: () => string) => {
    const entry: SnapshotEntry | undefined = base[kind === "course" ? "courses" : "chapters"][id];
    const site = remote[kind].get(id);
    // A chapter with no file here is shown at the folder of the course it waits for.
    const waitsIn = frozen.get(Number(site?.course_id))?.folder;
    const shown =
      file === undefined
        ? (entry?.path ?? waitsIn ?? "")
        : kind === "course"
          ? file.slice(0, file.lastIndexOf("/"))
          : file;
    reportOne(out, { kind, id, reason, file, shown, entry, site }, text);
  };
  for (const [id, reason] of [...why.course].sort(([a], [b]) => a - b)) {
    const site = remote.course.get(id);
    report("course", id, reason, courseHere(id), () => courseFileText(id, courseValuesOfRecord(site!)));
  }
  for (const [id, reason] of [...why.chapter].sort(([a], [b]) => a - b)) {
    const site = remote.chapter.get(id);
    report("chapter", id, reason, chapterHere.get(id), () =>
      chapterFileText(id, recordValuesRead(site!, input.reader), input.bodies),
    );
  }
  return out;
}

/** What is said (and copied beside its file) of one held record. */
function reportOne(
  out: { ops: FileOp[]; changes: Change[] },
  held: {
    kind: Kind;
    id: number;
    reason: string;
    file: string | undefined;
    shown: string;
    entry: SnapshotEntry | undefined;
    site: WireRecord | undefined;
  },
  text: () => string,
): void {
  const { kind, id, reason, file, shown, entry, site } = held;
  if (!site) {
    if (entry && file)
      out.changes.push({
        kind,
        id,
        path: shown,
        outcome: "skipped",
        reason: `deleted on the site; kept here, as ${reason}`,
      });
    return;
  }
  if (entry && sameAsSnapshot(site, entry.record)) return;
  const fields = entry ? changedFields(kind, entry.record, site) : undefined;
  if (file === undefined) {
    out.changes.push({
      kind,
      id,
      path: shown,
      outcome: "skipped",
      reason: `not pulled, as ${reason}`,
      ...(fields ? { fields } : {}),
    });
    return;
  }
  const copy = conflictCopyPath(file);
  out.ops.push({ op: "copy", path: copy, text: text() });
  out.changes.push({
    kind,
    id,
    path: shown,
    outcome: "skipped",
    reason: `changed on the site; not pulled, as ${reason}`,
    ...(fields ? { fields } : {}),
    copy,
  });
}

/** The editable fields whose values differ between the last sync's record and the site's. */
function changedFields(kind: Kind, before: WireRecord, after: WireRecord): string[] {
  const a: Fields = valuesOfRecord(kind, before);
  const b: Fields = valuesOfRecord(kind, after);
  return Object.keys(b).filter((field) => !fieldsEqual(field, a[field], b[field]));
}

/**
 * The local view plus a stand-in (a record without id, never planned) for every chapter file
 * and course folder of the tree the view left out, and for every invalid path where a record's
 * file or folder could be: the layout keeps their names, so nothing is written over them.
 */
function withStandIns(local: LocalView, scan: ScanResult, invalid: readonly string[]): LocalView {
  const view: LocalView = {
    ...local,
    courses: new Map(local.courses),
    chapters: new Map(local.chapters),
    courseByFolder: new Map(local.courseByFolder),
  };
  const files = new Set([...local.chapters.values()].map((c) => c.file));
  const folder = (name: string): string => {
    const known = view.courseByFolder.get(name);
    if (known !== undefined) return known;
    const key = `course:held:${name}`;
    view.courses.set(key, {
      id: undefined,
      key,
      folder: name,
      file: courseFilePath(name),
      hash: "",
      values: courseValuesOfRecord({ id: 0 }),
      unchanged: true,
    });
    view.courseByFolder.set(name, key);
    return key;
  };
  const chapter = (file: string, inFolder: string) => {
    if (files.has(file)) return;
    files.add(file);
    const key = `chapter:held:${file}`;
    view.chapters.set(key, {
      id: undefined,
      key,
      file,
      folder: inFolder,
      courseKey: folder(inFolder),
      hash: "",
      values: { title: null, ordinal: null, course_id: undefined, content: { literal: null } },
      unchanged: true,
    });
  };
  for (const scanned of scan.chapters) chapter(scanned.file, scanned.folder);
  for (const file of invalid) {
    const at = where(file);
    if (at?.kind === "chapter") chapter(file, at.folder);
    else if (at) folder(at.folder);
  }
  return view;
}
