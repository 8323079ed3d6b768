import type { WireRecord } from "../../api/wire.js";
import type { LocalView } from "../local/view.js";
import type { ChapterPlan, CoursePlan } from "../model/entities.js";

import type { Snapshot } from "../state/snapshot-model.js";

/** What tells which course a chapter ends up in. */
export interface ChapterPlaces {
  local: LocalView;
  remoteChapters: ReadonlyMap<number, WireRecord>;
  base: Pick<Snapshot, "chapters">;
}

/**
 * A course folder stays while any chapter file in it stays: a course the site deleted whose
 * folder still holds a chapter that stays (edited here, held back, not planned) is a conflict
 * instead of a delete. Changes `coursePlans` in place.
 */
export function keepCoursesWithChapters(
  coursePlans: Map<number, CoursePlan>,
  chapterPlans: ReadonlyMap<number, ChapterPlan>,
  { local, remoteChapters, base }: ChapterPlaces,
): void {
  const courseOfChapter = (id: number): number | undefined => {
    const mine = local.chapters.get(`chapter:${id}`);
    const localCourse = mine ? local.courses.get(mine.courseKey)?.id : undefined;
    return (
      localCourse ??
      (remoteChapters.get(id)?.course_id as number | undefined) ??
      (base.chapters[id]?.record.course_id as number | undefined)
    );
  };
  const chaptersStaying = new Map<number, number>();
  for (const chapter of local.chapters.values()) {
    if (chapter.id !== undefined && chapterPlans.has(chapter.id)) continue;
    const course = local.courses.get(chapter.courseKey)?.id;
    if (course !== undefined) chaptersStaying.set(course, (chaptersStaying.get(course) ?? 0) + 1);
  }
  for (const [id, plan] of chapterPlans) {
    const mine = local.chapters.get(`chapter:${id}`);
    const stays = (mine && plan.toTree.type !== "delete") || plan.toTree.type === "create";
    if (!stays) continue;
    // A chapter the site moved to another course leaves this folder.
    const moved = plan.toTree.type === "write" && plan.toTree.fields.includes("course_id");
    const course =
      plan.toTree.type === "create" || moved ? Number(plan.merged?.course_id) : courseOfChapter(id);
    if (course !== undefined) chaptersStaying.set(course, (chaptersStaying.get(course) ?? 0) + 1);
  }
  for (const [id, plan] of coursePlans) {
    if (plan.toTree.type === "delete" && (chaptersStaying.get(id) ?? 0) > 0) {
      coursePlans.set(id, {
        ...plan,
        toTree: { type: "none" },
        conflict: { fields: [], reason: "deleted-remotely-edited-locally" },
      });
    }
  }
}
