import { readFile } from "node:fs/promises";
import { diffLines } from "diff";
import type { BodyCodec } from "../tree/bodies.js";
import { abs } from "../tree/fs-ops.js";
import { courseFilePath } from "../tree/layout.js";
import { sha256 } from "../util/hash.js";
import { planLocalChanges } from "./local/changes.js";
import type { LocalView } from "./local/view.js";
import {
  chapterFileText,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
} from "./model/entities.js";
import { type RemoteContext, remotePairs } from "./remote-diff.js";
import type { ContentCache } from "./state/content-cache.js";
import { gitBlobReader } from "./state/git-objects.js";
import type { Snapshot, SnapshotEntry } from "./state/snapshot-model.js";

/** The side of a diff where a file is missing (new, or deleted), as git names it. */
export const NO_FILE = "/dev/null";

/** One file's change, however it is shown. */
export interface FileDiff {
  kind: "course" | "chapter";
  /** The record's id; undefined for a file not created on the site yet. */
  id: number | undefined;
  /** What differs, e.g. `update [title]`, `delete`, `renamed`, or for --remote `not on the site`. */
  what: string;
  /** The file before (`/dev/null` when new) and after (`/dev/null` when deleted), tree paths. */
  oldName: string;
  newName: string;
  before: string;
  after: string;
  /** The last synced text is neither in the local cache nor in git: no patch can be shown. */
  missingBase?: boolean;
  /** Against the site's current version (`site/` before the old name) rather than the last sync. */
  remote?: boolean;
}

async function readOrEmpty(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return "";
  }
}

/**
 * The chapter file as the last sync wrote it, read from git by the blob id the snapshot records
 * (a clone without the content cache); undefined when git does not have it.
 */
async function lastWritten(root: string, entry: SnapshotEntry): Promise<string | undefined> {
  if (entry.blob === undefined) return undefined;
  const text = (await gitBlobReader(root)([entry.blob])).blobs.get(entry.blob)?.toString("utf8");
  return text !== undefined && sha256(text) === entry.hash ? text : undefined;
}

/** Each local change against the last sync. */
export async function localDiffs(
  root: string,
  snapshot: Snapshot,
  local: LocalView,
  options: { scope: readonly string[] | undefined; cache: ContentCache; bodies: BodyCodec },
): Promise<FileDiff[]> {
  const { scope, cache, bodies } = options;
  const diffs: FileDiff[] = [];
  const changes = planLocalChanges(snapshot, local, scope);
  for (const { plan, path: where, from } of changes) {
    if (plan.toSite.type === "none" && !from) continue;
    const isCourse = plan.kind === "course";
    const file = isCourse ? courseFilePath(where) : where;
    const entry = plan.id === undefined ? undefined : snapshot[isCourse ? "courses" : "chapters"][plan.id];
    let before = "";
    let missingBase = false;
    if (entry) {
      if (isCourse) before = courseFileText(plan.id, courseValuesOfRecord(entry.record));
      else {
        const text = await cache.get(String(entry.record.content_sha256));
        const written = text === undefined ? await lastWritten(root, entry) : undefined;
        if (text !== undefined)
          before = chapterFileText(plan.id, chapterValuesOfRecord(entry.record, text), bodies);
        else if (written !== undefined) before = written;
        else missingBase = true;
      }
    }
    const after = plan.toSite.type === "delete" ? "" : await readOrEmpty(abs(root, file));
    const fields = plan.toSite.type === "update" ? ` [${plan.toSite.fields.join(", ")}]` : "";
    diffs.push({
      kind: plan.kind,
      id: plan.id,
      what: `${plan.toSite.type === "none" ? "renamed" : plan.toSite.type}${fields}`,
      oldName: entry ? (isCourse ? courseFilePath(entry.path) : entry.path) : NO_FILE,
      newName: plan.toSite.type === "delete" ? NO_FILE : file,
      before,
      after,
      ...(missingBase ? { missingBase } : {}),
    });
  }
  return diffs;
}

/** `diff --remote`: each file against the site's current version of its record. */
export async function remoteDiffs(
  root: string,
  local: LocalView,
  context: RemoteContext,
): Promise<FileDiff[]> {
  const pairs = await remotePairs(root, local, context);
  return pairs.map((pair) => {
    const what =
      pair.here === "" ? "on the site, not here" : pair.site === "" ? "not on the site" : "differs";
    return {
      kind: pair.kind,
      id: pair.id,
      what,
      oldName: pair.site === "" ? NO_FILE : pair.path,
      newName: pair.here === "" ? NO_FILE : pair.path,
      before: pair.site,
      after: pair.here,
      remote: true,
    };
  });
}

/** Lines added and removed between two texts (`diff --stat`'s counts). */
export function lineCounts(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}
