import type { WireRecord } from "../../api/wire.js";
import { runSteps, type Steps } from "../../util/steps.js";
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
import { type EntityInput, reconcileEntity } from "../reconcile.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot-model.js";
import { keepCoursesWithChapters } from "./course-deletes.js";
import { emitChapters, emitCourses } from "./emit.js";
import { placeRecords } from "./place.js";
import type { FileOp, Planned, PlanOutput, PullInput, PullPlan } from "./plan-model.js";
import { chapterValuesRead, sharingContent } from "./spill.js";
import { type Synced, syncedCourses } from "./synced.js";

export type { FileOp, PullInput, PullPlan } from "./plan-model.js";

/** Plan a pull: reconcile every entity, then lay out files and the next snapshot. Pure. */
export function planPull(input: PullInput): PullPlan {
  return runSteps(planPullSteps(input));
}

/** planPull in steps (see util/steps.ts): a step per record reconciled, placed and emitted. */
export function* planPullSteps(input: PullInput): Steps<PullPlan> {
  const { snapshot, local, bodies } = input;
  const base = snapshot ?? { version: 1 as const, site: input.site, courses: {}, chapters: {} };
  const next: Snapshot = {
    version: 1,
    site: input.site,
    courses: { ...base.courses },
    chapters: { ...base.chapters },
  };
  const remoteCourses = new Map(input.remoteCourses.map((r) => [r.id, r]));
  const remoteChapters = new Map(input.remoteChapters.map((r) => [r.id, r]));
  // Snapshots from before `body` was recorded were written as HTML.
  const modeChanged = (snapshot?.body ?? "html") !== bodies.mode;
  next.body = bodies.mode;
  // Courses with nothing to do are left out, as out of scope: their files and entries stay.
  const synced = syncedCourses(input, base, { courses: remoteCourses, chapters: remoteChapters });
  const courses = planCourses(input, base, remoteCourses, synced);
  const chapters = yield* planChapters(input, base, remoteChapters, courses.inScope, synced);
  keepCoursesWithChapters(courses.plans, chapters.plans, { local, remoteChapters, base });
  yield;
  const planned: Planned = {
    input,
    local,
    bodies,
    base,
    remoteCourses,
    remoteChapters,
    coursePlans: courses.plans,
    chapterPlans: chapters.plans,
    courseIds: courses.ids,
    chapterIds: chapters.ids,
    modeChanged,
  };
  const placement = yield* placeRecords(planned);
  const out: PlanOutput = { ops: [], changes: [], next, deletes: 0, cacheTexts: [], cacheRecords: [] };
  const folderMoves = yield* emitCourses(planned, placement, out);
  yield* emitChapters(planned, placement, folderMoves, out);
  yield;
  const { ops, changes, cacheTexts, cacheRecords } = out;
  // Course folders that end up empty go (after their files).
  ops.sort((a, b) => OP_ORDER[a.op] - OP_ORDER[b.op]);
  yield;
  const blobless = Object.entries(next.chapters).flatMap(([id, entry]) => {
    const mine = local.chapters.get(`chapter:${id}`);
    // The file holds the very text the entry names (its hash is the entry's).
    const asWritten = mine !== undefined && mine.file === entry.path && mine.hash === entry.hash;
    return entry.blob === undefined && asWritten ? [Number(id)] : [];
  });
  return { ops, changes, snapshot: next, deletes: out.deletes, cacheTexts, cacheRecords, blobless };
}

/** Every course reconciled (in scope, not held, not synced), and the courses in scope. */
function planCourses(
  input: PullInput,
  base: Snapshot,
  remoteCourses: ReadonlyMap<number, WireRecord>,
  synced: Synced,
): { ids: Set<number>; plans: Map<number, CoursePlan>; inScope: Set<number> } {
  const { local, winner } = input;
  const ids = new Set<number>();
  for (const id of Object.keys(base.courses)) ids.add(Number(id));
  for (const id of remoteCourses.keys()) ids.add(id);
  for (const course of local.courses.values()) if (course.id !== undefined) ids.add(course.id);

  const scopeCourse = (id: number | undefined, folders: (string | undefined)[]) =>
    !input.inScope || input.inScope({ id, folders: folders.filter((f): f is string => f !== undefined) });

  const plans = new Map<number, CoursePlan>();
  const inScope = new Set<number>();
  for (const id of [...ids].sort((a, b) => a - b)) {
    const entry = base.courses[id];
    const mine = local.courses.get(`course:${id}`);
    if (!scopeCourse(id, [entry?.path, mine?.folder])) continue;
    inScope.add(id);
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
    plans.set(id, plan);
  }
  return { ids, plans, inScope };
}

/** Every chapter reconciled (of a course in scope, not held, not synced), in steps. */
function* planChapters(
  input: PullInput,
  base: Snapshot,
  remoteChapters: ReadonlyMap<number, WireRecord>,
  courseInScope: ReadonlySet<number>,
  synced: Synced,
): Steps<{ ids: Set<number>; plans: Map<number, ChapterPlan> }> {
  const { local } = input;
  const ids = new Set<number>();
  for (const id of Object.keys(base.chapters)) ids.add(Number(id));
  for (const id of remoteChapters.keys()) ids.add(id);
  for (const chapter of local.chapters.values()) if (chapter.id !== undefined) ids.add(chapter.id);

  const plans = new Map<number, ChapterPlan>();
  for (const id of [...ids].sort((a, b) => a - b)) {
    yield;
    const mine = local.chapters.get(`chapter:${id}`);
    const inScope =
      !input.inScope ||
      (mine && courseInScope.has(local.courses.get(mine.courseKey)?.id ?? -1)) ||
      courseInScope.has(Number(remoteChapters.get(id)?.course_id)) ||
      courseInScope.has(Number(base.chapters[id]?.record.course_id)) ||
      (mine && input.inScope({ id: undefined, folders: [mine.folder] }));
    if (!inScope || input.held?.chapters.has(id) || synced.chapters.has(id)) continue;
    plans.set(id, planChapter(input, id, base.chapters[id], remoteChapters.get(id)));
  }
  return { ids, plans };
}

/**
 * One chapter reconciled: a spilled site text is read (through the input's reader) when the
 * tree or the last sync has the chapter, and stays a reference when the chapter ends with it.
 */
function planChapter(
  input: PullInput,
  id: number,
  entry: SnapshotEntry | undefined,
  remote: WireRecord | undefined,
): ChapterPlan {
  const { local, bodies, winner } = input;
  const mine = local.chapters.get(`chapter:${id}`);
  // A record new to the tree is taken as it is: a spilled text is read only when it is written.
  const fresh = !entry && !mine;
  const values = remote && chapterValuesOfRecord(remote);
  const remoteValues = values && !fresh ? chapterValuesRead(values, input.reader) : values;
  const entityInput: EntityInput<ChapterValues, "chapter"> = {
    kind: "chapter",
    id,
    key: `chapter:${id}`,
    base: entry
      ? chapterValuesOfRecord(entry.record, input.baseTexts.get(String(entry.record.content_sha256)))
      : undefined,
    local: mine ? chapterValuesAgainst(mine, remoteValues?.content, bodies) : undefined,
    remote: remoteValues,
    remoteKnown: true,
  };
  const mergeText = contentMerger(bodies, input.baseTexts, mine?.body);
  const plan = reconcileEntity(entityInput, { equal: fieldsEqual, mergeText, winner });
  // The site's text, when that is what the chapter ends with, stays where it was spilled.
  if (!fresh && plan.merged?.content === entityInput.remote?.content)
    plan.merged = sharingContent(plan.merged, remote);
  return plan;
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
