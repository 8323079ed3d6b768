import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { type ChapterFile, serializeChapterFile } from "../../tree/chapter-text.js";
import { COURSE_KEYS, type CourseFile, serializeCourseFile } from "../../tree/course-file.js";
import { gitBlobId, sha256 } from "../../util/hash.js";
import { type EntityPlan, type Fields, jsonEqual } from "../reconcile.js";
import { isSpilled } from "./spilled.js";

/**
 * The editable fields of a course, as reconcile compares them. Each holds the value the site
 * sent, whatever its type (null when it sent none): mirrored faithfully, never coerced. Only a
 * value changed here must be of the API's type (checked before anything is sent).
 */
export type CourseValues = Omit<CourseFile, "id">;

/**
 * A chapter body known only by its hash: the snapshot's content when the cache does not hold
 * the text. Equal to any text with that hash.
 */
export interface ContentRef {
  sha256: string;
}

/**
 * Chapter content the site sent that is not text (null, missing, a number...): the file shows
 * it as `content:` in the front matter, and it is never sent back.
 */
export interface ContentLiteral {
  literal: unknown;
}

/** A chapter's content: its HTML, a reference to it by hash, or a value that is not text. */
export type Content = string | ContentRef | ContentLiteral;

/** The editable fields of a chapter, as reconcile compares them (title and ordinal as sent). */
export type ChapterValues = {
  title: unknown;
  ordinal: unknown;
  /** The course the chapter belongs to; undefined for a chapter of a course not yet created. */
  course_id: number | undefined;
  content: Content;
};

/** The keys of CourseValues, in course.yaml order. */
const COURSE_FIELDS = COURSE_KEYS.filter(
  (key): key is Exclude<(typeof COURSE_KEYS)[number], "id"> => key !== "id",
);

/** A course record's editable fields, as the site sent them (a field it left out is null). */
export function courseValuesOfRecord(record: WireRecord): CourseValues {
  const values = {} as Record<(typeof COURSE_FIELDS)[number], unknown>;
  for (const field of COURSE_FIELDS) values[field] = record[field] ?? null;
  return values;
}

/** A record's editable fields, as its kind has them. */
export function valuesOfRecord(kind: "course" | "chapter", record: WireRecord): CourseValues | ChapterValues {
  return kind === "course" ? courseValuesOfRecord(record) : chapterValuesOfRecord(record);
}

/** A course.yaml's editable fields. */
export function courseValuesOfFile(file: CourseFile): CourseValues {
  const { id: _id, ...values } = file;
  return values;
}

/**
 * The id a file carries for a record id: none for a negative one (a record a non-default site
 * holds that the default site does not have yet: file ids are always the default site's).
 */
export function fileId(id: number | undefined): number | undefined {
  return id !== undefined && id < 0 ? undefined : id;
}

/** The course.yaml text for a course id and values. */
export function courseFileText(id: number | undefined, values: CourseValues): string {
  return serializeCourseFile({ id: fileId(id), ...values });
}

/** A chapter record's editable fields (content by hash if the text is not at hand). */
export function chapterValuesOfRecord(record: WireRecord, content?: string): ChapterValues {
  const values = chapterFieldsOfRecord(record) as ChapterValues;
  values.content = recordContent(record, content);
  return values;
}

/** A chapter record's editable fields but its content (which a caller reads as it needs). */
export function chapterFieldsOfRecord(record: WireRecord): Omit<ChapterValues, "content"> {
  const courseId = Number(record.course_id);
  return {
    title: record.title ?? null,
    ordinal: record.ordinal ?? null,
    course_id: Number.isInteger(courseId) ? courseId : undefined,
  };
}

function recordContent(record: WireRecord, content: string | undefined): Content {
  const value = record.content;
  if (typeof value === "string") return value;
  // A spilled text stays a reference (by hash): a step that needs it reads it (see spilled.ts).
  if (isSpilled(value)) return value;
  if (typeof record.content_sha256 === "string")
    return content !== undefined ? content : { sha256: record.content_sha256 };
  return { literal: value ?? null };
}

/** Content that is not text: a value the file shows as `content:`, never a body. */
export function isLiteral(content: unknown): content is ContentLiteral {
  return content !== null && typeof content === "object" && "literal" in content;
}

/** The chapter file for an id and values, through the body step. */
export function chapterFile(
  record: number | undefined,
  values: ChapterValues,
  bodies: BodyCodec,
): ChapterFile {
  const id = fileId(record);
  const { title, ordinal, content } = values;
  if (isLiteral(content)) return { id, title, ordinal, format: "markdown", body: "", content };
  if (typeof content !== "string") throw new Error(`chapter ${id}: its content is not at hand`);
  const { body, format } = bodies.fromHtml(content);
  return { id, title, ordinal, format, body };
}

/** The chapter file text for an id and values. */
export function chapterFileText(id: number | undefined, values: ChapterValues, bodies: BodyCodec): string {
  return serializeChapterFile(chapterFile(id, values, bodies));
}

/** The key a chapter body is known by in the snapshot: its format and text, hashed. */
export function bodyKey(format: string, body: string): string {
  return sha256(`${format}\n${body}`);
}

/** What the snapshot records of a chapter file as the sync writes it (see SnapshotEntry). */
export interface Rendered {
  /** SHA-256 of the file's text. */
  hash: string;
  /** The body key: its format and text hashed. */
  body: string;
  /** git's blob id of the file's text. */
  blob: string;
}

/** A chapter file's text with its hash, body key and git blob id, as the snapshot records them. */
export function renderChapter(
  id: number | undefined,
  values: ChapterValues,
  bodies: BodyCodec,
): Rendered & { text: string } {
  const file = chapterFile(id, values, bodies);
  const text = serializeChapterFile(file);
  return { text, hash: sha256(text), body: bodyKey(file.format, file.body), blob: gitBlobId(text) };
}

/** What a piece of content compares by: the hash of its text, or the JSON of a value that is not text. */
export function contentKey(content: unknown): string | undefined {
  if (typeof content === "string") return sha256(content);
  if (isLiteral(content)) return `json:${JSON.stringify(content.literal ?? null)}`;
  if (content !== null && typeof content === "object" && typeof (content as ContentRef).sha256 === "string") {
    return (content as ContentRef).sha256;
  }
  return undefined;
}

/** Field equality for reconcile: content compares by hash, the rest as JSON values (null = missing). */
export function fieldsEqual(field: string, a: unknown, b: unknown): boolean {
  if (field === "content") return contentKey(a) === contentKey(b);
  return jsonEqual(a ?? null, b ?? null);
}

/** Whether two sides' values say the same, field by field as reconcile compares them. */
export function valuesEqual(a: Fields, b: Fields): boolean {
  return Object.keys({ ...a, ...b }).every((k) => fieldsEqual(k, a[k], b[k]));
}

/** A course's plan: merged into course values. */
export type CoursePlan = EntityPlan<CourseValues, "course">;
/** A chapter's plan: merged into chapter values. */
export type ChapterPlan = EntityPlan<ChapterValues, "chapter">;
/** A plan of either kind; `kind` tells which values it holds. */
export type RecordPlan = CoursePlan | ChapterPlan;

/** The snapshot's copy of a record: every field kept, chapter content replaced by its hash. */
export function snapshotRecord(record: WireRecord): WireRecord {
  // A spilled text (see spilled.ts) was hashed as it was spilled: the snapshot's copy reads no text.
  const known = isSpilled(record.content) ? record.content.sha256 : undefined;
  if (known === undefined && typeof record.content !== "string") return record;
  // Built key by key in the record's order: records of one list then share one hidden class
  // (a spread gave each of 50,000 snapshot entries its own, 12 MB of them).
  const entry: WireRecord = { id: record.id };
  for (const key of Object.keys(record)) if (key !== "content") entry[key] = record[key];
  entry.content_sha256 = known ?? sha256(record.content as string);
  return entry;
}

/**
 * Whether a listed record is the one the snapshot keeps (`known`): what
 * `jsonEqual(snapshotRecord(record), known)` says, without building the copy (a pull asks it
 * of every record, in several steps). A text is hashed only once the other fields agree.
 */
export function sameAsSnapshot(record: WireRecord, known: WireRecord): boolean {
  const content = record.content;
  const spilledHash = isSpilled(content) ? content.sha256 : undefined;
  if (spilledHash === undefined && typeof content !== "string") return jsonEqual(record, known);
  let keys = 1; // content_sha256, in place of content
  for (const key of Object.keys(record)) {
    if (key === "content" || key === "content_sha256") continue;
    keys++;
    if (!jsonEqual(record[key], known[key])) return false;
  }
  if (Object.keys(known).length !== keys) return false;
  return known.content_sha256 === (spilledHash ?? sha256(content as string));
}
