import { readFile } from "node:fs/promises";
import type { Config } from "../config/config.js";
import { localDiffs } from "../sync/diff.js";
import { inPaths } from "../sync/local/changes.js";
import { type LocalSide, type OpenLocalOptions, openLocal } from "../sync/local/open.js";
import type { LocalChapter, LocalView } from "../sync/local/view.js";
import { isLiteral } from "../sync/model/entities.js";
import type { ContentCache } from "../sync/state/content-cache.js";
import { type SiteSnapshot, siteSnapshot } from "../sync/state/site-snapshot.js";
import type { Snapshot } from "../sync/state/snapshot-model.js";
import { SiteState } from "../sync/state/workspace.js";
import { type StatusEntry, sideStatus } from "../sync/status.js";
import type { BodyCodec } from "../tree/bodies.js";
import { bodyCodec } from "../tree/codecs.js";
import { abs } from "../tree/fs-ops.js";
import { COURSE_FILE, courseFolderContaining, recordFilePath } from "../tree/layout.js";
import type { ScannedChapter, ScannedCourse } from "../tree/scan.js";
import type { Limits } from "../tree/schema.js";
import type { FileProblem } from "../tree/yaml-text.js";
import { chapterFields, chaptersByFile, parsedChapter } from "./chapter-read.js";

// What the preview shows, read afresh from the tree and the snapshot for each page: the same
// scan, view and status the commands use, so that the page says what they would.

/** A sync state as the preview shows it: status's states, and `unchanged` for a quiet file. */
export type PreviewState = StatusEntry["state"] | "unchanged";

/** One state line of a file: what status says of it, and its message (with the line). */
export interface StateLine {
  state: PreviewState;
  message?: string | undefined;
  fields?: readonly string[] | undefined;
  /** For a conflict: the site's version, written beside the file by pull. */
  copy?: string | undefined;
}

/** A chapter file, or a chapter the last sync knew that is gone from the tree. */
export interface PreviewChapter {
  /** Tree path, e.g. `courses/web/01-intro.md`. */
  file: string;
  name: string;
  id: number | undefined;
  title: string;
  ordinal: number | undefined;
  /** The first of `states` by weight: what the chapter's badge says. */
  state: PreviewState;
  states: StateLine[];
  /** The file's problems (invalid values, conflict markers), each with its line. */
  problems: FileProblem[];
  /** The file does not parse: the page shows its text with the problem lines marked. */
  invalid: boolean;
  /** The file is gone (deleted since the last sync). */
  deleted: boolean;
}

/** A course folder. */
export interface PreviewCourse {
  folder: string;
  name: string;
  file: string;
  id: number | undefined;
  /** course.yaml's values as far as they were read, in file order. */
  values: Record<string, unknown>;
  title: string;
  state: PreviewState;
  states: StateLine[];
  problems: FileProblem[];
  invalid: boolean;
  chapters: PreviewChapter[];
}

/** The whole tree as the preview shows it. */
export interface PreviewModel {
  site: { name: string; url: string };
  root: string;
  courses: PreviewCourse[];
  /** What the scan warned of (names that are not UTF-8 and the like). */
  warnings: string[];
  /** For a chapter's HTML and its diff (see `sourceFor`). */
  source: PreviewSource;
  /** Course folders read again since `source` was, each with what it was read from. */
  parts?: ReadonlyMap<string, PreviewSource> | undefined;
  reading: Reading;
}

/** What the model was read from: enough to render a chapter and diff it against the last sync. */
export interface PreviewSource {
  root: string;
  snapshot: Snapshot;
  local: LocalView;
  cache: ContentCache;
  bodies: BodyCodec;
  scanned: ReadonlyMap<string, ScannedChapter>;
}

/** Where the preview reads: the tree, its config, and the site and paths asked for. */
export interface ModelOptions {
  root: string;
  config: Config;
  site?: string | undefined;
  url?: string | undefined;
  paths?: readonly string[] | undefined;
  /** The site and its snapshot as the caller loaded them (siteSnapshot): not loaded again. */
  loaded?: SiteSnapshot | undefined;
}

/** The order status's states are shown in, most pressing first. */
const WEIGHT: Record<PreviewState, number> = {
  conflict: 0,
  invalid: 1,
  untracked: 2,
  new: 3,
  deleted: 4,
  moved: 5,
  modified: 6,
  renamed: 7,
  unchanged: 8,
};

/** How the model's tree was read: to read some of its course folders again. */
export interface Reading {
  root: string;
  /** The site's snapshot as loaded. */
  snapshot: Snapshot;
  open: OpenLocalOptions<Snapshot>;
  limits: Limits;
  paths: readonly string[] | undefined;
}

/** Read the tree, the snapshot and the status of every file, as `coursesync status` does. */
export async function readModel(options: ModelOptions): Promise<PreviewModel> {
  const { root, config, paths } = options;
  const tree = { root, config };
  const { site, snapshot, names, other } =
    options.loaded ?? (await siteSnapshot(tree, { site: options.site, url: options.url }));
  const bodies = bodyCodec(config.body);
  const cache = SiteState.open(root, site.name).cache;
  const warnings: string[] = [];
  // Course files are parsed (the page shows their values in file order); chapter files only when
  // changed: an unchanged one's title and ordinal are the snapshot's. Another site's snapshot
  // does not know the default site's files: all are parsed.
  const parseAll = other ? true : (file: string) => file.endsWith(`/${COURSE_FILE}`);
  const open = { ignore: config.ignore, bodies, cache, other: other ? names : undefined, parseAll };
  const side = await openLocal(root, snapshot, { ...open, onWarning: (w) => warnings.push(w) });
  const reading = { root, snapshot, open, limits: config.limits, paths };
  return {
    site,
    root,
    courses: sortCourses(coursesOf(side, reading)),
    warnings,
    source: sourceOf(root, side, cache, bodies),
    reading,
  };
}

/** What a chapter file is rendered and diffed from: its course folder's last read. */
export function sourceFor(model: PreviewModel, file: string): PreviewSource {
  const folder = courseFolderContaining(file);
  return (folder === undefined ? undefined : model.parts?.get(folder)) ?? model.source;
}

export function sourceOf(
  root: string,
  side: LocalSide<Snapshot>,
  cache: ContentCache,
  bodies: BodyCodec,
): PreviewSource {
  const scanned = new Map(side.scan.chapters.map((chapter) => [chapter.file, chapter]));
  return { root, snapshot: side.snapshot, local: side.local, cache, bodies, scanned };
}

/** The courses a side read, with their chapters and states (status made from the same read). */
export function coursesOf(side: LocalSide<Snapshot>, reading: Reading): PreviewCourse[] {
  const { paths } = reading;
  const entries = sideStatus(side, { limits: reading.limits });
  const byFile = statesByFile(entries);
  const problems = new Map<string, FileProblem[]>();
  for (const problem of side.problems)
    problems.set(problem.file, [...(problems.get(problem.file) ?? []), problem]);
  const lookup = { byFile, problems, root: reading.root, local: chaptersByFile(side.local) };
  const byFolder = new Map<string, ScannedChapter[]>();
  for (const chapter of side.scan.chapters) {
    if (!inPaths(chapter.file, paths)) continue;
    const list = byFolder.get(chapter.folder);
    if (list) list.push(chapter);
    else byFolder.set(chapter.folder, [chapter]);
  }
  const courses = side.scan.courses
    .filter((course) => inPaths(course.folder, paths))
    .map((course) => previewCourse(course, byFolder.get(course.folder) ?? [], lookup));
  addDeleted(courses, entries, reading.snapshot);
  return courses;
}

export function sortCourses(courses: PreviewCourse[]): PreviewCourse[] {
  return courses.sort((a, b) => byId(a.id, b.id) || (a.folder < b.folder ? -1 : 1));
}

/** Created records first, by id (the site's order), then new ones. */
function byId(a: number | undefined, b: number | undefined): number {
  return (a ?? Number.MAX_SAFE_INTEGER) - (b ?? Number.MAX_SAFE_INTEGER);
}

/** Status's lines by the file each is about. */
function statesByFile(entries: readonly StatusEntry[]): Map<string, StatusEntry[]> {
  const byFile = new Map<string, StatusEntry[]>();
  for (const entry of entries) {
    const file = entry.kind === "file" ? entry.path : recordFilePath(entry.kind, entry.path);
    byFile.set(file, [...(byFile.get(file) ?? []), entry]);
  }
  return byFile;
}

interface Lookup {
  byFile: ReadonlyMap<string, StatusEntry[]>;
  problems: ReadonlyMap<string, FileProblem[]>;
  root: string;
  /** The view's chapters by file: an unchanged file's values. */
  local: ReadonlyMap<string, LocalChapter>;
}

/** The state lines of a file, most pressing first; `unchanged` when status says nothing of it. */
function stateLines(file: string, lookup: Lookup): StateLine[] {
  const entries = lookup.byFile.get(file) ?? [];
  if (entries.length === 0) return [{ state: "unchanged" }];
  return entries
    .map((entry) => ({ state: entry.state, message: entry.message, fields: entry.fields, copy: entry.copy }))
    .sort((a, b) => WEIGHT[a.state] - WEIGHT[b.state]);
}

function text(value: unknown, fallback: string): string {
  return typeof value === "string" && value.trim() !== "" ? value : fallback;
}

/** A course, with its chapters (those of its folder within the paths shown). */
function previewCourse(
  course: ScannedCourse,
  chapters: readonly ScannedChapter[],
  lookup: Lookup,
): PreviewCourse {
  const file = course.file ?? `${course.folder}/${COURSE_FILE}`;
  const read = course.parsed ?? course.partial;
  const { id, ...values } = read ?? { id: undefined };
  const name = course.folder.slice(course.folder.lastIndexOf("/") + 1);
  const states = stateLines(file, lookup);
  const problems = lookup.problems.get(file) ?? [];
  return {
    folder: course.folder,
    name,
    file,
    id,
    values,
    title: text(read?.title, name),
    state: states[0]!.state,
    states,
    problems,
    invalid: course.parsed === undefined && problems.length > 0,
    chapters: chapters.map((chapter) => previewChapter(chapter, lookup)).sort(byOrdinal),
  };
}

function previewChapter(chapter: ScannedChapter, lookup: Lookup): PreviewChapter {
  const read = chapterFields(lookup.root, chapter, lookup.local);
  const name = chapter.file.slice(chapter.file.lastIndexOf("/") + 1);
  const states = stateLines(chapter.file, lookup);
  const problems = lookup.problems.get(chapter.file) ?? [];
  return {
    file: chapter.file,
    name,
    id: read.id,
    title: text(read.title, name),
    ordinal: typeof read.ordinal === "number" ? read.ordinal : undefined,
    state: states[0]!.state,
    states,
    problems,
    invalid: read.invalid,
    deleted: false,
  };
}

/** Chapters in ordinal order (those without one last), then by file name. */
function byOrdinal(a: PreviewChapter, b: PreviewChapter): number {
  const order = (a.ordinal ?? Number.POSITIVE_INFINITY) - (b.ordinal ?? Number.POSITIVE_INFINITY);
  return Number.isNaN(order) || order === 0 ? (a.file < b.file ? -1 : 1) : order;
}

/** Chapters deleted since the last sync, listed in their course with their state. */
function addDeleted(courses: PreviewCourse[], entries: readonly StatusEntry[], snapshot: Snapshot): void {
  for (const entry of entries) {
    if (entry.state !== "deleted" || entry.kind !== "chapter") continue;
    const course = courses.find((c) => entry.path.startsWith(`${c.folder}/`));
    const record = entry.id === undefined ? undefined : snapshot.chapters[entry.id]?.record;
    course?.chapters.push({
      file: entry.path,
      name: entry.path.slice(entry.path.lastIndexOf("/") + 1),
      id: entry.id,
      title: text(record?.title, entry.path),
      ordinal: typeof record?.ordinal === "number" ? record.ordinal : undefined,
      state: "deleted",
      states: [
        {
          state: "deleted",
          message: "deleted here since the last sync: push sends the delete with --delete",
        },
      ],
      problems: [],
      invalid: false,
      deleted: true,
    });
  }
}

/** A chapter's HTML as the preview shows it, or why there is none. */
export type ChapterHtml = { html: string } | { none: string };

/**
 * The HTML the site gets for a chapter file: for an edited body, what the next push sends (the
 * body codec's rendering, as push's own); for an unchanged one, the site's HTML of the last
 * sync (push sends nothing), else its rendering.
 */
export async function chapterHtml(source: PreviewSource, file: string): Promise<ChapterHtml> {
  const chapter = localChapter(source.local, file);
  if (!chapter) return { none: "This file does not parse: nothing would be sent for it." };
  const content = chapter.values.content;
  if (typeof content === "string") return { html: content };
  if (isLiteral(content)) {
    return { none: `The site's content is not text (${JSON.stringify(content.literal)}): it is never sent.` };
  }
  const cached = await source.cache.get(content.sha256);
  if (cached !== undefined) return { html: cached };
  // An unchanged file was not parsed: read now.
  const parsed = source.scanned.get(file)?.parsed ?? parsedChapter(source.root, file);
  if (parsed) return { html: source.bodies.toHtml(parsed.body, parsed.format, file) };
  return { none: "The last sync's HTML is not in the content cache, and the file does not parse." };
}

/** The tree's chapter at a file. */
export function localChapter(local: LocalView, file: string): LocalChapter | undefined {
  for (const chapter of local.chapters.values()) if (chapter.file === file) return chapter;
  return undefined;
}

/** A file's text, or undefined when it cannot be read. */
export async function fileText(root: string, file: string): Promise<string | undefined> {
  try {
    return await readFile(abs(root, file), "utf8");
  } catch {
    return undefined;
  }
}

/** A chapter file against the last sync, as `coursesync diff` compares them; undefined when unchanged. */
export async function chapterDiff(
  source: PreviewSource,
  file: string,
): Promise<{ before: string; after: string; what: string; missingBase?: boolean } | undefined> {
  const { root, snapshot, local, cache, bodies } = source;
  const diffs = await localDiffs(root, snapshot, local, { scope: [file], cache, bodies });
  const diff = diffs.find((d) => d.newName === file || d.oldName === file);
  if (!diff) return undefined;
  return {
    before: diff.before,
    after: diff.after,
    what: diff.what,
    ...(diff.missingBase ? { missingBase: true } : {}),
  };
}
