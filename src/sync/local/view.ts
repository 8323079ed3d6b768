import type { BodyCodec } from "../../tree/bodies.js";
import type { ChapterFile } from "../../tree/chapter-file.js";
import { courseFilePath } from "../../tree/layout.js";
import type { ScanResult } from "../../tree/scan.js";
import { type FieldProblem, FileProblem } from "../../tree/yaml-text.js";
import type { LocalBody } from "../content-merge.js";
import {
  bodyKey,
  type ChapterValues,
  type Content,
  type CourseValues,
  chapterValuesOfRecord,
  courseValuesOfFile,
  courseValuesOfRecord,
  fieldsEqual,
} from "../model/entities.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot-model.js";
import { baseHtmlOf } from "./bases.js";

/** A course as the tree has it. */
export interface LocalCourse {
  id: number | undefined;
  /** `course:<id>`, or `course:new:<folder>` before it is created. */
  key: string;
  folder: string;
  file: string;
  /** The SHA-256 of the file's bytes as scanned. */
  hash: string;
  values: CourseValues;
  /** The file's bytes are those the last sync wrote (so values are the snapshot's). */
  unchanged: boolean;
}

/** A chapter as the tree has it. */
export interface LocalChapter {
  id: number | undefined;
  key: string;
  file: string;
  folder: string;
  /** The key of the course whose folder holds the file. */
  courseKey: string;
  /** The SHA-256 of the file's bytes as scanned. */
  hash: string;
  values: ChapterValues;
  unchanged: boolean;
  /** The content is HTML rendered from a Markdown body: equivalent to the site's, not equal. */
  rendered?: boolean;
  /** The body as the file holds it, when the file was read: what a body merge works on. */
  body?: LocalBody | undefined;
}

/**
 * A chapter's local values to reconcile with the site's record. Rendered Markdown stands for
 * the record's content when the two are equivalent under the gate (as a body equivalent to
 * the last synced one stands for that): a file already holding the site's new text, as a
 * pull killed before its snapshot leaves it, is then no edit that conflicts.
 */
export function chapterValuesAgainst(
  mine: LocalChapter,
  remoteContent: unknown,
  bodies: BodyCodec,
): ChapterValues {
  const content = mine.values.content;
  if (
    mine.rendered &&
    typeof content === "string" &&
    typeof remoteContent === "string" &&
    content !== remoteContent &&
    bodies.equivalent?.(content, remoteContent)
  ) {
    return { ...mine.values, content: remoteContent };
  }
  return mine.values;
}

/** The local side of reconciliation. */
export interface LocalView {
  courses: Map<string, LocalCourse>;
  chapters: Map<string, LocalChapter>;
  /** Course key by folder, for chapters and for paths given on the command line. */
  courseByFolder: Map<string, string>;
  problems: FileProblem[];
  /** Whether a tree path is ignored: a synced file that is, is left alone, not taken as deleted. */
  isIgnored?: ((relPath: string) => boolean) | undefined;
}

/** A file carrying the id another file carries too: named with that other file. */
export class DuplicateId extends FileProblem {
  constructor(
    file: string,
    line: number | undefined,
    readonly other: string,
  ) {
    super(
      file,
      line,
      `has the same id as ${other}`,
      "Each record must have one file. Remove the id line from the copy to make it a new record.",
      { rule: "duplicate-id" },
    );
  }
}

/** Paths the snapshot wrote, with their hashes: files whose bytes still match are not parsed. */
export function knownHashes(snapshot: Snapshot | undefined): Map<string, string> {
  const known = new Map<string, string>();
  if (!snapshot) return known;
  for (const entry of Object.values(snapshot.courses)) known.set(courseFilePath(entry.path), entry.hash);
  for (const entry of Object.values(snapshot.chapters)) known.set(entry.path, entry.hash);
  return known;
}

/** What building a view keeps while it goes through a scan's files. */
interface Building {
  view: LocalView;
  snapshot: Snapshot | undefined;
  bodies: BodyCodec;
  baseTexts: ReadonlyMap<string, string>;
  courseAtPath: Map<string, number>;
  chapterAtPath: Map<string, number>;
  /** The first file seen with each key, for duplicate ids. */
  firstFile: Map<string, string>;
  /** Ids the files carry, per kind. */
  carried: { course: Set<number>; chapter: Set<number> };
}

/** Build the local side from a scan: values per entity, duplicate ids reported. */
export function buildLocalView(
  scan: ScanResult,
  snapshot: Snapshot | undefined,
  bodies: BodyCodec,
  baseTexts: ReadonlyMap<string, string> = new Map(),
): LocalView {
  const view: LocalView = {
    courses: new Map(),
    chapters: new Map(),
    courseByFolder: new Map(),
    problems: [],
    isIgnored: scan.isIgnored,
  };
  const courseAtPath = new Map<string, number>();
  const chapterAtPath = new Map<string, number>();
  for (const [id, entry] of Object.entries(snapshot?.courses ?? {}))
    courseAtPath.set(courseFilePath(entry.path), Number(id));
  for (const [id, entry] of Object.entries(snapshot?.chapters ?? {}))
    chapterAtPath.set(entry.path, Number(id));
  // Ids the files carry: a file without one at a path the last sync wrote for a record no file
  // carries is that record with its id line removed, never a delete plus a create.
  const carried = {
    course: new Set(scan.courses.map((c) => c.parsed?.id).filter((id) => id !== undefined)),
    chapter: new Set(scan.chapters.map((c) => c.parsed?.id).filter((id) => id !== undefined)),
  };
  const building: Building = {
    view,
    snapshot,
    bodies,
    baseTexts,
    courseAtPath,
    chapterAtPath,
    firstFile: new Map(),
    carried,
  };
  for (const course of scan.courses) addCourse(building, course);
  for (const chapter of scan.chapters) addChapter(building, chapter);
  return view;
}

/**
 * A chapter's content as the file says it: the snapshot's own when the body is the one last
 * written, or its HTML when that is equivalent to the snapshot's (a Markdown body never
 * renders the site's bytes exactly); else the HTML the body stands for.
 */
function localContent(
  b: Building,
  parsed: ChapterFile,
  file: string,
  entry: SnapshotEntry | undefined,
): Content {
  if (parsed.content) return { literal: parsed.content.literal };
  const baseHash = typeof entry?.record.content_sha256 === "string" ? entry.record.content_sha256 : undefined;
  if (baseHash && entry?.body === bodyKey(parsed.format, parsed.body)) return { sha256: baseHash };
  const html = b.bodies.toHtml(parsed.body, parsed.format, file);
  const base = baseHtmlOf(b.baseTexts, baseHash);
  if (baseHash && base !== undefined && parsed.format === "markdown" && b.bodies.equivalent?.(html, base)) {
    return { sha256: baseHash };
  }
  return html;
}

/** Whether a key was seen in an earlier file (then reported as a duplicate id). */
function duplicate(b: Building, key: string, file: string, line: number | undefined): boolean {
  const other = b.firstFile.get(key);
  if (other === undefined) {
    b.firstFile.set(key, file);
    return false;
  }
  b.view.problems.push(new DuplicateId(file, line ?? (file.endsWith(".md") ? 2 : 1), other));
  return true;
}

/** Whether an id-less file is a record whose id line was removed (then reported). */
function removedId(
  b: Building,
  kind: "course" | "chapter",
  file: string,
  known: number | undefined,
): boolean {
  // A negative id is a provisional record of a non-default site: its file has no id by design.
  if (known === undefined || known < 0 || b.carried[kind].has(known)) return false;
  b.view.problems.push(
    new FileProblem(
      file,
      kind === "chapter" ? 2 : 1,
      `has no id, but the last sync wrote ${kind} ${known} here: its id line was removed`,
      `Put back "id: ${known}"${kind === "chapter" ? " under the first ---" : " as the first line"}. To make a new ${kind} of it instead, ${kind === "chapter" ? "give the file another name" : "give the folder another name"}.`,
      { rule: "removed-id" },
    ),
  );
  return true;
}

/** Add one scanned course file to the view. */
function addCourse(b: Building, course: ScanResult["courses"][number]): void {
  const { view, snapshot } = b;
  if (!course.file) return;
  let id: number | undefined;
  let values: CourseValues;
  let unchanged = false;
  const atPath = b.courseAtPath.get(course.file);
  const lostId =
    course.parsed?.id === undefined && course.parsed && removedId(b, "course", course.file, atPath);
  if (lostId && atPath !== undefined) {
    // Every problem of the file at once: its values too, against the record it is.
    const record = snapshot?.courses[atPath]?.record;
    view.problems.push(...notTheSites(course.deferred, record && courseValuesOfRecord(record)));
  }
  if (course.parsed && !lostId) {
    id = course.parsed.id ?? provisional(atPath);
    values = courseValuesOfFile(course.parsed);
    const entry = id === undefined ? undefined : snapshot?.courses[id];
    // Kept in the view even when invalid, so its chapters are still read (and checked).
    view.problems.push(...notTheSites(course.deferred, entry && courseValuesOfRecord(entry.record)));
  } else {
    id = b.courseAtPath.get(course.file);
    const entry = id === undefined ? undefined : snapshot?.courses[id];
    if (!entry) return; // a file that did not parse: already a problem
    values = courseValuesOfRecord(entry.record);
    unchanged = true;
  }
  const key = id === undefined ? `course:new:${course.folder}` : `course:${id}`;
  if (duplicate(b, key, course.file, course.lines?.id)) return;
  view.courses.set(key, {
    id,
    key,
    folder: course.folder,
    file: course.file,
    hash: course.hash ?? "",
    values,
    unchanged,
  });
  view.courseByFolder.set(course.folder, key);
}

/** Add one scanned chapter file to the view (after the courses). */
function addChapter(b: Building, chapter: ScanResult["chapters"][number]): void {
  const { view, snapshot } = b;
  const courseKey = view.courseByFolder.get(chapter.folder);
  if (courseKey === undefined) return; // its course.yaml is missing or invalid: already a problem
  const courseId = view.courses.get(courseKey)?.id;
  let id: number | undefined;
  let values: ChapterValues;
  let unchanged = false;
  let rendered = false;
  const atPath = b.chapterAtPath.get(chapter.file);
  const lostId =
    chapter.parsed?.id === undefined && chapter.parsed && removedId(b, "chapter", chapter.file, atPath);
  if (lostId && atPath !== undefined) {
    const record = snapshot?.chapters[atPath]?.record;
    view.problems.push(...notTheSites(chapter.deferred, record && chapterValuesOfRecord(record)));
  }
  if (chapter.parsed && !lostId) {
    id = chapter.parsed.id ?? provisional(atPath);
    let content: Content;
    try {
      content = localContent(
        b,
        chapter.parsed,
        chapter.file,
        id === undefined ? undefined : snapshot?.chapters[id],
      );
    } catch (error) {
      if (!(error instanceof FileProblem)) throw error;
      view.problems.push(error);
      return;
    }
    values = { title: chapter.parsed.title, ordinal: chapter.parsed.ordinal, course_id: courseId, content };
    const entry = id === undefined ? undefined : snapshot?.chapters[id];
    const counted = notTheSites(chapter.deferred, entry && chapterValuesOfRecord(entry.record), values);
    view.problems.push(...counted);
    if (counted.length > 0) return; // invalid: reported as such, neither new nor changed
    rendered = typeof content === "string" && chapter.parsed.format === "markdown";
  } else {
    id = b.chapterAtPath.get(chapter.file);
    const entry = id === undefined ? undefined : snapshot?.chapters[id];
    if (!entry) return;
    values = { ...chapterValuesOfRecord(entry.record), course_id: courseId };
    unchanged = true;
  }
  const key = id === undefined ? `chapter:new:${chapter.file}` : `chapter:${id}`;
  if (duplicate(b, key, chapter.file, chapter.lines?.id)) return;
  view.chapters.set(key, {
    id,
    key,
    file: chapter.file,
    folder: chapter.folder,
    courseKey,
    hash: chapter.hash,
    values,
    unchanged,
    ...(rendered ? { rendered } : {}),
    ...(chapter.parsed && !chapter.parsed.content
      ? { body: { format: chapter.parsed.format, text: chapter.parsed.body } }
      : {}),
  });
}

/**
 * The record an id-less file stands for: a provisional record (negative id) that a non-default
 * site's snapshot keeps at the file's path, which the default site has not given an id yet.
 */
function provisional(atPath: number | undefined): number | undefined {
  return atPath !== undefined && atPath < 0 ? atPath : undefined;
}

/**
 * The deferred problems of a file's values that count: those of values the last sync did not
 * have (the site's own values are mirrored as they are, whatever their type). `local` gives a
 * field's value as reconcile sees it where the problem names another form (content).
 */
export function notTheSites(
  deferred: readonly FieldProblem[] | undefined,
  base: CourseValues | ChapterValues | undefined,
  local?: ChapterValues,
): FieldProblem[] {
  if (!deferred) return [];
  return deferred.filter((problem) => {
    if (base === undefined) return true;
    const field = problem.field as keyof (CourseValues | ChapterValues);
    const value = local && field in local ? local[field] : problem.value;
    return !fieldsEqual(problem.field, value, base[field]);
  });
}
