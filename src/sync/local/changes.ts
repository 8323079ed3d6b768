import { conflictCopyPath, courseFilePath } from "../../tree/layout.js";
import {
  chapterValuesOfRecord,
  courseValuesOfRecord,
  fieldsEqual,
  type RecordPlan,
} from "../model/entities.js";
import { reconcileEntity } from "../reconcile.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { LocalView } from "./view.js";

/** One entity's pending local change, as status shows it and push starts from. */
export interface LocalChange {
  plan: RecordPlan;
  /** Where it is now (the file, or for a course its folder); the snapshot's path when deleted. */
  path: string;
  /** The snapshot's path when the file was renamed or moved locally. */
  from?: string | undefined;
  /** For chapters: the key of the course whose folder holds the file. */
  courseKey?: string | undefined;
}

/** Does a path fall under one of the given tree paths (or are there none)? */
export function inPaths(file: string, paths: readonly string[] | undefined): boolean {
  if (!paths) return true;
  return paths.some((p) => p === "." || file === p || file.startsWith(`${p}/`) || p.startsWith(`${file}/`));
}

/**
 * Local changes against the snapshot alone (no network): reconcile with the site taken to be
 * as the snapshot left it. Unchanged entities whose file did not move are left out.
 */
export function planLocalChanges(
  snapshot: Snapshot,
  local: LocalView,
  paths?: readonly string[],
): LocalChange[] {
  const out: LocalChange[] = [];
  const consider = (change: LocalChange, untracked = false) => {
    const { plan } = change;
    const pending =
      untracked || plan.toSite.type !== "none" || plan.conflict !== undefined || change.from !== undefined;
    if (
      pending &&
      (inPaths(change.path, paths) || (change.from !== undefined && inPaths(change.from, paths)))
    ) {
      out.push(change);
    }
  };
  courseChanges(snapshot, local, consider);
  chapterChanges(snapshot, local, consider);
  return out;
}

/** A change found, and whether it is of a file the snapshot does not know. */
type Consider = (change: LocalChange, untracked?: boolean) => void;

/** The courses' changes: new folders first, then by id. */
function courseChanges(snapshot: Snapshot, local: LocalView, consider: Consider): void {
  const courseIds = new Set<number>([...Object.keys(snapshot.courses).map(Number)]);
  for (const course of local.courses.values()) if (course.id !== undefined) courseIds.add(course.id);
  for (const course of local.courses.values()) {
    if (course.id !== undefined) continue;
    consider({
      plan: reconcileEntity({
        kind: "course",
        id: undefined,
        key: course.key,
        local: course.values,
        remoteKnown: false,
      }),
      path: course.folder,
    });
  }
  for (const id of [...courseIds].sort((a, b) => a - b)) {
    const entry = snapshot.courses[id];
    const mine = local.courses.get(`course:${id}`);
    if (!mine && entry && ignoredHere(local, courseFilePath(entry.path))) continue;
    const base = entry ? courseValuesOfRecord(entry.record) : undefined;
    const plan = reconcileEntity(
      {
        kind: "course",
        id,
        key: `course:${id}`,
        base,
        local: mine ? mine.values : undefined,
        remoteKnown: false,
      },
      { equal: fieldsEqual },
    );
    const from = mine && entry && mine.folder !== entry.path ? entry.path : undefined;
    // A file with an id the snapshot does not know is neither new nor in sync: status says so.
    consider({ plan, path: mine?.folder ?? entry?.path ?? "", from }, entry === undefined);
  }
}

/** The chapters' changes: new files first, then by id. */
function chapterChanges(snapshot: Snapshot, local: LocalView, consider: Consider): void {
  const chapterIds = new Set<number>([...Object.keys(snapshot.chapters).map(Number)]);
  for (const chapter of local.chapters.values()) if (chapter.id !== undefined) chapterIds.add(chapter.id);
  for (const chapter of local.chapters.values()) {
    if (chapter.id !== undefined) continue;
    consider({
      plan: reconcileEntity({
        kind: "chapter",
        id: undefined,
        key: chapter.key,
        local: chapter.values,
        remoteKnown: false,
      }),
      path: chapter.file,
      courseKey: chapter.courseKey,
    });
  }
  for (const id of [...chapterIds].sort((a, b) => a - b)) {
    const entry = snapshot.chapters[id];
    const mine = local.chapters.get(`chapter:${id}`);
    if (!mine && entry && ignoredHere(local, entry.path)) continue;
    const base = entry ? chapterValuesOfRecord(entry.record) : undefined;
    const plan = reconcileEntity(
      {
        kind: "chapter",
        id,
        key: `chapter:${id}`,
        base,
        local: mine ? mine.values : undefined,
        remoteKnown: false,
      },
      { equal: fieldsEqual },
    );
    const from = mine && entry && mine.file !== entry.path ? entry.path : undefined;
    consider(
      { plan, path: mine?.file ?? entry?.path ?? "", from, courseKey: mine?.courseKey },
      entry === undefined,
    );
  }
}

/**
 * A synced file the scan did not read because an ignore rule (added since) covers it, or its
 * folder: it is left alone on both sides, never taken as deleted here.
 */
function ignoredHere(local: LocalView, file: string): boolean {
  return local.isIgnored?.(file) === true;
}

/** The conflict copy beside a file, if the scan saw one. */
export function copyBeside(file: string, copies: ReadonlySet<string>): string | undefined {
  const copy = conflictCopyPath(file);
  return copies.has(copy) ? copy : undefined;
}
