import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseChapterFile } from "../tree/chapter-file.js";
import { parseCourseFile } from "../tree/course-file.js";
import { COURSE_FILE, COURSES_DIR, isConflictCopy } from "../tree/layout.js";
import { FileProblem } from "../tree/yaml-text.js";
import {
  type ChapterRecord,
  type CourseRecord,
  isSlug,
  type StateDump,
  slugify,
  uniqueSlug,
} from "./records.js";

interface SeedEntry<T> {
  file: string;
  id: number | undefined;
  value: T;
}

type SeedCourse = SeedEntry<ReturnType<typeof parseCourseFile>> & { folder: string };
type SeedChapter = SeedEntry<ReturnType<typeof parseChapterFile>> & { course: number };

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

async function listDir(path: string) {
  const entries = await readdir(path, { withFileTypes: true });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Give every entry an id: its own when it has one (unique), else the next above the maximum. */
function assignIds<T>(entries: Array<SeedEntry<T>>, what: string): number[] {
  const owners = new Map<number, string>();
  for (const entry of entries) {
    if (entry.id === undefined) continue;
    const other = owners.get(entry.id);
    if (other !== undefined) {
      throw new FileProblem(
        entry.file,
        undefined,
        `${what} id ${entry.id} is also used by ${other}`,
        "Give each file its own id.",
        { rule: "duplicate-id" },
      );
    }
    owners.set(entry.id, entry.file);
  }
  let next = 1;
  for (const id of owners.keys()) if (id >= next) next = id + 1;
  return entries.map((entry) => entry.id ?? next++);
}

/**
 * Read a seed tree: `<dir>/courses/<folder>/course.yaml` plus the folder's `*.md` chapters
 * (`*.remote.md` skipped). Chapters must be `format: html`: their body is the content as is.
 * Records keep the ids in the files; files without one get fresh ids above the maximum. Every
 * record is stamped `stamp`. Throws FileProblem naming the file (and line) on any problem.
 */
export async function loadSeed(dir: string, stamp: string): Promise<StateDump> {
  const { courses, chapters } = await readSeed(dir);
  const courseIds = assignIds(courses, "course");
  const chapterIds = assignIds(chapters, "chapter");
  const slugs = new Set<string>();
  const courseRecords = courses.map(({ value, folder }, index): CourseRecord => {
    const base = isSlug(folder) ? folder : slugify(value.title as string);
    const slug = uniqueSlug(base, (candidate) => slugs.has(candidate));
    slugs.add(slug);
    return {
      id: courseIds[index]!,
      // parseCourseFile checked every value's type.
      title: value.title as string,
      slug,
      status: value.status as string,
      created_at: stamp,
      updated_at: stamp,
      scheduled_at: value.scheduled_at as string | null,
      published_at: value.published_at as string | null,
      excerpt: value.excerpt as string | null,
      free: (value.free as boolean | null) ?? false,
      questions_enabled: (value.questions_enabled as boolean | null) ?? false,
    };
  });
  const chapterRecords = chapters.map(
    ({ value, course }, index): ChapterRecord => ({
      id: chapterIds[index]!,
      course_id: courseIds[course]!,
      title: value.title as string,
      content: value.body,
      created_at: stamp,
      updated_at: stamp,
      ordinal: value.ordinal as number,
    }),
  );
  return { courses: courseRecords, chapters: chapterRecords, events: [] };
}

/** The seed tree's course and chapter files, parsed, in folder and name order. */
async function readSeed(dir: string): Promise<{ courses: SeedCourse[]; chapters: SeedChapter[] }> {
  const coursesDir = join(dir, COURSES_DIR);
  let folders: Awaited<ReturnType<typeof listDir>>;
  try {
    folders = await listDir(coursesDir);
  } catch (error) {
    if (!isMissing(error)) throw error;
    throw new FileProblem(
      coursesDir,
      undefined,
      "the seed has no courses folder",
      "A seed is a tree with courses/<folder>/course.yaml and chapter files; use --empty for an empty site.",
    );
  }
  const courses: SeedCourse[] = [];
  const chapters: SeedChapter[] = [];
  for (const folder of folders) {
    if (!folder.isDirectory() || folder.name.startsWith(".")) continue;
    const courseFile = join(coursesDir, folder.name, COURSE_FILE);
    let text: string;
    try {
      text = await readFile(courseFile, "utf8");
    } catch (error) {
      if (!isMissing(error)) throw error;
      throw new FileProblem(
        courseFile,
        undefined,
        "the course folder has no course.yaml",
        "Add one or remove the folder.",
      );
    }
    const course = parseCourseFile(text, courseFile, { strict: true });
    courses.push({ file: courseFile, id: course.id, value: course, folder: folder.name });
    for (const entry of await listDir(join(coursesDir, folder.name))) {
      if (!entry.isFile() || !entry.name.endsWith(".md") || isConflictCopy(entry.name)) continue;
      const file = join(coursesDir, folder.name, entry.name);
      const chapter = parseChapterFile(await readFile(file, "utf8"), file, { strict: true });
      if (chapter.format !== "html") {
        throw new FileProblem(
          file,
          undefined,
          "the emulator seeds only HTML chapters",
          'Add "format: html" to the front matter; the body is then served as the chapter content.',
        );
      }
      chapters.push({ file, id: chapter.id, value: chapter, course: courses.length - 1 });
    }
  }
  return { courses, chapters };
}
