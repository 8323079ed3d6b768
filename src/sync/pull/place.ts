import { type ChapterSlot, type CourseSlot, planLayout } from "../../tree/layout.js";
import type { CourseValues } from "../model/entities.js";
import type { Placement, Planned } from "./plan-model.js";

const NAME_FIELDS_COURSE = ["title"];
const NAME_FIELDS_CHAPTER = ["title", "ordinal", "course_id"];

/**
 * Lay out the tree as it will be after the pull: every course folder and chapter file that
 * stays, is created or moves, with the names of those the pull leaves alone or deletes kept
 * taken while it runs. Pure.
 */
export function placeRecords(p: Planned): Placement {
  const { local, base, remoteCourses, coursePlans, chapterPlans, courseIds, chapterIds } = p;
  const courseSlots: CourseSlot[] = [];
  const courseFinal = new Map<number, CourseValues>();
  // Below every id, a provisional record's negative one included.
  // (A loop, not Math.min(...ids): spreading a large site's ids overflows the call stack.)
  let pseudo = -1;
  for (const id of [courseIds, chapterIds].flatMap((ids) => [...ids])) if (id <= pseudo) pseudo = id - 1;
  const pseudoByKey = new Map<string, number>();
  for (const course of local.courses.values()) {
    if (course.id !== undefined) continue;
    const slot = pseudo--;
    pseudoByKey.set(course.key, slot);
    courseSlots.push({
      id: slot,
      title: course.values.title,
      current: course.folder.split("/")[1],
      keep: true,
    });
  }
  // Courses of other scopes keep their folders untouched.
  for (const course of local.courses.values()) {
    if (course.id === undefined || coursePlans.has(course.id)) continue;
    courseSlots.push({
      id: course.id,
      title: course.values.title,
      current: course.folder.split("/")[1],
      keep: true,
    });
  }
  for (const [id, plan] of coursePlans) {
    const mine = local.courses.get(`course:${id}`);
    const remote = remoteCourses.get(id);
    const stays = (mine && plan.toTree.type !== "delete") || plan.toTree.type === "create";
    if (!stays) continue;
    const renamed =
      plan.toTree.type === "create" ||
      (plan.toTree.type === "write" && plan.toTree.fields.some((f) => NAME_FIELDS_COURSE.includes(f))) ||
      (remote !== undefined &&
        base.courses[id] !== undefined &&
        remote.slug !== base.courses[id]?.record.slug);
    const values = plan.merged ?? mine!.values;
    courseFinal.set(id, values);
    courseSlots.push({
      id,
      title: values.title,
      slug: remote?.slug,
      current: mine?.folder.split("/")[1],
      keep: !renamed && mine !== undefined,
    });
  }
  // What this pull deletes keeps its name while the pull runs: files are written and moved
  // before anything is deleted, so a name freed now must not go to another record now (its
  // file would be deleted, or a folder moved onto one that is not empty yet).
  for (const [id, plan] of coursePlans) {
    const mine = local.courses.get(`course:${id}`);
    if (plan.toTree.type !== "delete" || !mine) continue;
    courseSlots.push({ id, title: mine.values.title, current: mine.folder.split("/")[1], keep: true });
  }
  const chapterSlots: ChapterSlot[] = [];
  const slotOfCourse = (courseKey: string, courseId: number | undefined) =>
    courseId !== undefined ? courseId : pseudoByKey.get(courseKey);
  for (const chapter of local.chapters.values()) {
    if (chapter.id !== undefined && chapterPlans.has(chapter.id)) continue;
    const slot = slotOfCourse(chapter.courseKey, local.courses.get(chapter.courseKey)?.id);
    if (slot === undefined) continue;
    chapterSlots.push({
      id: chapter.id ?? pseudo--,
      course: slot,
      title: chapter.values.title,
      ordinal: chapter.values.ordinal,
      current: chapter.file.split("/")[2],
      keep: true,
    });
    if (chapter.id === undefined) pseudoByKey.set(chapter.key, chapterSlots.at(-1)!.id);
  }
  const unplaceable = new Set<number>();
  const slotIds = new Set(courseSlots.map((slot) => slot.id));
  for (const [id, plan] of chapterPlans) {
    const mine = local.chapters.get(`chapter:${id}`);
    if (plan.toTree.type !== "delete" || !mine) continue;
    const course = slotOfCourse(mine.courseKey, local.courses.get(mine.courseKey)?.id);
    if (course === undefined || !slotIds.has(course)) continue;
    chapterSlots.push({
      id,
      course,
      title: mine.values.title,
      ordinal: mine.values.ordinal,
      current: mine.file.split("/")[2],
      keep: true,
    });
  }
  for (const [id, plan] of chapterPlans) {
    const mine = local.chapters.get(`chapter:${id}`);
    const stays = (mine && plan.toTree.type !== "delete") || plan.toTree.type === "create";
    if (!stays) continue;
    const values = plan.merged ?? mine!.values;
    const moved = plan.toTree.type === "write" && plan.toTree.fields.includes("course_id");
    const course = mine && !moved ? local.courses.get(mine.courseKey)?.id : Number(values.course_id);
    const folderExists = course !== undefined && (courseFinal.has(course) || slotIds.has(course));
    if (!folderExists || course === undefined) {
      unplaceable.add(id);
      continue;
    }
    const renamed =
      plan.toTree.type === "create" ||
      (plan.toTree.type === "write" && plan.toTree.fields.some((f) => NAME_FIELDS_CHAPTER.includes(f)));
    chapterSlots.push({
      id,
      course,
      title: values.title,
      ordinal: values.ordinal,
      current: mine?.file.split("/")[2],
      keep: !renamed && mine !== undefined && !moved,
    });
  }
  return { layout: planLayout(courseSlots, chapterSlots), courseFinal, unplaceable };
}
