import type { ChapterFile } from "../tree/chapter-file.js";
import type { ScanResult } from "../tree/scan.js";
import { FIELD_RULES, fieldProblems, type Limits } from "../tree/schema.js";
import type { FieldLines, FileProblem } from "../tree/yaml-text.js";
import { type CourseValues, chapterValuesOfRecord, courseValuesOfRecord, fieldsEqual } from "./entities.js";
import type { LocalChapter, LocalCourse, LocalView } from "./local-view.js";
import type { Snapshot } from "./snapshot.js";

/**
 * The values push would send that the site cannot take (a date in another form, a control
 * character, a size over the limits), every one of each file. Only values that differ from
 * the last sync are checked: what the site itself sent is mirrored as it is, never refused.
 */
export function valueProblems(
  scan: ScanResult,
  local: LocalView,
  snapshot: Snapshot | undefined,
  limits: Limits,
): FileProblem[] {
  const courses = new Map([...local.courses.values()].map((course) => [course.file, course]));
  const chapters = new Map([...local.chapters.values()].map((chapter) => [chapter.file, chapter]));
  return [
    ...scan.courses.flatMap((scanned) => {
      const mine = scanned.file === undefined ? undefined : courses.get(scanned.file);
      return scanned.parsed && mine ? courseProblems(mine, scanned.lines, snapshot, limits) : [];
    }),
    ...scan.chapters.flatMap((scanned) => {
      const mine = chapters.get(scanned.file);
      return scanned.parsed && mine
        ? chapterProblems(mine, scanned.parsed, scanned.lines, snapshot, limits)
        : [];
    }),
  ];
}

/** The text values a course file changed, against the record the last sync left. */
function courseProblems(
  mine: LocalCourse,
  lines: FieldLines | undefined,
  snapshot: Snapshot | undefined,
  limits: Limits,
): FileProblem[] {
  const entry = mine.id === undefined ? undefined : snapshot?.courses[mine.id];
  const base = entry ? courseValuesOfRecord(entry.record) : undefined;
  return (Object.keys(FIELD_RULES.course) as Array<keyof CourseValues>).flatMap((field) => {
    const value = mine.values[field];
    if (typeof value !== "string" || (base && fieldsEqual(field, value, base[field]))) return [];
    return fieldProblems(mine.file, "course", field, { text: value, line: lines?.[field] }, limits);
  });
}

/** A chapter file's changed title and body (the body as written, and the HTML sent for it). */
function chapterProblems(
  mine: LocalChapter,
  parsed: ChapterFile,
  lines: FieldLines | undefined,
  snapshot: Snapshot | undefined,
  limits: Limits,
): FileProblem[] {
  const entry = mine.id === undefined ? undefined : snapshot?.chapters[mine.id];
  const base = entry ? chapterValuesOfRecord(entry.record) : undefined;
  const { title, body } = parsed;
  const problems: FileProblem[] = [];
  if (typeof title === "string" && !(base && base.title === title)) {
    problems.push(
      ...fieldProblems(mine.file, "chapter", "title", { text: title, line: lines?.title }, limits),
    );
  }
  const content = mine.values.content;
  if (typeof content === "string" && !(base && fieldsEqual("content", content, base.content))) {
    const value = { text: body, line: lines?.body, ...(content === body ? {} : { sent: content }) };
    problems.push(...fieldProblems(mine.file, "chapter", "body", value, limits));
  }
  return problems;
}
