/**
 * The records the emulator stores and serves, and the pure checks on what clients send
 * (API.md sections 2 and 4). Nothing here touches the clock, the network or the store.
 */

/** The resources the emulator serves with full CRUD. */
export type ResourceName = "courses" | "chapters";

/** The key a resource's request body is nested under (API.md 4.1). */
export const bodyKey = { courses: "course", chapters: "chapter" } as const satisfies Record<
  ResourceName,
  string
>;

/** A course as served (API.md 2.1); fields set by an admin edit beyond these are served too. */
export interface CourseRecord {
  id: number;
  title: string;
  slug: string;
  status: string;
  created_at: string;
  updated_at: string;
  scheduled_at: string | null;
  published_at: string | null;
  excerpt: string | null;
  free: boolean;
  questions_enabled: boolean;
  [extra: string]: unknown;
}

/** A chapter as served (API.md 2.3); fields set by an admin edit beyond these are served too. */
export interface ChapterRecord {
  id: number;
  course_id: number;
  title: string;
  content: string;
  created_at: string;
  updated_at: string;
  ordinal: number;
  [extra: string]: unknown;
}

/** The kinds of event the emulator records: one per create, update and delete. */
export type EventType = `${"course" | "chapter"}.${"created" | "updated" | "deleted"}`;

/** One entry of GET /events. */
export interface EventRecord {
  id: number;
  type: EventType;
  resource_id: number;
  /** A chapter event's course: the one the chapter is in after the change (or was in, deleted). */
  course_id?: number;
  created_at: string;
}

/** Everything the store holds that a reset can restore: what GET /__admin/state returns. */
export interface StateDump {
  courses: CourseRecord[];
  chapters: ChapterRecord[];
  events: EventRecord[];
}

/** Rails-style validation errors: field name to messages, served as `{"errors": {...}}`. */
export type FieldErrors = Record<string, string[]>;

/** The result of a check: the cleaned value, or the errors a 422 reports. */
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

/** Course fields a create or update sets, already converted (status as served). */
export interface CourseChanges {
  title?: string;
  status?: "draft" | "published";
  scheduled_at?: string | null;
  published_at?: string | null;
  excerpt?: string | null;
  free?: boolean;
  questions_enabled?: boolean;
}

/** Chapter fields a create or update sets, already converted (course_id as a number). */
export interface ChapterChanges {
  course_id?: number;
  title?: string;
  content?: string;
  ordinal?: number;
}

/** Whether a check is for a create (title required) or an update (any subset). */
export type InputMode = "create" | "update";

/** The course fields in the order they are served. */
export const COURSE_FIELDS = [
  "id",
  "title",
  "slug",
  "status",
  "created_at",
  "updated_at",
  "scheduled_at",
  "published_at",
  "excerpt",
  "free",
  "questions_enabled",
] as const;

/** The chapter fields in the order they are served. */
export const CHAPTER_FIELDS = [
  "id",
  "course_id",
  "title",
  "content",
  "created_at",
  "updated_at",
  "ordinal",
] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function addError(errors: FieldErrors, field: string, message: string): void {
  errors[field] = [...(errors[field] ?? []), message];
}

/** Take the resource object out of a request body, or say why it is not there. */
function unwrapBody(body: unknown, key: string): Checked<Record<string, unknown>> {
  if (!isObject(body)) {
    return { ok: false, errors: { [key]: [`is missing: send a JSON object {"${key}": {...}}`] } };
  }
  const inner = body[key];
  if (inner === undefined) return { ok: false, errors: { [key]: ["is missing"] } };
  if (!isObject(inner)) return { ok: false, errors: { [key]: ["must be a JSON object"] } };
  return { ok: true, value: inner };
}

// Lenient enough for every ISO 8601 datetime a client is likely to send, strict enough to
// refuse "tomorrow"; the text is stored as sent.
const DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

function checkTitle(
  input: Record<string, unknown>,
  mode: InputMode,
  errors: FieldErrors,
): string | undefined {
  const title = input.title;
  if (title === undefined && mode === "update") return undefined;
  if (title === undefined || title === null || (typeof title === "string" && title.trim() === "")) {
    addError(errors, "title", "can't be blank");
    return undefined;
  }
  if (typeof title !== "string") {
    addError(errors, "title", "must be a string");
    return undefined;
  }
  return title;
}

function checkOptionalText(
  input: Record<string, unknown>,
  field: string,
  errors: FieldErrors,
): string | null | undefined {
  const value = input[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== "string") addError(errors, field, "must be a string or null");
  return typeof value === "string" ? value : undefined;
}

function checkDatetime(
  input: Record<string, unknown>,
  field: string,
  errors: FieldErrors,
): string | null | undefined {
  const value = input[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== "string" || !DATETIME.test(value) || Number.isNaN(Date.parse(value))) {
    addError(errors, field, "must be an ISO 8601 datetime or null");
    return undefined;
  }
  return value;
}

function checkBoolean(
  input: Record<string, unknown>,
  field: string,
  errors: FieldErrors,
): boolean | undefined {
  const value = input[field];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") {
    addError(errors, field, "must be true or false");
    return undefined;
  }
  return value;
}

/** Check a course create or update body (`{"course": {...}}`); unknown fields are ignored. */
export function checkCourseInput(body: unknown, mode: InputMode): Checked<CourseChanges> {
  const unwrapped = unwrapBody(body, bodyKey.courses);
  if (!unwrapped.ok) return unwrapped;
  const input = unwrapped.value;
  const errors: FieldErrors = {};
  const changes: CourseChanges = {};
  const title = checkTitle(input, mode, errors);
  if (title !== undefined) changes.title = title;
  if (input.status !== undefined) {
    if (input.status === 0) changes.status = "draft";
    else if (input.status === 1) changes.status = "published";
    else addError(errors, "status", "must be 0 (draft) or 1 (published)");
  }
  for (const field of ["scheduled_at", "published_at"] as const) {
    const value = checkDatetime(input, field, errors);
    if (value !== undefined) changes[field] = value;
  }
  const excerpt = checkOptionalText(input, "excerpt", errors);
  if (excerpt !== undefined) changes.excerpt = excerpt;
  for (const field of ["free", "questions_enabled"] as const) {
    const value = checkBoolean(input, field, errors);
    if (value !== undefined) changes[field] = value;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: changes };
}

/** Read a course id sent as a number or a numeric string. */
export function parseCourseId(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === "string" && /^\d+$/.test(value.trim())) {
    const id = Number(value.trim());
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  }
  return undefined;
}

/**
 * Check a chapter create or update body (`{"chapter": {...}}`). `courseExists` answers whether
 * a course id is known, so the check stays pure.
 */
export function checkChapterInput(
  body: unknown,
  mode: InputMode,
  courseExists: (id: number) => boolean,
): Checked<ChapterChanges> {
  const unwrapped = unwrapBody(body, bodyKey.chapters);
  if (!unwrapped.ok) return unwrapped;
  const input = unwrapped.value;
  const errors: FieldErrors = {};
  const changes: ChapterChanges = {};
  if (input.course_id === undefined || input.course_id === null || input.course_id === "") {
    if (mode === "create" || input.course_id !== undefined) addError(errors, "course_id", "can't be blank");
  } else {
    const courseId = parseCourseId(input.course_id);
    if (courseId === undefined) addError(errors, "course_id", "must be a course id (a whole number)");
    else if (!courseExists(courseId)) addError(errors, "course_id", "must exist");
    else changes.course_id = courseId;
  }
  const title = checkTitle(input, mode, errors);
  if (title !== undefined) changes.title = title;
  if (input.content !== undefined) {
    if (typeof input.content === "string") changes.content = input.content;
    else addError(errors, "content", "must be a string");
  }
  if (input.ordinal !== undefined) {
    if (typeof input.ordinal === "number" && Number.isSafeInteger(input.ordinal))
      changes.ordinal = input.ordinal;
    else addError(errors, "ordinal", "must be an integer");
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: changes };
}

/** A URL-style name: lowercase ASCII letters and digits joined by single dashes. */
export function slugify(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug === "" ? "course" : slug;
}

/** Whether a text already has the shape `slugify` produces. */
export function isSlug(text: string): boolean {
  return /^[a-z0-9]+(-[a-z0-9]+)*$/.test(text);
}

/** The first of `base`, `base-2`, `base-3`, ... that is not taken. */
export function uniqueSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}

/** Format a time as the service does: ISO 8601, milliseconds, numeric offset (`+00:00`). */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "+00:00");
}

/**
 * The timestamp for a change made at `nowMs` to a record last stamped `previous`: the clock's
 * time, or 1 ms after `previous` when the clock has not moved past it, so the value always changes.
 */
export function nextTimestamp(nowMs: number, previous?: string): string {
  const before = previous === undefined ? Number.NaN : Date.parse(previous);
  return formatTimestamp(Number.isNaN(before) || nowMs > before ? nowMs : before + 1);
}

/** Check a state given to POST /__admin/reset: arrays of records with unique positive ids. */
export function checkStateDump(value: unknown): Checked<StateDump> {
  if (!isObject(value))
    return { ok: false, errors: { state: ["must be a JSON object {courses, chapters, events}"] } };
  const errors: FieldErrors = {};
  const lists: Record<string, Array<Record<string, unknown>>> = {};
  for (const field of ["courses", "chapters", "events"] as const) {
    const list = value[field] ?? [];
    if (!Array.isArray(list)) {
      addError(errors, field, "must be an array");
      continue;
    }
    const seen = new Set<number>();
    list.forEach((item: unknown, index) => {
      const id = isObject(item) ? item.id : undefined;
      if (!isObject(item) || typeof id !== "number" || !Number.isSafeInteger(id) || id <= 0) {
        addError(errors, field, `item ${index} must be an object with a positive integer id`);
      } else if (seen.has(id)) {
        addError(errors, field, `id ${id} appears twice`);
      } else {
        seen.add(id);
      }
    });
    lists[field] = list as Array<Record<string, unknown>>;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const courseIds = new Set((lists.courses ?? []).map((course) => course.id));
  for (const chapter of lists.chapters ?? []) {
    if (!courseIds.has(chapter.course_id)) {
      addError(errors, "chapters", `chapter ${String(chapter.id)} has an unknown course_id`);
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: structuredClone({
      courses: (lists.courses ?? []) as unknown as CourseRecord[],
      chapters: (lists.chapters ?? []) as unknown as ChapterRecord[],
      events: (lists.events ?? []) as unknown as EventRecord[],
    }),
  };
}
