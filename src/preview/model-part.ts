import { openLocalIn } from "../sync/local/open.js";
import type { Snapshot } from "../sync/state/snapshot-model.js";
import { inCourseFolders } from "../tree/layout.js";
import { coursesOf, type PreviewCourse, type PreviewModel, sortCourses, sourceOf } from "./model.js";

// A save reads only its course folder again: the model with those folders read afresh.

/**
 * The model with these course folders (`courses/<name>`) read again, the others as they were:
 * a save reads only its course folder. Undefined when a file there holds the id of a record
 * filed elsewhere (a copy, a move): that takes a read of the whole tree.
 */
export async function readModelIn(
  previous: PreviewModel,
  folders: ReadonlySet<string>,
): Promise<PreviewModel | undefined> {
  const { root, reading, source } = previous;
  const kept = previous.courses.filter((course) => !folders.has(course.folder));
  if (shownElsewhere(reading.snapshot, folders, kept)) return undefined;
  const warnings: string[] = [];
  const open = { ...reading.open, onWarning: (w: string) => warnings.push(w) };
  const side = await openLocalIn(root, reading.snapshot, folders, open);
  if (!side) return undefined;
  const part = sourceOf(root, side, source.cache, source.bodies);
  const parts = new Map(previous.parts);
  for (const folder of folders) parts.set(folder, part);
  return {
    ...previous,
    courses: sortCourses([...kept, ...coursesOf(side, reading)]),
    warnings: [...new Set([...previous.warnings, ...warnings])],
    parts,
  };
}

/**
 * Whether a record the last sync filed in these folders is shown in another (moved there): read
 * alone, its folder would say it is deleted.
 */
function shownElsewhere(
  snapshot: Snapshot,
  folders: ReadonlySet<string>,
  kept: readonly PreviewCourse[],
): boolean {
  const courses = new Set(kept.map((course) => course.id));
  const chapters = new Set(
    kept.flatMap((course) => course.chapters.filter((c) => !c.deleted).map((c) => c.id)),
  );
  const inside = inCourseFolders(folders);
  const filedHere = (entries: Snapshot["courses"], shown: Set<number | undefined>) =>
    Object.entries(entries).some(([id, entry]) => inside(entry.path) && shown.has(Number(id)));
  return filedHere(snapshot.courses, courses) || filedHere(snapshot.chapters, chapters);
}
