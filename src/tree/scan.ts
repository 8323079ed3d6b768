import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { sha256 } from "../util/hash.js";
import { type ChapterFile, readChapterFile } from "./chapter-file.js";
import { type CourseFile, readCourseFile } from "./course-file.js";
import { readFolder } from "./folder-entries.js";
import { tempFileOwner } from "./fs-ops.js";
import { ignoreMatcher } from "./ignore-rules.js";
import { COURSE_FILE, COURSES_DIR, inCourseFolders, isConflictCopy } from "./layout.js";
import { fileProblems, linkProblem, oddNameProblem, oddNameWarning, utf8Problem } from "./scan-problems.js";
import type { StatCache } from "./stat-cache.js";
import { type FieldLines, type FieldProblem, FileProblem } from "./yaml-text.js";

/** A course folder as found on disk. */
export interface ScannedCourse {
  /** The folder, relative to the root with /: `courses/<name>`. */
  folder: string;
  /** Its course.yaml, relative; undefined when the folder has none. */
  file: string | undefined;
  hash: string | undefined;
  /** Parsed fields; undefined when the file was not parsed (unchanged) or is missing. */
  parsed: CourseFile | undefined;
  /** The line of each key, when parsed. */
  lines?: FieldLines;
  /** Problems of values that count only where they are not the site's (see FieldProblem). */
  deferred?: FieldProblem[];
  /** An invalid file's values as far as they were read (for reporting all its problems). */
  partial?: CourseFile;
}

/** A chapter file as found on disk. */
export interface ScannedChapter {
  file: string;
  folder: string;
  hash: string;
  parsed: ChapterFile | undefined;
  /** The line of each key and of the body, when parsed. */
  lines?: FieldLines;
  /** Problems of values that count only where they are not the site's (see FieldProblem). */
  deferred?: FieldProblem[];
  /** An invalid file's values as far as they were read (for reporting all its problems). */
  partial?: ChapterFile;
}

/** What a scan of the tree found. */
export interface ScanResult {
  courses: ScannedCourse[];
  chapters: ScannedChapter[];
  /** Files that do not parse or do not fit the layout. */
  problems: FileProblem[];
  /** coursesync's own conflict copies (`*.remote.md`, `course.remote.yaml`) now in the tree. */
  copies: string[];
  /** Temp files of coursesync's atomic writes (a run killed mid-write leaves them). */
  temps: string[];
  /** What the scan skipped and the user should hear of: one message each, naming the path. */
  warnings: string[];
  /**
   * Files in a course folder named almost like a chapter or course.yaml (`.markdown`, `.MD`,
   * `course.yml`), which coursesync does not read.
   */
  lookalikes: string[];
  /** Whether a tree path is ignored (built-in rules and `ignore:`): the scan did not read it. */
  isIgnored?: (relPath: string) => boolean;
}

/**
 * Keep what reading a record file found: its values when it has no problem; else its problems,
 * and its values as far as they were read (an invalid file stands for a record that is
 * invalid here, never deleted).
 */
function keepRead<T>(
  entry: { parsed: T | undefined; partial?: T; lines?: FieldLines; deferred?: FieldProblem[] },
  read: { lines: FieldLines; deferred: FieldProblem[] },
  value: T | undefined,
  problems: FileProblem[],
  result: ScanResult,
): void {
  entry.lines = read.lines;
  entry.deferred = read.deferred;
  if (problems.length === 0) entry.parsed = value;
  else {
    result.problems.push(...problems);
    if (value) entry.partial = value;
  }
}

/** A name read as nothing that looks like a chapter or course.yaml: `.markdown`, `.MD`, `course.yml`. */
function isLookalike(name: string): boolean {
  if (/\.(md|markdown)$/i.test(name)) return !name.endsWith(".md");
  return /^course\.ya?ml$/i.test(name) && name !== COURSE_FILE;
}

/** How to scan: which files to parse and which to leave alone. */
export interface ScanOptions {
  /** gitignore-style patterns from coursesync.yaml. */
  ignore?: readonly string[];
  /**
   * Hashes of files as the last sync wrote them, by relative path: a file whose bytes still
   * hash the same is not parsed (its fields are the snapshot's).
   */
  knownHashes?: ReadonlyMap<string, string>;
  /** Hashes by stat from earlier runs, so unchanged files are not read (updated in place). */
  statCache?: StatCache;
  /**
   * Read only these course folders (`courses/<name>`): the rest is known unchanged. The stat
   * cache keeps its entries for the others.
   */
  folders?: ReadonlySet<string>;
  /** Parse every file even when its hash is known (e.g. to validate before a push). */
  parseAll?: boolean | ((relPath: string) => boolean);
}

function rel(...parts: string[]): string {
  return parts.join("/");
}

/**
 * Chapter files in a subfolder of a course folder, which coursesync does not read: said, so
 * that a chapter filed there is not taken for synced (assets and other files are fine).
 */
async function nestedChapters(
  root: string,
  folder: string,
  ignored: (relPath: string) => boolean,
  result: ScanResult,
): Promise<void> {
  for (const entry of await readFolder(path.join(root, ...folder.split("/")))) {
    const relPath = rel(folder, entry.name);
    const shown = rel(folder, entry.odd ?? entry.name);
    if (ignored(relPath)) continue;
    if (entry.isDirectory()) {
      if (entry.odd === undefined) await nestedChapters(root, relPath, ignored, result);
      else result.warnings.push(oddNameWarning(shown));
    } else if (entry.name.endsWith(".md")) {
      result.problems.push(
        new FileProblem(
          shown,
          undefined,
          "is in a subfolder of a course folder, where coursesync reads no chapters",
          "Move it up into the course folder, or add its folder to ignore: in coursesync.yaml.",
          { rule: "outside-course" },
        ),
      );
    }
  }
}

/** Report a name that is not UTF-8: invalid where a record could be, else skipped with a warning. */
function reportOddName(result: ScanResult, shown: string, recordPlace: boolean): void {
  if (recordPlace) result.problems.push(oddNameProblem(shown));
  else result.warnings.push(oddNameWarning(shown));
}

/** Reads a record file of the tree: its text and hash, and whether it needs parsing. */
type ReadFile = (
  relPath: string,
) => Promise<{ text: string; hash: string; parse: boolean; encoding?: FileProblem | undefined }>;

/** What scanning the course folders shares: where, what is ignored, the result so far. */
interface Scanning {
  root: string;
  ignored: (relPath: string) => boolean;
  result: ScanResult;
  read: ReadFile;
}

/** Read every course folder and chapter file under `courses/`. Never throws for file content. */
export async function scanTree(root: string, options: ScanOptions = {}): Promise<ScanResult> {
  const ignored = ignoreMatcher(options.ignore ?? []);
  const result: ScanResult = {
    courses: [],
    chapters: [],
    problems: [],
    copies: [],
    temps: [],
    warnings: [],
    lookalikes: [],
    isIgnored: ignored,
  };
  const folders = await courseFolderNames(root, options, ignored, result);
  if (folders === undefined) return result;
  const seen = new Set<string>();
  const scanning: Scanning = { root, ignored, result, read: fileReader(root, options, seen) };
  await Promise.all(folders.map((name) => scanCourseFolder(scanning, name)));
  const only = options.folders;
  options.statCache?.keepOnly(seen, only && inCourseFolders(only));
  result.courses.sort((a, b) => (a.folder < b.folder ? -1 : 1));
  result.chapters.sort((a, b) => (a.file < b.file ? -1 : 1));
  result.problems.sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0),
  );
  result.warnings.sort();
  return result;
}

/**
 * The course folders under `courses/` to read, sorted; what else is there is reported. Undefined
 * when there is no `courses/`.
 */
async function courseFolderNames(
  root: string,
  options: ScanOptions,
  ignored: (relPath: string) => boolean,
  result: ScanResult,
): Promise<string[] | undefined> {
  try {
    return (await readFolder(path.join(root, COURSES_DIR)))
      .filter((entry) => {
        const relPath = rel(COURSES_DIR, entry.name);
        if (entry.odd !== undefined) {
          const recordPlace = entry.isDirectory() || entry.name.endsWith(".md");
          if (!ignored(relPath)) reportOddName(result, rel(COURSES_DIR, entry.odd), recordPlace);
          return false;
        }
        if (entry.isFile() && tempFileOwner(entry.name) !== undefined) result.temps.push(relPath);
        if (ignored(relPath)) return false;
        if (entry.isSymbolicLink()) {
          result.problems.push(linkProblem(relPath));
          return false;
        }
        if (!entry.isDirectory()) {
          if (entry.name.endsWith(".md") || entry.name === COURSE_FILE) {
            result.problems.push(
              new FileProblem(
                relPath,
                undefined,
                "is not inside a course folder",
                "Move it into courses/<course>/.",
                { rule: "outside-course" },
              ),
            );
          }
          return false;
        }
        return true;
      })
      .map((entry) => entry.name)
      .filter((name) => !options.folders || options.folders.has(rel(COURSES_DIR, name)))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The reader of record files: through the stat cache and the known hashes; notes what it read in `seen`. */
function fileReader(root: string, options: ScanOptions, seen: Set<string>): ReadFile {
  const known = options.knownHashes ?? new Map<string, string>();
  const parseAll = options.parseAll;
  const mustParse = (relPath: string) =>
    typeof parseAll === "function" ? parseAll(relPath) : parseAll === true;
  return async (relPath) => {
    const full = path.join(root, ...relPath.split("/"));
    seen.add(relPath);
    const cache = options.statCache;
    // With the stat cache, a file whose stat and hash are unchanged is not even opened.
    // Stat and read are synchronous: for the small files of a tree, a promise's trips through
    // the thread pool (open, fstat, read, close) cost ten times the read itself.
    const stats = cache ? statSync(full) : undefined;
    const cached = cache && stats ? cache.get(relPath, stats) : undefined;
    if (cached !== undefined && !mustParse(relPath) && known.get(relPath) === cached) {
      return { text: "", hash: cached, parse: false };
    }
    const buffer = readFileSync(full);
    const hash = sha256(buffer);
    if (cache && stats) cache.set(relPath, stats, hash);
    const text = buffer.toString("utf8");
    const parse = mustParse(relPath) || known.get(relPath) !== hash;
    return { text, hash, parse, ...(parse ? { encoding: utf8Problem(relPath, buffer, text) } : {}) };
  };
}

/**
 * The files of one course folder that are not ignored, sorted by name; copies, temp files,
 * odd names, lookalikes and folders where a record's file belongs are noted on the way.
 */
async function courseFolderFiles(s: Scanning, folder: string): Promise<string[]> {
  const { root, ignored, result } = s;
  const all = [];
  for (const entry of await readFolder(path.join(root, ...folder.split("/")))) {
    if (entry.odd === undefined) all.push(entry);
    else if (!ignored(rel(folder, entry.name)))
      reportOddName(result, rel(folder, entry.odd), entry.name.endsWith(".md"));
  }
  for (const entry of all) {
    if (entry.isFile() && isConflictCopy(entry.name)) result.copies.push(rel(folder, entry.name));
    if (entry.isFile() && tempFileOwner(entry.name) !== undefined) result.temps.push(rel(folder, entry.name));
  }
  for (const entry of all) {
    const relPath = rel(folder, entry.name);
    if (entry.isFile() || ignored(relPath)) continue;
    // Not a file where a chapter or course.yaml would be: reading past it would take the
    // record for deleted here.
    if (entry.name.endsWith(".md") || entry.name === COURSE_FILE) {
      result.problems.push(
        entry.isSymbolicLink()
          ? linkProblem(relPath)
          : new FileProblem(relPath, undefined, "is a folder, not a file", "Rename the folder."),
      );
    } else if (entry.isDirectory()) {
      await nestedChapters(root, relPath, ignored, result);
    }
  }
  const entries = all
    .filter((entry) => entry.isFile() && !ignored(rel(folder, entry.name)))
    .map((entry) => entry.name)
    .sort();
  for (const name of entries) if (isLookalike(name)) result.lookalikes.push(rel(folder, name));
  return entries;
}

/** Scan one course folder: its course.yaml and its chapter files. */
async function scanCourseFolder(s: Scanning, name: string): Promise<void> {
  const { result } = s;
  const folder = rel(COURSES_DIR, name);
  const entries = await courseFolderFiles(s, folder);
  const course: ScannedCourse = { folder, file: undefined, hash: undefined, parsed: undefined };
  if (entries.includes(COURSE_FILE)) {
    const file = rel(folder, COURSE_FILE);
    const { text, hash, parse, encoding } = await s.read(file);
    course.file = file;
    course.hash = hash;
    if (parse) {
      const read = readCourseFile(text, file);
      keepRead(
        course,
        read,
        read.course,
        fileProblems(file, text, encoding, read.problems, "course"),
        result,
      );
    }
  }
  result.courses.push(course);
  const chapterNames = entries.filter((entry) => entry.endsWith(".md"));
  if (!course.file && chapterNames.length > 0) {
    result.problems.push(
      new FileProblem(
        folder,
        undefined,
        "holds chapter files but no course.yaml",
        "Add a course.yaml with at least a title, or move the chapters into a course folder.",
        { rule: "outside-course" },
      ),
    );
  }
  for (const entry of chapterNames) {
    const file = rel(folder, entry);
    const { text, hash, parse, encoding } = await s.read(file);
    const chapter: ScannedChapter = { file, folder, hash, parsed: undefined };
    if (parse) {
      const read = readChapterFile(text, file);
      keepRead(
        chapter,
        read,
        read.chapter,
        fileProblems(file, text, encoding, read.problems, read.chapter),
        result,
      );
    }
    result.chapters.push(chapter);
  }
}
