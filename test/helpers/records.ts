import type { WireRecord } from "../../src/api/wire.js";
import { chapterValuesOfRecord, courseValuesOfRecord, snapshotRecord } from "../../src/sync/entities.js";
import type { LocalView } from "../../src/sync/local-view.js";
import type { Snapshot } from "../../src/sync/snapshot.js";

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
 * A synced world in memory: the snapshot a pull of these records leaves, and a local view
 * whose files still say what the snapshot says (course N in `courses/course-N`, chapter M at
 * `courses/course-N/0K-chapter-M.md` for ordinal K). Tests then edit the local side.
 */
export function syncedWorld(courses: WireRecord[], chapters: WireRecord[]) {
  const snapshot: Snapshot = { version: 1, site: "http://127.0.0.1:1/api/v1", courses: {}, chapters: {} };
  const local: LocalView = {
    courses: new Map(),
    chapters: new Map(),
    courseByFolder: new Map(),
    problems: [],
  };
  for (const record of courses) {
    const folder = folderOf(record.id);
    snapshot.courses[record.id] = {
      path: folder,
      hash: `hash-c${record.id}`,
      record: snapshotRecord(record),
    };
    const key = `course:${record.id}`;
    local.courses.set(key, {
      id: record.id,
      key,
      folder,
      file: `${folder}/course.yaml`,
      hash: `hash-c${record.id}`,
      values: courseValuesOfRecord(record),
      unchanged: true,
    });
    local.courseByFolder.set(folder, key);
  }
  for (const record of chapters) {
    const file = chapterFileOf(record);
    snapshot.chapters[record.id] = {
      path: file,
      hash: `hash-ch${record.id}`,
      record: snapshotRecord(record),
    };
    const key = `chapter:${record.id}`;
    local.chapters.set(key, {
      id: record.id,
      key,
      file,
      folder: folderOf(Number(record.course_id)),
      courseKey: `course:${record.course_id}`,
      hash: `hash-ch${record.id}`,
      values: chapterValuesOfRecord(record),
      unchanged: true,
    });
  }
  return { snapshot, local };
}
