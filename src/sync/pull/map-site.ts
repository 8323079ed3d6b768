import type { WireRecord } from "../../api/wire.js";
import { ExitCode, UserError } from "../../errors.js";
import type { BodyCodec } from "../../tree/bodies.js";
import type { ScannedChapter, ScannedCourse, ScanResult } from "../../tree/scan.js";
import {
  bodyKey,
  chapterValuesOfRecord,
  courseValuesOfFile,
  courseValuesOfRecord,
  fieldsEqual,
  snapshotRecord,
  valuesEqual,
} from "../model/entities.js";
import type { SiteNames } from "../push/other-site.js";
import { emptyIdMap, SiteIds } from "../state/id-map.js";
import { emptySnapshot, type Snapshot, type SnapshotEntry } from "../state/snapshot-model.js";

// The first pull from a site that holds records and has no snapshot in this tree: its records
// are matched to the tree's files by content, so that the site's ids can be mapped to the
// files' ids (the default site's). Courses match by title, chapters by title and ordinal inside
// a matched course, each unique on both sides. Nothing is ever created or deleted from this.

/** What a mapping found: the site's first snapshot and what to tell. */
export interface SiteMapping {
  /**
   * The snapshot to pull with: every match mapped; an exact one with its entry (file and record
   * agree), one that differs with an entry marked `conflict` (the pull reports it, with both
   * sides, and push sends nothing for it until it is resolved).
   */
  snapshot: Snapshot;
  /** Tree records the site does not have (a later push creates them there). */
  notOnSite: string[];
  /** Content the entries name by hash, for the content cache. */
  texts: string[];
}

interface Pair<T> {
  tree: T;
  site: WireRecord;
}

/** A side of a match, grouped by key: keys held once on both sides pair; any other is ambiguous. */
function pairUp<T>(
  tree: readonly T[],
  site: readonly WireRecord[],
  treeKey: (t: T) => string,
  siteKey: (r: WireRecord) => string,
): { pairs: Pair<T>[]; ambiguous: Array<{ key: string; tree: T[]; site: WireRecord[] }>; treeOnly: T[] } {
  const trees = new Map<string, T[]>();
  for (const t of tree) trees.set(treeKey(t), [...(trees.get(treeKey(t)) ?? []), t]);
  const sites = new Map<string, WireRecord[]>();
  for (const r of site) sites.set(siteKey(r), [...(sites.get(siteKey(r)) ?? []), r]);
  const pairs: Pair<T>[] = [];
  const ambiguous: Array<{ key: string; tree: T[]; site: WireRecord[] }> = [];
  const treeOnly: T[] = [];
  for (const [key, mine] of trees) {
    const theirs = sites.get(key) ?? [];
    if (theirs.length === 0) treeOnly.push(...mine);
    else if (mine.length === 1 && theirs.length === 1) pairs.push({ tree: mine[0]!, site: theirs[0]! });
    else ambiguous.push({ key, tree: mine, site: theirs });
  }
  for (const [key, theirs] of sites)
    if (!trees.has(key) && theirs.length > 1) ambiguous.push({ key, tree: [], site: theirs });
  return { pairs, ambiguous, treeOnly };
}

/**
 * Map a site with records and no snapshot to the tree by content (see the top of this file).
 * Any title (or chapter title and ordinal) held more than once on either side of a match stops
 * it with every such record listed from both sides: nothing is written, as a guess could pair
 * the wrong two.
 */
export function mapSite(
  names: SiteNames,
  scan: ScanResult,
  listed: { courses: readonly WireRecord[]; chapters: readonly WireRecord[] },
  bodies: BodyCodec,
): SiteMapping {
  const courses = scan.courses.filter(
    (c): c is ScannedCourse & { file: string } => c.file !== undefined && c.parsed?.id !== undefined,
  );
  const titleOf = (value: unknown) => String(value ?? "");
  const byCourse = pairUp(
    courses,
    listed.courses,
    (c) => titleOf(c.parsed!.title),
    (r) => titleOf(r.title),
  );
  const ambiguous: string[] = byCourse.ambiguous.map(
    (a) =>
      `course title "${a.key}": here ${a.tree.map((c) => c.folder).join(", ") || "none"}; on "${names.site}" ${a.site.map((r) => `course ${r.id}`).join(", ") || "none"}`,
  );
  const snapshot: Snapshot = { ...emptySnapshot(names.siteUrl), ids: emptyIdMap() };
  if (names.body) snapshot.body = names.body;
  const ids = new SiteIds(emptyIdMap());
  const notOnSite = byCourse.treeOnly.map((c) => c.file);
  const texts: string[] = [];
  const chapterPairs: Array<Pair<ScannedChapter>> = [];
  for (const { tree, site } of byCourse.pairs) ids.set("course", tree.parsed!.id!, site.id);
  for (const { tree, site } of byCourse.pairs) {
    const mine = scan.chapters.filter((c) => c.folder === tree.folder && c.parsed?.id !== undefined);
    const theirs = listed.chapters.filter((r) => Number(r.course_id) === site.id);
    const key = (title: unknown, ordinal: unknown) => `${titleOf(title)}\u0000${String(ordinal ?? "")}`;
    const inCourse = pairUp(
      mine,
      theirs,
      (c) => key(c.parsed!.title, c.parsed!.ordinal),
      (r) => key(r.title, r.ordinal),
    );
    for (const a of inCourse.ambiguous) {
      const [title, ordinal] = a.key.split("\u0000");
      ambiguous.push(
        `chapter "${title}" (ordinal ${ordinal}) in ${tree.folder}: here ${a.tree.map((c) => c.file).join(", ") || "none"}; on "${names.site}" ${a.site.map((r) => `chapter ${r.id}`).join(", ") || "none"}`,
      );
    }
    notOnSite.push(...inCourse.treeOnly.map((c) => c.file));
    chapterPairs.push(...inCourse.pairs);
    const record = snapshotRecord(ids.recordToTree("course", site));
    const same = valuesEqual(courseValuesOfFile(tree.parsed!), courseValuesOfRecord(record));
    snapshot.courses[tree.parsed!.id!] = entryOf(tree.folder, tree.hash ?? "", record, same);
  }
  if (ambiguous.length > 0) {
    throw new UserError(
      `site "${names.site}" holds records and has no snapshot in this tree, and some of them cannot be matched to one file each; nothing was changed:\n  ${ambiguous.join("\n  ")}`,
      {
        hint: `Make each of these titles unique (on the site, or here and push to the default site first), then run \`coursesync pull --site ${names.site}\` again: it maps what equals the tree and lists what differs.`,
        exitCode: ExitCode.stopped,
      },
    );
  }
  for (const { tree, site } of chapterPairs) {
    const id = tree.parsed!.id!;
    ids.set("chapter", id, site.id);
    const { entry, content } = mappedChapter(tree, ids.recordToTree("chapter", site), bodies);
    if (content !== undefined) texts.push(content);
    snapshot.chapters[id] = entry;
  }
  snapshot.ids = {
    courses: Object.fromEntries(byCourse.pairs.map((p) => [String(p.tree.parsed!.id), p.site.id])),
    chapters: Object.fromEntries(chapterPairs.map((p) => [String(p.tree.parsed!.id), p.site.id])),
  };
  return { snapshot, notOnSite, texts };
}

/** A chapter file matched to the site's record (under tree ids): its entry, and the site's text. */
function mappedChapter(
  tree: ScannedChapter,
  record: WireRecord,
  bodies: BodyCodec,
): { entry: SnapshotEntry; content: string | undefined } {
  const parsed = tree.parsed!;
  const remote = chapterValuesOfRecord(record);
  const html = parsed.content ? undefined : bodies.toHtml(parsed.body, parsed.format, tree.file);
  const content = remote.content;
  const sameContent =
    typeof content === "string" &&
    html !== undefined &&
    (html === content || (parsed.format === "markdown" && bodies.equivalent?.(html, content) === true));
  const same =
    sameContent &&
    fieldsEqual("title", parsed.title, remote.title) &&
    fieldsEqual("ordinal", parsed.ordinal, remote.ordinal);
  const entry = entryOf(tree.file, tree.hash, snapshotRecord(record), same);
  return {
    entry: same ? { ...entry, body: bodyKey(parsed.format, parsed.body) } : entry,
    content: typeof content === "string" ? content : undefined,
  };
}

/** An entry for a match: the file as it is when it equals the site; else marked a conflict. */
function entryOf(path: string, hash: string, record: WireRecord, same: boolean): SnapshotEntry {
  return same ? { path, hash, record } : { path, hash: CONFLICT, record, conflict: true };
}

/** The hash of an entry no file has: the file is always read and compared. */
const CONFLICT = "conflict";
