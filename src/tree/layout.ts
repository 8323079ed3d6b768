import { runSteps, type Steps } from "../util/steps.js";
import { assignNames, chapterFileBase, courseFolderBase, ordinalNumber, ordinalWidth } from "./naming.js";

/** The folder under the root that holds one folder per course. */
export const COURSES_DIR = "courses";
/** The name of a course's own file inside its folder. */
export const COURSE_FILE = "course.yaml";
/** The name of a course file's conflict copy inside its folder. */
const COURSE_COPY = "course.remote.yaml";

/** The course.yaml path of a course folder. */
export function courseFilePath(folder: string): string {
  return `${folder}/${COURSE_FILE}`;
}

/** The file of a course (its course.yaml) or chapter at `where` (a folder or a chapter path). */
export function recordFilePath(kind: "course" | "chapter", where: string): string {
  return kind === "course" ? courseFilePath(where) : where;
}

/** The course folder (`courses/<name>`) a tree path lies in or names; undefined outside them. */
export function courseFolderContaining(relPath: string): string | undefined {
  // Asked for every record of a pull: no split of the whole path.
  if (!relPath.startsWith(`${COURSES_DIR}/`)) return undefined;
  const end = relPath.indexOf("/", COURSES_DIR.length + 1);
  return end === -1 ? relPath : relPath.slice(0, end);
}

/** Whether a tree path lies in (or names) one of these course folders. */
export function inCourseFolders(folders: ReadonlySet<string>): (relPath: string) => boolean {
  if (folders.size === 0) return () => false;
  return (relPath) => {
    const folder = courseFolderContaining(relPath);
    return folder !== undefined && folders.has(folder);
  };
}

/** The course folder a course.yaml path stands for; any other path is returned as it is. */
export function courseFolderOf(file: string): string {
  const suffix = `/${COURSE_FILE}`;
  return file.endsWith(suffix) ? file.slice(0, -suffix.length) : file;
}

/** The conflict copies as ignore patterns (for `.gitignore` and the scan's built-in rules). */
export const CONFLICT_COPY_PATTERNS: readonly string[] = ["*.remote.md", COURSE_COPY];

/** Whether a file name is one of coursesync's conflict copies. */
export function isConflictCopy(name: string): boolean {
  return name.endsWith(".remote.md") || name === COURSE_COPY;
}

/**
 * Where pull writes the site's version of a conflicted record beside its file: `01-intro.md` →
 * `01-intro.remote.md`, `courses/x/course.yaml` → `courses/x/course.remote.yaml`.
 */
export function conflictCopyPath(file: string): string {
  return file.endsWith(".md")
    ? file.replace(/\.md$/, ".remote.md")
    : file.replace(/course\.yaml$/, COURSE_COPY);
}

/** The file a conflict copy stands beside (the reverse of `conflictCopyPath`). */
export function fileOfConflictCopy(copy: string): string {
  return copy.endsWith(".remote.md")
    ? copy.replace(/\.remote\.md$/, ".md")
    : copy.replace(/course\.remote\.yaml$/, COURSE_FILE);
}

/** A course that will have a folder after the sync. */
export interface CourseSlot {
  /** Server id, or a negative stand-in for a local course not created yet. */
  id: number;
  /** As the site sent it: a title that is not text gives a name from the id. */
  title: unknown;
  slug?: unknown;
  /** Its folder name now (under courses/), if it has one. */
  current?: string | undefined;
  /** Keep the current name: what names it did not change on the site. */
  keep: boolean;
}

/** A chapter that will have a file after the sync. */
export interface ChapterSlot {
  id: number;
  /** The course slot id it belongs to. */
  course: number;
  title: unknown;
  ordinal: unknown;
  /** Its file name now (inside its course folder), if it has one. */
  current?: string | undefined;
  keep: boolean;
}

/** Where everything goes: folder per course, file path per chapter (relative, with /). */
export interface Layout {
  courseFolder: Map<number, string>;
  chapterFile: Map<number, string>;
}

/**
 * Decide every course folder and chapter file name: kept names first, then names from slugs
 * and ordinals, collisions made unique with the id. Pure and deterministic.
 */
export function planLayout(courses: readonly CourseSlot[], chapters: readonly ChapterSlot[]): Layout {
  return runSteps(planLayoutSteps(courses, chapters));
}

/** planLayout in steps (see util/steps.ts): a step per course's chapters. */
export function* planLayoutSteps(
  courses: readonly CourseSlot[],
  chapters: readonly ChapterSlot[],
): Steps<Layout> {
  const folders = assignNames(
    courses.map((c) => ({
      id: c.id,
      wanted:
        c.keep && c.current !== undefined
          ? c.current
          : courseFolderBase({ id: c.id > 0 ? c.id : undefined, title: c.title, slug: c.slug }),
      current: c.current,
    })),
  );
  const courseFolder = new Map<number, string>();
  // Joined, not concatenated: a template literal makes a rope of pieces, and a pull of 50,000
  // chapters keeps every path (in its plan and its snapshot) as three or four of them.
  for (const [id, name] of folders) courseFolder.set(id, [COURSES_DIR, name].join("/"));
  yield;

  const byCourse = new Map<number, ChapterSlot[]>();
  for (const chapter of chapters) {
    const list = byCourse.get(chapter.course) ?? [];
    list.push(chapter);
    byCourse.set(chapter.course, list);
  }
  const chapterFile = new Map<number, string>();
  for (const [course, list] of byCourse) {
    const folder = courseFolder.get(course);
    if (folder === undefined) throw new Error(`chapter of unknown course slot ${course}`);
    const width = ordinalWidth(list.map((c) => ordinalNumber(c.ordinal)));
    const names = assignNames(
      list.map((c) => ({
        id: c.id,
        wanted:
          c.keep && c.current !== undefined
            ? c.current.replace(/\.md$/, "")
            : chapterFileBase({ id: c.id > 0 ? c.id : undefined, title: c.title, ordinal: c.ordinal }, width),
        current: c.current?.replace(/\.md$/, ""),
      })),
    );
    for (const [id, name] of names) chapterFile.set(id, [folder, "/", name, ".md"].join(""));
    yield;
  }
  return { courseFolder, chapterFile };
}
