import type { ChapterFile } from "../tree/chapter-file.js";
import type { ScanResult } from "../tree/scan.js";
import { FIELD_RULES, fieldProblems, type Limits, statusProblem } from "../tree/schema.js";
import { type FieldLines, FileProblem } from "../tree/yaml-text.js";
import type { LocalChapter, LocalCourse, LocalView } from "./local/view.js";
import {
  type ChapterValues,
  type CourseValues,
  chapterValuesOfRecord,
  courseValuesOfRecord,
  fieldsEqual,
} from "./model/entities.js";
import type { Snapshot } from "./state/snapshot-model.js";

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

/**
 * Files whose id the snapshot does not know (a record made elsewhere, or an id edited by
 * hand): pushing them would be guesswork, and the record the snapshot has at that path would
 * be taken for deleted here. They stop a push like an invalid file.
 */
export function unknownIdProblems(scan: ScanResult, local: LocalView, snapshot: Snapshot): FileProblem[] {
  const lines = new Map<string, FieldLines | undefined>([
    ...scan.courses.map((c) => [c.file ?? c.folder, c.lines] as const),
    ...scan.chapters.map((c) => [c.file, c.lines] as const),
  ]);
  const entries = [
    ...[...local.courses.values()].map((c) => ({ file: c.file, id: c.id, known: snapshot.courses })),
    ...[...local.chapters.values()].map((c) => ({ file: c.file, id: c.id, known: snapshot.chapters })),
  ];
  return entries
    .filter(({ id, known }) => id !== undefined && !known[id])
    .map(
      ({ file, id }) =>
        new FileProblem(
          file,
          lines.get(file)?.id,
          `has id ${id}, which the last sync does not know`,
          "Run `coursesync pull` to adopt a record made elsewhere, or remove the id line to create the file as a new record.",
          { rule: "unknown-id" },
        ),
    );
}

/** The text values a course file changed, against the record the last sync left. */
export function courseProblems(
  mine: Pick<LocalCourse, "id" | "file" | "values">,
  lines: FieldLines | undefined,
  snapshot: Snapshot | undefined,
  limits: Limits,
): FileProblem[] {
  const entry = mine.id === undefined ? undefined : snapshot?.courses[mine.id];
  const base = entry ? courseValuesOfRecord(entry.record) : undefined;
  // A status that is not text is a problem of its type, found by parsing.
  const { status } = mine.values;
  const statusRefused =
    typeof status === "string" ? statusProblem(mine.file, status, base?.status, lines?.status) : undefined;
  return [
    ...(statusRefused ? [statusRefused] : []),
    ...(Object.keys(FIELD_RULES.course) as Array<keyof CourseValues>).flatMap((field) => {
      const value = mine.values[field];
      if (typeof value !== "string" || (base && fieldsEqual(field, value, base[field]))) return [];
      return fieldProblems(mine.file, "course", field, { text: value, line: lines?.[field] }, limits);
    }),
  ];
}

/** A chapter file's changed title and body (the body as written, and the HTML sent for it). */
export function chapterProblems(
  mine: Pick<LocalChapter, "id" | "file"> & { values: Pick<ChapterValues, "content"> },
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
