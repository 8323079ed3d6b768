/** What another user of the site changes: an edit's fields checked, and acts_as_list's order. */
import {
  type ChapterRecord,
  type Checked,
  type FieldErrors,
  parseCourseId,
  type ResourceName,
} from "./records.js";

/**
 * The fields of an edit as the store keeps them: any field but id; a course's status 0/1 as
 * draft/published; a chapter's course_id a number of a course that exists.
 */
export function checkEdit(
  resource: ResourceName,
  fields: Record<string, unknown>,
  courseExists: (id: number) => boolean,
): Checked<Record<string, unknown>> {
  const errors: FieldErrors = {};
  const changes = { ...fields };
  if ("id" in changes) errors.id = ["cannot be changed"];
  if (resource === "courses" && (changes.status === 0 || changes.status === 1)) {
    changes.status = changes.status === 1 ? "published" : "draft";
  }
  if (resource === "chapters" && "course_id" in changes) {
    const courseId = parseCourseId(changes.course_id);
    if (courseId === undefined || !courseExists(courseId)) errors.course_id = ["must exist"];
    else changes.course_id = courseId;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: changes };
}

/**
 * The chapters of one course in their new order: those `order` names first, in its order, then
 * the others by ordinal, then id. Every id in `order` must be one of `chapters`, once.
 */
export function placeChapters(
  chapters: readonly ChapterRecord[],
  order: readonly number[],
): Checked<ChapterRecord[]> {
  const byId = new Map(chapters.map((chapter) => [chapter.id, chapter]));
  const named = new Set<number>();
  const problems: string[] = [];
  for (const id of order) {
    if (!byId.has(id)) problems.push(`${id} is not a chapter of this course`);
    else if (named.has(id)) problems.push(`${id} appears twice`);
    named.add(id);
  }
  if (problems.length > 0) return { ok: false, errors: { order: problems } };
  const rest = chapters
    .filter((chapter) => !named.has(chapter.id))
    .sort((a, b) => a.ordinal - b.ordinal || a.id - b.id);
  return { ok: true, value: [...order.map((id) => byId.get(id)!), ...rest] };
}
