import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { FolderData } from "../../tree/folder-thread.js";
import { guardedFs, type TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import { stableStringify } from "../../util/stable-json.js";
import { unignoreFolders } from "./git-files.js";
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
import type { Snapshot } from "./snapshot-model.js";

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

/**
 * The site the committed snapshot says it was made for, read from its site.json alone (cheap):
 * undefined when that cannot be told so (no snapshot, the single file of earlier versions, a
 * save under way, a file that does not parse). A hint only: loadSnapshot is what guards.
 */
export function recordedSite(root: string, site: string): string | undefined {
  const paths = folderPaths(root, site);
  if (existsSync(paths.pending)) return undefined;
  try {
    const head = JSON.parse(readFileSync(path.join(paths.folder, SITE_FILE), "utf8")) as { site?: unknown };
    return typeof head.site === "string" ? head.site : undefined;
  } catch {
    return undefined;
  }
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
