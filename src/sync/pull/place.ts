import { type ChapterSlot, type CourseSlot, planLayoutSteps } from "../../tree/layout.js";
import type { Steps } from "../../util/steps.js";
import type { ChapterPlan, CourseValues } from "../model/entities.js";
import type { Placement, Planned } from "./plan-model.js";

const NAME_FIELDS_COURSE = ["title"];
const NAME_FIELDS_CHAPTER = ["title", "ordinal", "course_id"];

/**
 * Lay out the tree as it will be after the pull: every course folder and chapter file that
 * stays, is created or moves, with the names of those the pull leaves alone or deletes kept
 * taken while it runs. Pure, in steps (see util/steps.ts).
 */
export function* placeRecords(p: Planned): Steps<Placement> {
  // Below every id, a provisional record's negative one included.
  // (A loop, not Math.min(...ids): spreading a large site's ids overflows the call stack.)
  const slots: Slots = { pseudo: -1, pseudoByKey: new Map() };
  for (const id of [p.courseIds, p.chapterIds].flatMap((ids) => [...ids]))
    if (id <= slots.pseudo) slots.pseudo = id - 1;
  yield;
  const { courseSlots, courseFinal } = placeCourses(p, slots);
  yield;
  const slotIds = new Set(courseSlots.map((slot) => slot.id));
  const chapterSlots = keptChapterSlots(p, slots, slotIds);
  const unplaceable = new Set<number>();
  for (const [id, plan] of p.chapterPlans) {
    const slot = placedChapter(p, id, plan, (course) => courseFinal.has(course) || slotIds.has(course));
    if (slot === "unplaceable") unplaceable.add(id);
    else if (slot) chapterSlots.push(slot);
    yield;
  }
  return { layout: yield* planLayoutSteps(courseSlots, chapterSlots), courseFinal, unplaceable };
}

/** The next stand-in id for a record without one (below every id), and those given out by key. */
interface Slots {
  pseudo: number;
  pseudoByKey: Map<string, number>;
}

/** Every course folder after the pull, and each staying course's values. */
function placeCourses(
  p: Planned,
  slots: Slots,
): { courseSlots: CourseSlot[]; courseFinal: Map<number, CourseValues> } {
  const { local, base, remoteCourses, coursePlans } = p;
  const courseSlots: CourseSlot[] = [];
  const courseFinal = new Map<number, CourseValues>();
  for (const course of local.courses.values()) {
    if (course.id !== undefined) continue;
    const slot = slots.pseudo--;
    slots.pseudoByKey.set(course.key, slot);
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
  return { courseSlots, courseFinal };
}

/** The chapter files that keep their names: those not planned, and those this pull deletes. */
function keptChapterSlots(p: Planned, slots: Slots, slotIds: ReadonlySet<number>): ChapterSlot[] {
  const { local, chapterPlans } = p;
  const chapterSlots: ChapterSlot[] = [];
  const slotOfCourse = (courseKey: string, courseId: number | undefined) =>
    courseId !== undefined ? courseId : slots.pseudoByKey.get(courseKey);
  for (const chapter of local.chapters.values()) {
    if (chapter.id !== undefined && chapterPlans.has(chapter.id)) continue;
    const slot = slotOfCourse(chapter.courseKey, local.courses.get(chapter.courseKey)?.id);
    if (slot === undefined) continue;
    chapterSlots.push({
      id: chapter.id ?? slots.pseudo--,
      course: slot,
      title: chapter.values.title,
      ordinal: chapter.values.ordinal,
      current: chapter.file.split("/")[2],
      keep: true,
    });
    if (chapter.id === undefined) slots.pseudoByKey.set(chapter.key, chapterSlots.at(-1)!.id);
  }
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
  return chapterSlots;
}

/** Where a chapter that stays goes: its slot, "unplaceable" when its course has no folder, or none. */
function placedChapter(
  p: Planned,
  id: number,
  plan: ChapterPlan,
  hasFolder: (course: number) => boolean,
): ChapterSlot | "unplaceable" | undefined {
  const { local } = p;
  const mine = local.chapters.get(`chapter:${id}`);
  const stays = (mine && plan.toTree.type !== "delete") || plan.toTree.type === "create";
  if (!stays) return undefined;
  const values = plan.merged ?? mine!.values;
  const moved = plan.toTree.type === "write" && plan.toTree.fields.includes("course_id");
  const course = mine && !moved ? local.courses.get(mine.courseKey)?.id : Number(values.course_id);
  const folderExists = course !== undefined && hasFolder(course);
  if (!folderExists || course === undefined) return "unplaceable";
  const renamed =
    plan.toTree.type === "create" ||
    (plan.toTree.type === "write" && plan.toTree.fields.some((f) => NAME_FIELDS_CHAPTER.includes(f)));
  return {
    id,
    course,
    title: values.title,
    ordinal: values.ordinal,
    current: mine?.file.split("/")[2],
    keep: !renamed && mine !== undefined && !moved,
  };
}
