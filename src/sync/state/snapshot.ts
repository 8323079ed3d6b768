import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { WireRecord } from "../../api/wire.js";
import type { FolderData } from "../../tree/folder-thread.js";
import { guardedFs, type TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import { stableStringify } from "../../util/stable-json.js";
import { unignoreFolders } from "./git-files.js";
import type { IdMap } from "./id-map.js";
import { STATE_DIR, statePaths } from "./paths.js";
import {
  COURSES_DIR,
  entryFile,
  hasConflictMarkers,
  joinSnapshot,
  ShardProblem,
  SITE_FILE,
  splitSnapshot,
} from "./shards.js";
import {
  conflictError,
  type FolderPaths,
  folderStamp,
  readFolder,
  snapshotError,
  writeFolder,
} from "./snapshot-folder.js";

// Kept here while push and watch import them from this module.
export { statePaths, stateTemps } from "./paths.js";

/** What the last sync knew of one course or chapter. */
export interface SnapshotEntry {
  /** Where it was written: a course's folder or a chapter's file, relative to the root, with /. */
  path: string;
  /** SHA-256 of the file as written from `record` (course.yaml or the chapter file). */
  hash: string;
  /**
   * Chapters: SHA-256 of the body's format and text as written. A file whose front matter
   * changed but whose body did not keeps the site's content without converting anything.
   */
  body?: string;
  /**
   * Chapters: git's blob id of the file text `hash` names (`git hash-object` of it). In a clone
   * whose content cache lacks the last sync's text (CI, a teammate), that text is read from
   * git's objects by this id: the base of a body merge is wherever the snapshot is.
   */
  blob?: string;
  /**
   * The whole remote record as last synced, every field kept. A chapter's `content` is kept
   * out of line: `content_sha256` names it in the content cache.
   */
  record: WireRecord;
  /**
   * A non-default site's record that the first pull from it matched to this file, but that
   * differs from it: there is no base to tell whose side changed. Pull reconciles it as with no
   * snapshot (equal: synced; else a conflict, both sides shown); push sends nothing for it.
   */
  conflict?: true;
}

/**
 * The base of three-way reconciliation: the folder `.coursesync/<site>/` (one file per course,
 * see state/shards.ts), or the single file `.coursesync/<site>.json` of earlier versions, which
 * the first save replaces.
 */
export interface Snapshot {
  version: 1;
  site: string;
  /** How chapter bodies were written (coursesync.yaml's `body`); absent means html. */
  body?: "markdown" | "html";
  courses: Record<string, SnapshotEntry>;
  chapters: Record<string, SnapshotEntry>;
  /**
   * A site other than the default one: its records are kept under the tree's ids (those in the
   * files), and this maps each tree id to the site's own. Absent for the default site.
   */
  ids?: IdMap;
  /**
   * The newest time (the site's own clock, as it sent it) of any record the last full listing
   * of the site held: a record made before it that no sync knows was seen by that pull, so it
   * is not one a run of this tree made (see recovery.ts, createdCandidates).
   */
  listed?: string;
}

/** A snapshot that knows nothing yet. */
export function emptySnapshot(site: string): Snapshot {
  return { version: 1, site, courses: {}, chapters: {} };
}

function folderPaths(root: string, site: string): FolderPaths {
  const paths = statePaths(root, site);
  return { root, folder: paths.snapshot, legacy: paths.legacy, pending: paths.pending };
}

/**
 * A cheap signature of the committed snapshot on disk (the stat of each of its files, hashed;
 * nothing is parsed): it differs after any save, checkout or edit of it. Undefined when the
 * site has no snapshot.
 */
export function snapshotStamp(root: string, site: string, courses?: FolderData | null): string | undefined {
  return folderStamp(folderPaths(root, site), courses);
}

/**
 * The folder of the snapshot's per-course files, relative to the tree root with /: what
 * snapshotStamp stats, for a thread to read ahead (see prereadFolders).
 */
export function snapshotCoursesFolder(site: string): string {
  return `${STATE_DIR}/${site}/${COURSES_DIR}`;
}

/** Read the snapshot: undefined when there is none; an error when it does not parse. */
export async function loadSnapshot(root: string, site: string): Promise<Snapshot | undefined> {
  const paths = folderPaths(root, site);
  const files = await readFolder(paths);
  if (files) {
    let snapshot: Snapshot;
    try {
      snapshot = joinSnapshot(files);
    } catch (error) {
      if (!(error instanceof ShardProblem)) throw error;
      throw snapshotError(`${relative(root, paths.folder)}/${error.file}`, error.why);
    }
    const folder = relative(root, paths.folder);
    return checked(
      snapshot,
      (kind, id) => `${folder}/${kind && id ? entryFile(snapshot, kind, id) : SITE_FILE}`,
    );
  }
  return loadLegacy(root, paths.legacy);
}

function relative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}

/** The single file of earlier versions. */
async function loadLegacy(root: string, file: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (hasConflictMarkers(text)) throw conflictError(relative(root, file), relative(root, file));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw snapshotError(relative(root, file), `does not parse (${(error as Error).message})`);
  }
  const snapshot = parsed as Partial<Snapshot> | null;
  if (
    snapshot === null ||
    typeof snapshot !== "object" ||
    snapshot.version !== 1 ||
    typeof snapshot.courses !== "object" ||
    typeof snapshot.chapters !== "object" ||
    snapshot.courses === null ||
    snapshot.chapters === null
  ) {
    throw snapshotError(relative(root, file), "is not a coursesync snapshot of version 1");
  }
  return checked(snapshot as Snapshot, () => relative(root, file));
}

/** Every entry well formed, the id map too; else an error naming the file `where` says holds it. */
function checked(
  snapshot: Snapshot,
  where: (kind?: "courses" | "chapters", id?: string) => string,
): Snapshot {
  if (snapshot.ids !== undefined && !validIdMap(snapshot.ids)) {
    throw snapshotError(where(), "has a broken id map (ids)");
  }
  for (const [kind, entries] of [
    ["courses", snapshot.courses],
    ["chapters", snapshot.chapters],
  ] as const) {
    for (const [id, entry] of Object.entries(entries)) {
      if (
        typeof entry?.path !== "string" ||
        typeof entry.hash !== "string" ||
        entry.record?.id !== Number(id)
      ) {
        throw snapshotError(where(kind, id), `has a broken entry ${kind}/${id}`);
      }
    }
  }
  return snapshot;
}

function validIdMap(ids: unknown): boolean {
  if (ids === null || typeof ids !== "object") return false;
  const map = ids as Record<string, unknown>;
  return (["courses", "chapters"] as const).every((kind) => {
    const table = map[kind];
    return (
      table !== null &&
      typeof table === "object" &&
      Object.entries(table as object).every(
        ([tree, site]) => /^\d+$/.test(tree) && Number.isSafeInteger(site),
      )
    );
  });
}

/**
 * Write the snapshot: only the files of its folder whose bytes change, each atomically (temp
 * file, rename; synced to the disk unless a save writes thousands), several as one change (see
 * state/snapshot-folder.ts); deterministic bytes. The first save replaces the single file of earlier versions, and makes sure the
 * tree's .gitignore does not ignore the folder.
 */
export async function saveSnapshot(
  root: string,
  siteName: string,
  snapshot: Snapshot,
  fs: TreeFs = guardedFs(root),
): Promise<void> {
  if (await writeFolder(folderPaths(root, siteName), splitSnapshot(snapshot), fs))
    await unignoreFolders(root);
}

/** Whether the snapshot is still the single file of earlier versions (the next save replaces it). */
export function snapshotIsLegacy(root: string, site: string): boolean {
  const paths = statePaths(root, site);
  return existsSync(paths.legacy) && !existsSync(path.join(paths.snapshot, SITE_FILE));
}

/**
 * Whether the snapshot on disk waits for a save even when it is unchanged: it is the single file
 * of earlier versions, or a save was cut short (its pending file is read laid over the folder).
 */
export function snapshotUnsettled(root: string, site: string): boolean {
  return snapshotIsLegacy(root, site) || existsSync(statePaths(root, site).pending);
}

/** The bytes saveSnapshot would write, for comparing without writing. */
export function snapshotText(snapshot: Snapshot): string {
  return stableStringify(snapshot);
}

/** What a push journal records as the snapshot it belongs to: the hash of its canonical text. */
export function snapshotBase(snapshot: Snapshot | undefined): string {
  return snapshot ? sha256(snapshotText(snapshot)) : "none";
}
