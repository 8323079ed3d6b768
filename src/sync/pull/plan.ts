import type { WireRecord } from "../../api/wire.js";
import { contentMerger } from "../content-merge.js";
import { chapterValuesAgainst } from "../local/view.js";
import {
  type ChapterPlan,
  type ChapterValues,
  type CoursePlan,
  chapterValuesOfRecord,
  courseValuesOfRecord,
  fieldsEqual,
} from "../model/entities.js";
import type { Change } from "../model/report.js";
import { type EntityInput, reconcileEntity } from "../reconcile.js";
import type { Snapshot } from "../state/snapshot.js";
import { keepCoursesWithChapters } from "./course-deletes.js";
import { emitChapters, emitCourses } from "./emit.js";
import { placeRecords } from "./place.js";
import type { FileOp, Planned, PlanOutput, PullInput, PullPlan } from "./plan-model.js";
import { chapterValuesSharing, sharingContent } from "./spill.js";
import { syncedCourses } from "./synced.js";

export type { FileOp, PullInput, PullPlan } from "./plan-model.js";

/** Plan a pull: reconcile every entity, then lay out files and the next snapshot. Pure. */
export function planPull(input: PullInput): PullPlan {
  const { snapshot, local, bodies, winner } = input;
  const base = snapshot ?? { version: 1 as const, site: input.site, courses: {}, chapters: {} };
  const next: Snapshot = {
    version: 1,
    site: input.site,
    courses: { ...base.courses },
    chapters: { ...base.chapters },
  };
  const remoteCourses = new Map(input.remoteCourses.map((r) => [r.id, r]));
  const remoteChapters = new Map(input.remoteChapters.map((r) => [r.id, r]));
  const changes: Change[] = [];
  const ops: FileOp[] = [];
  // Snapshots from before `body` was recorded were written as HTML.
  const modeChanged = (snapshot?.body ?? "html") !== bodies.mode;
  next.body = bodies.mode;
  const cacheTexts: string[] = [];
  const cacheRecords: WireRecord[] = [];
  // Courses with nothing to do are left out, as out of scope: their files and entries stay.
  const synced = syncedCourses(input, base, { courses: remoteCourses, chapters: remoteChapters });

  // ---- courses ----
  const courseIds = new Set<number>();
  for (const id of Object.keys(base.courses)) courseIds.add(Number(id));
  for (const id of remoteCourses.keys()) courseIds.add(id);
  for (const course of local.courses.values()) if (course.id !== undefined) courseIds.add(course.id);

  const scopeCourse = (id: number | undefined, folders: (string | undefined)[]) =>
    !input.inScope || input.inScope({ id, folders: folders.filter((f): f is string => f !== undefined) });

  const coursePlans = new Map<number, CoursePlan>();
  const courseInScope = new Set<number>();
  for (const id of [...courseIds].sort((a, b) => a - b)) {
    const entry = base.courses[id];
    const mine = local.courses.get(`course:${id}`);
    if (!scopeCourse(id, [entry?.path, mine?.folder])) continue;
    courseInScope.add(id);
    if (input.held?.courses.has(id) || synced.courses.has(id)) continue;
    const remote = remoteCourses.get(id);
    const plan = reconcileEntity(
      {
        kind: "course",
        id,
        key: `course:${id}`,
        base: entry ? courseValuesOfRecord(entry.record) : undefined,
        local: mine ? mine.values : undefined,
        remote: remote ? courseValuesOfRecord(remote) : undefined,
        remoteKnown: true,
      },
      { equal: fieldsEqual, winner },
    );
    coursePlans.set(id, plan);
  }

  // ---- chapters ----
  const chapterIds = new Set<number>();
  for (const id of Object.keys(base.chapters)) chapterIds.add(Number(id));
  for (const id of remoteChapters.keys()) chapterIds.add(id);
  for (const chapter of local.chapters.values()) if (chapter.id !== undefined) chapterIds.add(chapter.id);

  const chapterPlans = new Map<number, ChapterPlan>();
  for (const id of [...chapterIds].sort((a, b) => a - b)) {
    const mine = local.chapters.get(`chapter:${id}`);
    const inScope =
      !input.inScope ||
      (mine && courseInScope.has(local.courses.get(mine.courseKey)?.id ?? -1)) ||
      courseInScope.has(Number(remoteChapters.get(id)?.course_id)) ||
      courseInScope.has(Number(base.chapters[id]?.record.course_id)) ||
      (mine && input.inScope({ id: undefined, folders: [mine.folder] }));
    if (!inScope || input.held?.chapters.has(id) || synced.chapters.has(id)) continue;
    const entry = base.chapters[id];
    const remote = remoteChapters.get(id);
    // A record new to the tree is taken as it is: its text is read only when it is written.
    const fresh = !entry && !mine;
    const entityInput: EntityInput<ChapterValues, "chapter"> = {
      kind: "chapter",
      id,
      key: `chapter:${id}`,
      base: entry
        ? chapterValuesOfRecord(entry.record, input.baseTexts.get(String(entry.record.content_sha256)))
        : undefined,
      local: mine ? chapterValuesAgainst(mine, remote?.content, bodies) : undefined,
      remote: remote ? (fresh ? chapterValuesSharing(remote) : chapterValuesOfRecord(remote)) : undefined,
      remoteKnown: true,
    };
    const mergeText = contentMerger(bodies, input.baseTexts, mine?.body);
    const plan = reconcileEntity(entityInput, { equal: fieldsEqual, mergeText, winner });
    // The site's text, when that is what the chapter ends with, stays where it was spilled.
    if (!fresh && plan.merged?.content === entityInput.remote?.content)
      plan.merged = sharingContent(plan.merged, remote);
    chapterPlans.set(id, plan);
  }

  keepCoursesWithChapters(coursePlans, chapterPlans, { local, remoteChapters, base });

  const planned: Planned = {
    input,
    local,
    bodies,
    base,
    remoteCourses,
    remoteChapters,
    coursePlans,
    chapterPlans,
    courseIds,
    chapterIds,
    modeChanged,
  };
  const placement = placeRecords(planned);
  const out: PlanOutput = { ops, changes, next, deletes: 0, cacheTexts, cacheRecords };
  const folderMoves = emitCourses(planned, placement, out);
  emitChapters(planned, placement, folderMoves, out);
  // Course folders that end up empty go (after their files).
  ops.sort((a, b) => OP_ORDER[a.op] - OP_ORDER[b.op]);
  const blobless = Object.entries(next.chapters).flatMap(([id, entry]) => {
    const mine = local.chapters.get(`chapter:${id}`);
    // The file holds the very text the entry names (its hash is the entry's).
    const asWritten = mine !== undefined && mine.file === entry.path && mine.hash === entry.hash;
    return entry.blob === undefined && asWritten ? [Number(id)] : [];
  });
  return { ops, changes, snapshot: next, deletes: out.deletes, cacheTexts, cacheRecords, blobless };
}

const OP_ORDER: Record<FileOp["op"], number> = {
  "move-folder": 0,
  move: 1,
  write: 2,
  delete: 3,
  "remove-folder-if-empty": 4,
  copy: 5,
  "remove-copy": 6,
};
