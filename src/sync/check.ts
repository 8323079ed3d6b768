import type { BodyCodec } from "../tree/bodies.js";
import type { ChapterFile } from "../tree/chapter-file.js";
import { COURSE_FILE } from "../tree/layout.js";
import { ordinalPrefix } from "../tree/naming.js";
import type { ScannedChapter, ScanResult } from "../tree/scan.js";
import type { Limits } from "../tree/schema.js";
import { FileProblem } from "../tree/yaml-text.js";
import { likelyDuplicates } from "./duplicates.js";
import { inPaths } from "./local/changes.js";
import { openLocal } from "./local/open.js";
import { DuplicateId, type LocalView, notTheSites } from "./local/view.js";
import {
  bodyKey,
  type Content,
  chapterValuesOfRecord,
  courseValuesOfFile,
  courseValuesOfRecord,
} from "./model/entities.js";
import type { Snapshot } from "./state/snapshot-model.js";
import { SiteState } from "./state/workspace.js";
import { chapterProblems, courseProblems, unknownIdProblems, valueProblems } from "./value-checks.js";

/** What `check` is told: the tree, how it is read, and which files to report on. */
export interface CheckOptions {
  root: string;
  /** The site whose committed snapshot says which values are the site's own. */
  site: string;
  ignore: readonly string[];
  bodies: BodyCodec;
  limits: Limits;
  /** Tree paths to report on; duplicate ids are still looked for in the whole tree. */
  paths?: readonly string[] | undefined;
}

/** Every problem of the files checked, and what the check stood on. */
export interface CheckResult {
  problems: FileProblem[];
  /** How many record files (course.yaml and chapters) were checked. */
  files: number;
  /** Whether a snapshot was there to tell the site's own values from edits. */
  snapshot: boolean;
  /** What the scan skipped, one message each. */
  warnings: string[];
}

/**
 * Check a tree offline as push would, reporting every problem of every file: no lock, no
 * credentials, no network, and nothing written (no stat cache: every file is read anyway).
 */
export async function checkTree(options: CheckOptions): Promise<CheckResult> {
  const { root, site, paths } = options;
  const state = SiteState.open(root, site);
  const snapshot = await state.loadSnapshot();
  const { scan, local } = await openLocal(root, snapshot, {
    ignore: options.ignore,
    bodies: options.bodies,
    parseAll: true,
    cache: state.cache,
  });
  const problems = treeProblems({
    scan,
    local,
    snapshot,
    bodies: options.bodies,
    limits: options.limits,
  }).filter(
    (problem) =>
      inPaths(problem.file, paths) || (problem instanceof DuplicateId && inPaths(problem.other, paths)),
  );
  const files = [...scan.courses.map((c) => c.file), ...scan.chapters.map((c) => c.file)].filter(
    (file): file is string => file !== undefined && inPaths(file, paths),
  ).length;
  const copies = snapshot ? likelyDuplicates(snapshot) : [];
  return { problems, files, snapshot: snapshot !== undefined, warnings: [...scan.warnings, ...copies] };
}

/** A tree as read for a check: the scan, the local view built from it, and what judges it. */
export interface ReadTree {
  scan: ScanResult;
  local: LocalView;
  snapshot: Snapshot | undefined;
  bodies: BodyCodec;
  limits: Limits;
}

/**
 * Every problem of a scanned tree, sorted by file, line and column. Values the snapshot holds
 * as the site's own are judged as push judges them; without a snapshot every value is.
 */
function treeProblems(tree: ReadTree): FileProblem[] {
  const { scan, local, snapshot, limits } = tree;
  const all = [
    ...scan.problems,
    // Duplicates are looked for across every file below, valid or not.
    ...local.problems.filter((problem) => !(problem instanceof DuplicateId)),
    ...duplicateIdProblems(scan),
    ...valueProblems(scan, local, snapshot, limits),
    // Without a snapshot every id is unknown: push refuses such a tree until a pull anyway.
    ...(snapshot ? unknownIdProblems(scan, local, snapshot) : []),
    ...(snapshot ? clearedProblems(scan, local, snapshot) : []),
    ...unviewedProblems(tree),
    ...prefixProblems(scan),
    ...lookalikeProblems(scan),
  ];
  // A value's problem can be found twice (a chapter the local view reported, then left out).
  const seen = new Set<string>();
  const unique = all.filter((p) => {
    const key = JSON.stringify([p.file, p.line, p.column, p.rule, p.problem]);
    return !seen.has(key) && seen.add(key) !== undefined;
  });
  return unique.sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}

/**
 * An id more than one file carries, across the whole tree (files push would stop at for
 * another reason too): each file after the first is named with the first.
 */
function duplicateIdProblems(scan: ScanResult): FileProblem[] {
  const owners = new Map<string, string>();
  const out: FileProblem[] = [];
  const entries = [
    ...scan.courses.map((c) => ({
      kind: "course",
      file: c.file,
      read: c.parsed ?? c.partial,
      lines: c.lines,
    })),
    ...scan.chapters.map((c) => ({
      kind: "chapter",
      file: c.file,
      read: c.parsed ?? c.partial,
      lines: c.lines,
    })),
  ];
  for (const { kind, file, read, lines } of entries) {
    if (file === undefined || read?.id === undefined) continue;
    const key = `${kind}:${read.id}`;
    const other = owners.get(key);
    if (other === undefined) owners.set(key, file);
    else out.push(new DuplicateId(file, lines?.id ?? (kind === "chapter" ? 2 : 1), other));
  }
  return out;
}

/**
 * The rest of the problems of files the local view did not read (invalid for another reason,
 * or in a course folder whose course.yaml is): their values' types, dates, characters, sizes.
 */
function unviewedProblems({ scan, local, snapshot, bodies, limits }: ReadTree): FileProblem[] {
  const out: FileProblem[] = [];
  const viewed = new Set([
    ...[...local.courses.values()].map((c) => c.file),
    ...[...local.chapters.values()].map((c) => c.file),
  ]);
  for (const scanned of scan.courses) {
    const { file } = scanned;
    const course = scanned.parsed ?? scanned.partial;
    if (!course || file === undefined || (scanned.parsed && viewed.has(file))) continue;
    const entry = course.id === undefined ? undefined : snapshot?.courses[course.id];
    out.push(...notTheSites(scanned.deferred, entry && courseValuesOfRecord(entry.record)));
    const mine = { id: course.id, file, values: courseValuesOfFile(course) };
    out.push(...courseProblems(mine, scanned.lines, snapshot, limits));
  }
  for (const scanned of scan.chapters) {
    const { file } = scanned;
    const chapter = scanned.parsed ?? scanned.partial;
    if (!chapter || (scanned.parsed && viewed.has(file))) continue;
    const entry = chapter.id === undefined ? undefined : snapshot?.chapters[chapter.id];
    out.push(...notTheSites(scanned.deferred, entry && chapterValuesOfRecord(entry.record)));
    const content = readContent(chapter, file, entry?.body, bodies, out);
    const mine = { id: chapter.id, file, values: { content } };
    out.push(...chapterProblems(mine, chapter, scanned.lines, snapshot, limits));
  }
  return out;
}

/** The content a chapter file the local view left out stands for, as far as it can be read. */
function readContent(
  chapter: ChapterFile,
  file: string,
  baseBody: string | undefined,
  bodies: BodyCodec,
  problems: FileProblem[],
): Content {
  if (chapter.content) return { literal: chapter.content.literal };
  // The body the last sync wrote: the site's own, never refused.
  if (baseBody === bodyKey(chapter.format, chapter.body)) return { literal: undefined };
  try {
    return bodies.toHtml(chapter.body, chapter.format, file);
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error;
    problems.push(error);
    return { literal: undefined };
  }
}

/**
 * A yes/no line removed from a course.yaml whose record has a value: push would send null,
 * which the site refuses.
 */
function clearedProblems(scan: ScanResult, local: LocalView, snapshot: Snapshot): FileProblem[] {
  const lines = new Map(scan.courses.map((c) => [c.file, c.lines]));
  return [...local.courses.values()].flatMap((course) => {
    const entry = course.id === undefined ? undefined : snapshot.courses[course.id];
    if (!entry || course.unchanged) return [];
    const base = courseValuesOfRecord(entry.record);
    return (["free", "questions_enabled"] as const)
      .filter((field) => course.values[field] == null && base[field] != null)
      .map(
        (field) =>
          new FileProblem(
            course.file,
            lines.get(course.file)?.[field],
            `${field} is missing: the site takes only true or false`,
            `Put the line back, for example ${field}: ${String(base[field])}.`,
            { rule: "required" },
          ),
      );
  });
}

/**
 * A chapter file whose number prefix is not its ordinal (`03-intro.md` with `ordinal: 5`).
 * Pull names files by ordinal and keeps a name until the site changes the ordinal, so the two
 * would disagree for good. A name without a number prefix (a new file) is fine.
 */
function prefixProblems(scan: ScanResult): FileProblem[] {
  return scan.chapters.flatMap((scanned: ScannedChapter) => {
    const chapter = scanned.parsed ?? scanned.partial;
    const name = scanned.file.slice(scanned.file.lastIndexOf("/") + 1);
    const match = /^(n?)(\d+)-(.*)$/.exec(name);
    if (!chapter || !match || !Number.isSafeInteger(chapter.ordinal)) return [];
    const [, negative, digits = "", rest] = match;
    const named = (negative ? -1 : 1) * Number(digits);
    const ordinal = chapter.ordinal as number;
    if (named === ordinal) return [];
    const wanted = `${ordinalPrefix(ordinal, digits.length)}-${rest}`;
    return [
      new FileProblem(
        scanned.file,
        scanned.lines?.ordinal,
        `ordinal is ${ordinal}, but the file name says ${negative}${digits}`,
        `Rename the file to ${wanted}, or set ordinal: ${named}. Pull names chapter files by their ordinal.`,
        { rule: "ordinal-prefix" },
      ),
    ];
  });
}

/** Files in a course folder that look like a chapter or course.yaml but are never read. */
function lookalikeProblems(scan: ScanResult): FileProblem[] {
  return scan.lookalikes.map((file) => {
    const name = file.slice(file.lastIndexOf("/") + 1);
    const course = /^course\.ya?ml$/i.test(name);
    const wanted = course ? COURSE_FILE : name.replace(/\.(md|markdown)$/i, ".md");
    return new FileProblem(
      file,
      undefined,
      `is ignored: coursesync reads only ${course ? "course.yaml" : "chapter files ending in .md (lower case)"}`,
      `Rename it to ${wanted}, or add it to ignore: in coursesync.yaml.`,
      { rule: "ignored-extension" },
    );
  });
}
