import type { WireRecord } from "../../src/api/wire.js";
import { pulledFiles, treeOf } from "./tree.js";

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

const folderOf = (id: number) => `courses/course-${id}`;
const chapterFileOf = (record: WireRecord) =>
  `${folderOf(Number(record.course_id))}/${String(record.ordinal).padStart(2, "0")}-chapter-${record.id}.md`;

/**
 * A synced world: the snapshot a pull of these records leaves, and the local view of a tree
 * whose files still say what the snapshot says (course N in `courses/course-N`, chapter M at
 * `courses/course-N/0K-chapter-M.md` for ordinal K). Tests then edit the local side.
 */
export async function syncedWorld(courses: WireRecord[], chapters: WireRecord[]) {
  const layout = { folder: (record: WireRecord) => folderOf(record.id), file: chapterFileOf };
  const { files, snapshot } = pulledFiles(courses, chapters, layout);
  const { local } = await treeOf(files, snapshot);
  return { snapshot, local };
}
