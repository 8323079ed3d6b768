import type { WireRecord } from "../api/wire.js";
import type { BodyCodec } from "../tree/bodies.js";
import { type ChapterFile, serializeChapterFile } from "../tree/chapter-file.js";
import { type CourseFile, serializeCourseFile } from "../tree/course-file.js";
import { sha256 } from "../util/hash.js";
import type { Fields } from "./reconcile.js";

/** The editable fields of a course, as reconcile compares them. */
export interface CourseValues {
  title: string;
  status: string;
  excerpt: string | null;
  free: boolean | null;
  questions_enabled: boolean | null;
  scheduled_at: string | null;
  published_at: string | null;
}

/**
 * A chapter body known only by its hash: the snapshot's content when the cache does not hold
 * the text. Equal to any text with that hash.
 */
export interface ContentRef {
  sha256: string;
}

/** The editable fields of a chapter, as reconcile compares them. */
export interface ChapterValues {
  title: string;
  ordinal: number;
  /** The course the chapter belongs to; undefined for a chapter of a course not yet created. */
  course_id: number | undefined;
  content: string | ContentRef;
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : value === null || value === undefined ? null : String(value);
}

function bool(value: unknown): boolean | null {
  return typeof value === "boolean" ? value : null;
}

/** A course record's editable fields. */
export function courseValuesOfRecord(record: WireRecord): CourseValues {
  return {
    title: text(record.title) ?? "",
    status: text(record.status) ?? "draft",
    excerpt: text(record.excerpt),
    free: bool(record.free),
    questions_enabled: bool(record.questions_enabled),
    scheduled_at: text(record.scheduled_at),
    published_at: text(record.published_at),
  };
}

/** A course.yaml's editable fields. */
export function courseValuesOfFile(file: CourseFile): CourseValues {
  const { id: _id, ...values } = file;
  return values;
}

/** The course.yaml text for a course id and values. */
export function courseFileText(id: number | undefined, values: CourseValues): string {
  return serializeCourseFile({ id, ...values });
}

/** The chapter content as the snapshot keeps it: by hash, the text in the content cache. */
export function contentHashOf(record: WireRecord): string | undefined {
  if (typeof record.content === "string") return sha256(record.content);
  return typeof record.content_sha256 === "string" ? record.content_sha256 : undefined;
}

/** A chapter record's editable fields (content by hash if the text is not at hand). */
export function chapterValuesOfRecord(record: WireRecord, content?: string): ChapterValues {
  const courseId = Number(record.course_id);
  return {
    title: text(record.title) ?? "",
    ordinal: typeof record.ordinal === "number" ? record.ordinal : Number(record.ordinal ?? 0),
    course_id: Number.isInteger(courseId) ? courseId : undefined,
    content:
      typeof record.content === "string"
        ? record.content
        : content !== undefined
          ? content
          : { sha256: String(record.content_sha256 ?? "") },
  };
}

/** The chapter file for an id and values, through the body step. */
export function chapterFile(id: number | undefined, values: ChapterValues, bodies: BodyCodec): ChapterFile {
  if (typeof values.content !== "string") throw new Error(`chapter ${id}: its content is not at hand`);
  const { body, format } = bodies.fromHtml(values.content);
  return { id, title: values.title, ordinal: values.ordinal, format, body };
}

/** The chapter file text for an id and values. */
export function chapterFileText(id: number | undefined, values: ChapterValues, bodies: BodyCodec): string {
  return serializeChapterFile(chapterFile(id, values, bodies));
}

/** The key a chapter body is known by in the snapshot: its format and text, hashed. */
export function bodyKey(format: string, body: string): string {
  return sha256(`${format}\n${body}`);
}

/** A chapter file's text with its hash and body key, as the snapshot records them. */
export function renderChapter(
  id: number | undefined,
  values: ChapterValues,
  bodies: BodyCodec,
): { text: string; hash: string; body: string } {
  const file = chapterFile(id, values, bodies);
  const text = serializeChapterFile(file);
  return { text, hash: sha256(text), body: bodyKey(file.format, file.body) };
}

/** The hash a piece of content compares by, whether it is text or a reference. */
export function contentKey(content: unknown): string | undefined {
  if (typeof content === "string") return sha256(content);
  if (content !== null && typeof content === "object" && typeof (content as ContentRef).sha256 === "string") {
    return (content as ContentRef).sha256;
  }
  return undefined;
}

/** Field equality for reconcile: content compares by hash, the rest as JSON values. */
export function fieldsEqual(field: string, a: unknown, b: unknown): boolean {
  if (field === "content") return contentKey(a) === contentKey(b);
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  return a === b;
}

/** Values as reconcile's Fields. */
export function asFields(values: CourseValues | ChapterValues): Fields {
  return values as unknown as Fields;
}

/** The snapshot's copy of a record: every field kept, chapter content replaced by its hash. */
export function snapshotRecord(record: WireRecord): WireRecord {
  if (typeof record.content !== "string") return record;
  const { content, ...rest } = record;
  return { ...rest, content_sha256: sha256(content as string) };
}
