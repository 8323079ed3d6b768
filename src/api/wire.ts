/**
 * What the server sends and takes (API.md sections 2 and 4). Records keep every field the
 * server returns, known or not: the snapshot stores them whole.
 */

/** The two resources this tool mirrors. */
export type Resource = "courses" | "chapters";

/** The singular key a resource's body is nested under (API.md 4.1). */
export const resourceKey = { courses: "course", chapters: "chapter" } as const satisfies Record<
  Resource,
  string
>;

/** A JSON object as a list served it (an event, whose fields the API does not show). */
export type JsonObject = Record<string, unknown>;

/** A record as the server returned it: an id plus any other JSON fields. */
export interface WireRecord {
  id: number;
  [field: string]: unknown;
}

/** Course fields as sent on create and update (API.md 2.2): status is 0 (draft) or 1 (published). */
export interface CourseInput {
  title?: string;
  status?: 0 | 1;
  scheduled_at?: string | null;
  published_at?: string | null;
  excerpt?: string | null;
  free?: boolean;
  questions_enabled?: boolean;
}

/** Chapter fields as sent on create and update (API.md 2.4). */
export interface ChapterInput {
  course_id?: number | string;
  title?: string;
  content?: string;
  ordinal?: number;
}

/** Parse an unknown JSON value as a record with an integer id, or return undefined. */
export function asWireRecord(value: unknown): WireRecord | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const id = (value as { id?: unknown }).id;
  if (typeof id === "number" && Number.isInteger(id)) return value as WireRecord;
  if (typeof id === "string" && /^\d+$/.test(id))
    return { ...(value as object), id: Number(id) } as WireRecord;
  return undefined;
}
