import type { WireRecord } from "../../src/api/wire.js";
import { openLocal } from "../../src/sync/local/open.js";
import type { LocalView } from "../../src/sync/local/view.js";
import {
  chapterFileText,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
  snapshotRecord,
} from "../../src/sync/model/entities.js";
import type { Snapshot } from "../../src/sync/state/snapshot-model.js";
import type { BodyCodec } from "../../src/tree/bodies.js";
import { htmlBodies } from "../../src/tree/codecs.js";
import { COURSE_FILE } from "../../src/tree/layout.js";
import type { ScanOptions, ScanResult } from "../../src/tree/scan.js";
import type { StatCache } from "../../src/tree/stat-cache.js";
import type { FileProblem } from "../../src/tree/yaml-text.js";
import { sha256 } from "../../src/util/hash.js";
import { testdir } from "./testdir.js";

// The one tree builder of the planner tests: files in memory become a real folder, read by the
// scan and the local view push and pull use, so a test's tree cannot drift from what they see.

/** A tree as text: `{"courses/web/course.yaml": "id: 1\n..."}`. */
export type Files = Record<string, string>;

/** Where a pull files each record: a course's folder, a chapter's file. */
export interface Layout {
  folder(course: WireRecord): string;
  file(chapter: WireRecord): string;
}

/** The files and the snapshot a pull of these records leaves (chapter bodies as HTML). */
export function pulledFiles(
  courses: readonly WireRecord[],
  chapters: readonly WireRecord[],
  layout: Layout,
  site = "http://127.0.0.1:1/api/v1",
): { files: Files; snapshot: Snapshot } {
  const files: Files = {};
  const snapshot: Snapshot = { version: 1, site, courses: {}, chapters: {} };
  for (const record of courses) {
    const folder = layout.folder(record);
    const text = courseFileText(record.id, courseValuesOfRecord(record));
    files[`${folder}/${COURSE_FILE}`] = text;
    snapshot.courses[record.id] = { path: folder, hash: sha256(text), record: snapshotRecord(record) };
  }
  for (const record of chapters) {
    const file = layout.file(record);
    const text = chapterFileText(record.id, chapterValuesOfRecord(record), htmlBodies);
    files[file] = text;
    snapshot.chapters[record.id] = { path: file, hash: sha256(text), record: snapshotRecord(record) };
  }
  return { files, snapshot };
}

/** How a test tree is read. */
export interface TreeOptions {
  /** @default HTML bodies, kept verbatim */
  bodies?: BodyCodec;
  parseAll?: ScanOptions["parseAll"];
  statCache?: StatCache | undefined;
}

/** What the scan and the local view see of a tree. */
export interface TreeSide {
  root: string;
  scan: ScanResult;
  local: LocalView;
  problems: FileProblem[];
}

/** The tree at `root` as push and pull see it against `snapshot`. */
export async function localOf(
  root: string,
  snapshot: Snapshot | undefined,
  options: TreeOptions = {},
): Promise<TreeSide> {
  const { scan, local, problems } = await openLocal(root, snapshot, {
    ignore: [],
    bodies: options.bodies ?? htmlBodies,
    parseAll: options.parseAll,
    statCache: options.statCache,
  });
  return { root, scan, local, problems };
}

/** A temp folder holding `files` (removed by cleanupTestdirs), as push and pull see it. */
export async function treeOf(
  files: Files,
  snapshot: Snapshot | undefined,
  options: TreeOptions = {},
): Promise<TreeSide> {
  return localOf(await testdir(files), snapshot, options);
}
