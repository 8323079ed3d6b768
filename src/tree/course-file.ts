import {
  checkedId,
  checkedTitle,
  type FieldLines,
  FileProblem,
  parseYamlMapping,
  stringifyYamlFields,
} from "./yaml-text.js";

/** The editable fields of a course, as `course.yaml` holds them (DESIGN section 3). */
export interface CourseFile {
  id: number | undefined;
  title: string;
  status: string;
  excerpt: string | null;
  free: boolean | null;
  questions_enabled: boolean | null;
  scheduled_at: string | null;
  published_at: string | null;
}

/** The keys of course.yaml, in the order they are written. */
export const COURSE_KEYS = [
  "id",
  "title",
  "status",
  "excerpt",
  "free",
  "questions_enabled",
  "scheduled_at",
  "published_at",
] as const;

function optionalString(values: Record<string, unknown>, key: string, file: string, line?: number) {
  const value = values[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") {
    throw new FileProblem(
      file,
      line,
      `${key} must be text, not ${JSON.stringify(value)}`,
      "Quote the value.",
    );
  }
  return value;
}

function optionalBoolean(values: Record<string, unknown>, key: string, file: string, line?: number) {
  const value = values[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== "boolean") {
    throw new FileProblem(file, line, `${key} must be true or false, not ${JSON.stringify(value)}`);
  }
  return value;
}

/** Parse and validate a course.yaml. Throws FileProblem naming the file and line. */
export function parseCourseFile(text: string, file: string): CourseFile {
  return parseCourseFileWithLines(text, file).course;
}

/** Parse and validate a course.yaml, with the line of each key it sets. */
export function parseCourseFileWithLines(
  text: string,
  file: string,
): { course: CourseFile; lines: FieldLines } {
  const source = (text.startsWith("\uFEFF") ? text.slice(1) : text).replace(/\r\n/g, "\n");
  const { values, lines } = parseYamlMapping(source, file);
  for (const key of Object.keys(values)) {
    if (!(COURSE_KEYS as readonly string[]).includes(key)) {
      throw new FileProblem(
        file,
        lines[key],
        `unknown key "${key}"`,
        `course.yaml holds only ${COURSE_KEYS.join(", ")}.`,
      );
    }
  }
  const id = checkedId(values.id, file, lines.id);
  const title = checkedTitle(values.title, file, lines.title, 1, "Give the course a title.");
  const status = values.status ?? "draft";
  if (typeof status !== "string" || status === "") {
    throw new FileProblem(
      file,
      lines.status,
      `status must be draft or published, not ${JSON.stringify(status)}`,
    );
  }
  const course: CourseFile = {
    id,
    title,
    status,
    excerpt: optionalString(values, "excerpt", file, lines.excerpt),
    free: optionalBoolean(values, "free", file, lines.free),
    questions_enabled: optionalBoolean(values, "questions_enabled", file, lines.questions_enabled),
    scheduled_at: optionalString(values, "scheduled_at", file, lines.scheduled_at),
    published_at: optionalString(values, "published_at", file, lines.published_at),
  };
  return { course, lines };
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
