import type { WireRecord } from "../../src/api/wire.js";

/**
 * Builders of site records as the API sends them, for the planner tests: every field a course
 * or chapter has, with `stamp` as both timestamps; `chapterDefaults` gives a chapter's ordinal
 * and content when a test does not.
 */
export function recordBuilders(stamp: string, chapterDefaults: (id: number) => Record<string, unknown>) {
  return {
    course(id: number, fields: Record<string, unknown> = {}): WireRecord {
      return {
        id,
        title: `Course ${id}`,
        slug: `course-${id}`,
        status: "draft",
        excerpt: "",
        free: false,
        questions_enabled: false,
        scheduled_at: null,
        published_at: null,
        created_at: stamp,
        updated_at: stamp,
        ...fields,
      };
    },
    chapter(id: number, courseId: number, fields: Record<string, unknown> = {}): WireRecord {
      return {
        id,
        course_id: courseId,
        title: `Chapter ${id}`,
        created_at: stamp,
        updated_at: stamp,
        ...chapterDefaults(id),
        ...fields,
      };
    },
  };
}
