import { COURSE_FIELDS } from "./schema.js";
import {
  checkedId,
  checkedTitle,
  deferCheck,
  type FieldLines,
  type FieldProblem,
  FileProblem,
  readYamlMapping,
  strictly,
  stringifyYamlFields,
  unknownKeys,
} from "./yaml-text.js";

/**
 * The editable fields of a course, as `course.yaml` holds them (DESIGN section 3). Values are
 * as written: a value of another type than the API's (mirrored from the site) is kept, and
 * its problem deferred (see `FieldProblem`).
 */
export interface CourseFile {
  id: number | undefined;
  title: unknown;
  status: unknown;
  excerpt: unknown;
  free: unknown;
  questions_enabled: unknown;
  scheduled_at: unknown;
  published_at: unknown;
}

/** The keys of course.yaml, in the order they are written (from the one field definition). */
export const COURSE_KEYS = Object.keys(COURSE_FIELDS) as ReadonlyArray<keyof typeof COURSE_FIELDS>;

function checkText(key: string, value: unknown, file: string, line?: number): void {
  if (value !== null && typeof value !== "string") {
    throw new FileProblem(
      file,
      line,
      `${key} must be text, not ${JSON.stringify(value)}`,
      "Quote the value.",
      { rule: "type" },
    );
  }
}

function checkBoolean(key: string, value: unknown, file: string, line?: number): void {
  if (value !== null && typeof value !== "boolean") {
    throw new FileProblem(
      file,
      line,
      `${key} must be true or false, not ${JSON.stringify(value)}`,
      undefined,
      {
        rule: "type",
      },
    );
  }
}

function checkStatus(value: unknown, file: string, line?: number): void {
  if (typeof value !== "string" || value === "") {
    throw new FileProblem(
      file,
      line,
      `status must be draft or published, not ${JSON.stringify(value)}`,
      undefined,
      { rule: "status" },
    );
  }
}

/**
 * Parse and validate a course.yaml; with `strict`, every value must also be of the API's type.
 * Throws FileProblem naming the file and line.
 */
export function parseCourseFile(text: string, file: string, options: { strict?: boolean } = {}): CourseFile {
  const read = readCourseFile(text, file);
  return strictly(read, read.course, options.strict);
}

/** A course.yaml as read: its values (when the YAML parses) and every problem found. */
export interface ReadCourseFile {
  /** The values, even when `problems` holds some (for checking every problem at once). */
  course: CourseFile | undefined;
  lines: FieldLines;
  /** Problems of values that count only where the value is not the site's. */
  deferred: FieldProblem[];
  /** Problems that make the file invalid whatever the site has. */
  problems: FileProblem[];
}

/**
 * Read a course.yaml, collecting every problem instead of stopping at the first. Values of
 * another type than the API's are kept, each with its problem in `deferred`.
 */
export function readCourseFile(text: string, file: string): ReadCourseFile {
  const source = (text.startsWith("\uFEFF") ? text.slice(1) : text).replace(/\r\n/g, "\n");
  const { mapping, problems } = readYamlMapping(source, file);
  if (!mapping) return { course: undefined, lines: {}, deferred: [], problems };
  const { values, lines } = mapping;
  problems.push(
    ...unknownKeys(
      mapping,
      COURSE_KEYS,
      file,
      (key) => `unknown key "${key}"`,
      `course.yaml holds only ${COURSE_KEYS.join(", ")}.`,
    ),
  );
  let id: number | undefined;
  try {
    id = checkedId(values.id, file, lines.id);
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error;
    problems.push(error);
  }
  // A missing line is null, but a new course without `status` is a draft.
  const value = (key: string) => values[key] ?? (key === "status" && !("status" in values) ? "draft" : null);
  const course = { id } as CourseFile;
  const deferred: FieldProblem[] = [];
  for (const key of COURSE_KEYS) {
    if (key === "id") continue;
    const v = value(key);
    course[key] = v;
    const def = COURSE_FIELDS[key];
    deferCheck(deferred, key, v, () => {
      if (def.type === "text" && "required" in def)
        checkedTitle(v, file, lines[key], 1, `Give the course a ${key}.`);
      else if (def.type === "enum") checkStatus(v, file, lines[key]);
      else if (def.type === "boolean") checkBoolean(key, v, file, lines[key]);
      else checkText(key, v, file, lines[key]);
    });
  }
  return { course, lines, deferred, problems };
}

/** Serialize a course.yaml: keys in the fixed order, LF, a trailing newline. */
export function serializeCourseFile(course: CourseFile): string {
  const fields: Array<[string, unknown]> = [];
  for (const key of COURSE_KEYS) {
    if (key === "id" && course.id === undefined) continue;
    fields.push([key, course[key]]);
  }
  return stringifyYamlFields(fields);
}
