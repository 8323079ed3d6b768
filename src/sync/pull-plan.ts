import type { WireRecord } from "../api/wire.js";
import type { BodyCodec } from "../tree/bodies.js";
import { type ChapterSlot, type CourseSlot, conflictCopyPath, planLayout } from "../tree/layout.js";
import { COURSE_FILE } from "../tree/scan.js";
import { sha256 as sha } from "../util/hash.js";
import { contentMerger } from "./content-merge.js";
import {
  asFields,
  type ChapterValues,
  type CourseValues,
  chapterFileText,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
  fieldsEqual,
  renderChapter,
  snapshotRecord,
} from "./entities.js";
import { chapterValuesAgainst, type LocalView } from "./local-view.js";
import { keepCoursesWithChapters } from "./pull/course-deletes.js";
import type { Held } from "./pull/held.js";
import { bodyConflict } from "./pull/markers.js";
import { type EntityInput, type EntityPlan, jsonEqual, reconcileEntity, type Winner } from "./reconcile.js";
import { type Change, conflictReason } from "./report.js";
import type { Snapshot, SnapshotEntry } from "./snapshot.js";

/** Everything the pull planner reads: all data, no I/O. */
export interface PullInput {
  snapshot: Snapshot | undefined;
  site: string;
  local: LocalView;
  remoteCourses: readonly WireRecord[];
  remoteChapters: readonly WireRecord[];
  /** Base chapter texts from the content cache, by hash (for body merges). */
  baseTexts: ReadonlyMap<string, string>;
  bodies: BodyCodec;
  winner?: Winner | undefined;
  /** Conflict copies now in the tree (`*.remote.md`, `course.remote.yaml`), to clean up. */
  existingCopies: ReadonlySet<string>;
  /** Course ids and new-course keys in scope (pull [paths...]); undefined = everything. */
  inScope?: ((course: { id: number | undefined; folders: string[] }) => boolean) | undefined;
  /** Records an invalid file holds back: not planned, their files and snapshot entries kept. */
  held?: Held | undefined;
}

/** A file operation of the plan, relative paths with /. */
export type FileOp =
  | { op: "move-folder"; from: string; to: string }
  | { op: "write"; path: string; text: string; from?: string | undefined }
  | { op: "move"; from: string; to: string }
  | { op: "delete"; path: string }
  | { op: "remove-folder-if-empty"; path: string }
  | { op: "copy"; path: string; text: string }
  | { op: "remove-copy"; path: string };

/** What a pull will do. */
export interface PullPlan {
  ops: FileOp[];
  changes: Change[];
  snapshot: Snapshot;
  /** Local files the pull deletes (for the delete guard). */
  deletes: number;
  /** Chapter HTML to keep in the content cache. */
  cacheTexts: string[];
}

const NAME_FIELDS_COURSE = ["title"];
const NAME_FIELDS_CHAPTER = ["title", "ordinal", "course_id"];

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

  // ---- courses ----
  const courseIds = new Set<number>();
  for (const id of Object.keys(base.courses)) courseIds.add(Number(id));
  for (const id of remoteCourses.keys()) courseIds.add(id);
  for (const course of local.courses.values()) if (course.id !== undefined) courseIds.add(course.id);

  const scopeCourse = (id: number | undefined, folders: (string | undefined)[]) =>
    !input.inScope || input.inScope({ id, folders: folders.filter((f): f is string => f !== undefined) });

  const coursePlans = new Map<number, EntityPlan>();
  const courseInScope = new Set<number>();
  for (const id of [...courseIds].sort((a, b) => a - b)) {
    const entry = base.courses[id];
    const mine = local.courses.get(`course:${id}`);
    if (!scopeCourse(id, [entry?.path, mine?.folder])) continue;
    courseInScope.add(id);
    if (input.held?.courses.has(id)) continue;
    const remote = remoteCourses.get(id);
    const plan = reconcileEntity(
      {
        kind: "course",
        id,
        key: `course:${id}`,
        base: entry ? asFields(courseValuesOfRecord(entry.record)) : undefined,
        local: mine ? asFields(mine.values) : undefined,
        remote: remote ? asFields(courseValuesOfRecord(remote)) : undefined,
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

  const chapterPlans = new Map<number, EntityPlan>();
  for (const id of [...chapterIds].sort((a, b) => a - b)) {
    const mine = local.chapters.get(`chapter:${id}`);
    const inScope =
      !input.inScope ||
      (mine && courseInScope.has(local.courses.get(mine.courseKey)?.id ?? -1)) ||
      courseInScope.has(Number(remoteChapters.get(id)?.course_id)) ||
      courseInScope.has(Number(base.chapters[id]?.record.course_id)) ||
      (mine && input.inScope({ id: undefined, folders: [mine.folder] }));
    if (!inScope || input.held?.chapters.has(id)) continue;
    const entry = base.chapters[id];
    const remote = remoteChapters.get(id);
    const entityInput: EntityInput = {
      kind: "chapter",
      id,
      key: `chapter:${id}`,
      base: entry
        ? asFields(
            chapterValuesOfRecord(entry.record, input.baseTexts.get(String(entry.record.content_sha256))),
          )
        : undefined,
      local: mine ? asFields(chapterValuesAgainst(mine, remote?.content, bodies)) : undefined,
      remote: remote ? asFields(chapterValuesOfRecord(remote)) : undefined,
      remoteKnown: true,
    };
    const mergeText = contentMerger(bodies, input.baseTexts, mine?.body);
    chapterPlans.set(id, reconcileEntity(entityInput, { equal: fieldsEqual, mergeText, winner }));
  }

  keepCoursesWithChapters(coursePlans, chapterPlans, { local, remoteChapters, base });

  // ---- layout of what the tree holds after the pull ----
  const courseSlots: CourseSlot[] = [];
  const courseFinal = new Map<number, CourseValues>();
  // Below every id, a provisional record's negative one included.
  let pseudo = Math.min(0, ...courseIds, ...chapterIds) - 1;
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
    const stays = (mine && plan.local.type !== "delete") || plan.local.type === "create";
    if (!stays) continue;
    const renamed =
      plan.local.type === "create" ||
      (plan.local.type === "write" && plan.local.fields.some((f) => NAME_FIELDS_COURSE.includes(f))) ||
      (remote !== undefined &&
        base.courses[id] !== undefined &&
        remote.slug !== base.courses[id]?.record.slug);
    const values = plan.merged ? (plan.merged as unknown as CourseValues) : mine!.values;
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
    if (plan.local.type !== "delete" || !mine) continue;
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
    if (plan.local.type !== "delete" || !mine) continue;
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
    const stays = (mine && plan.local.type !== "delete") || plan.local.type === "create";
    if (!stays) continue;
    const values = plan.merged ? (plan.merged as unknown as ChapterValues) : mine!.values;
    const moved = plan.local.type === "write" && plan.local.fields.includes("course_id");
    const course = mine && !moved ? local.courses.get(mine.courseKey)?.id : Number(values.course_id);
    const folderExists = course !== undefined && (courseFinal.has(course) || slotIds.has(course));
    if (!folderExists || course === undefined) {
      unplaceable.add(id);
      continue;
    }
    const renamed =
      plan.local.type === "create" ||
      (plan.local.type === "write" && plan.local.fields.some((f) => NAME_FIELDS_CHAPTER.includes(f)));
    chapterSlots.push({
      id,
      course,
      title: values.title,
      ordinal: values.ordinal,
      current: mine?.file.split("/")[2],
      keep: !renamed && mine !== undefined && !moved,
    });
  }
  const layout = planLayout(courseSlots, chapterSlots);

  // ---- file operations, changes, next snapshot: courses ----
  const folderMoves = new Map<string, string>();
  let deletes = 0;
  for (const [id, plan] of coursePlans) {
    const mine = local.courses.get(`course:${id}`);
    const remote = remoteCourses.get(id);
    const entry = base.courses[id];
    const folder = layout.courseFolder.get(id);
    const file = folder ? `${folder}/${COURSE_FILE}` : (mine?.file ?? `${entry?.path}/${COURSE_FILE}`);
    if (mine && folder && mine.folder !== folder) {
      folderMoves.set(mine.folder, folder);
      ops.push({ op: "move-folder", from: mine.folder, to: folder });
    }
    if (plan.conflict) {
      const copyPath = conflictCopyPath(mine ? file : `${folder ?? entry?.path}/${COURSE_FILE}`);
      if (remote)
        ops.push({ op: "copy", path: copyPath, text: courseFileText(id, courseValuesOfRecord(remote)) });
      changes.push({
        kind: "course",
        id,
        path: mine ? (folder ?? mine.folder) : (entry?.path ?? ""),
        outcome: "conflict",
        reason: plan.conflict ? conflictReason(plan.conflict) : "",
        fields: plan.conflict.fields,
        ...(remote ? { copy: copyPath } : {}),
      });
      if (entry && folder) next.courses[id] = { ...entry, path: folder };
      continue;
    }
    if (mine && input.existingCopies.has(conflictCopyPath(mine.file))) {
      ops.push({ op: "remove-copy", path: conflictCopyPath(file) });
    }
    const values = courseFinal.get(id);
    if (plan.local.type === "delete" && mine) {
      ops.push({ op: "delete", path: mine.file }, { op: "remove-folder-if-empty", path: mine.folder });
      deletes++;
      changes.push({ kind: "course", id, path: mine.folder, outcome: "deleted" });
    } else if (plan.local.type === "create" && values && folder) {
      ops.push({ op: "write", path: file, text: courseFileText(id, values) });
      changes.push({ kind: "course", id, path: folder, outcome: "created" });
    } else if (plan.local.type === "write" && values && folder && mine) {
      ops.push({ op: "write", path: file, text: courseFileText(id, values) });
      changes.push({
        kind: "course",
        id,
        path: folder,
        outcome: "updated",
        fields: plan.local.fields,
        ...(mine.folder !== folder ? { from: mine.folder } : {}),
      });
    } else if (mine && folder && mine.folder !== folder) {
      changes.push({ kind: "course", id, path: folder, outcome: "renamed", from: mine.folder });
    }
    if (remote) {
      const values = courseValuesOfRecord(remote);
      const entryPath = folder ?? entry?.path ?? mine?.folder;
      if (entryPath !== undefined) {
        const unchanged = entry && jsonEqual(snapshotRecord(remote), entry.record);
        next.courses[id] = {
          path: entryPath,
          hash: unchanged ? entry.hash : sha(courseFileText(id, values)),
          record: snapshotRecord(remote),
        };
      }
    } else if (plan.local.type === "delete" || !mine) {
      delete next.courses[id];
    }
  }

  // ---- chapters ----
  const translate = (file: string) => {
    const [top, name, rest] = file.split("/");
    const folder = `${top}/${name}`;
    const moved = folderMoves.get(folder);
    return moved ? `${moved}/${rest}` : file;
  };
  for (const [id, plan] of chapterPlans) {
    const mine = local.chapters.get(`chapter:${id}`);
    const remote = remoteChapters.get(id);
    const entry = base.chapters[id];
    const current = mine ? translate(mine.file) : undefined;
    const target = layout.chapterFile.get(id);
    const marked = bodyConflict(plan, { id, mine, entry, remote, baseTexts: input.baseTexts, bodies });
    if (marked && current && remote && entry) {
      // Both sides are in the file; the site's version becomes the base, as after a git merge.
      ops.push({ op: "write", path: current, text: marked });
      const rendered = renderChapter(id, chapterValuesOfRecord(remote), bodies);
      next.chapters[id] = {
        path: current,
        hash: rendered.hash,
        body: rendered.body,
        record: snapshotRecord(remote),
      };
      cacheTexts.push(String(remote.content));
      changes.push({
        kind: "chapter",
        id,
        path: current,
        outcome: "conflict",
        reason: `${conflictReason({ reason: "both-changed", fields: ["content"] })}; both sides are in the file between conflict markers: keep what you want, remove the markers, then push`,
        fields: ["content"],
      });
      continue;
    }
    if (plan.conflict || unplaceable.has(id)) {
      const where = current ?? target ?? (entry ? translate(entry.path) : undefined);
      const copyPath = where ? conflictCopyPath(where) : undefined;
      if (remote && copyPath) {
        const values = chapterValuesOfRecord(remote);
        ops.push({ op: "copy", path: copyPath, text: chapterFileText(id, values, bodies) });
      }
      changes.push({
        kind: "chapter",
        id,
        path: where ?? "",
        outcome: "conflict",
        reason: plan.conflict ? conflictReason(plan.conflict) : "its course has no folder here",
        fields: plan.conflict?.fields ?? [],
        ...(remote && copyPath ? { copy: copyPath } : {}),
      });
      if (entry && current) next.chapters[id] = { ...entry, path: current };
      continue;
    }
    if (mine && input.existingCopies.has(conflictCopyPath(mine.file))) {
      ops.push({ op: "remove-copy", path: conflictCopyPath(current ?? mine.file) });
    }
    const values = plan.merged as unknown as ChapterValues | undefined;
    if (plan.local.type === "delete" && current) {
      ops.push({ op: "delete", path: current });
      deletes++;
      changes.push({ kind: "chapter", id, path: current, outcome: "deleted" });
    } else if (plan.local.type === "create" && values && target) {
      ops.push({ op: "write", path: target, text: chapterFileText(id, values, bodies) });
      changes.push({ kind: "chapter", id, path: target, outcome: "created" });
    } else if (plan.local.type === "write" && values && target && current) {
      ops.push({ op: "write", path: target, text: chapterFileText(id, values, bodies), from: current });
      changes.push({
        kind: "chapter",
        id,
        path: target,
        outcome: "updated",
        fields: plan.local.fields,
        ...(current !== target ? { from: current } : {}),
      });
    } else if (modeChanged && mine?.unchanged && remote && current && target) {
      // coursesync.yaml's `body` changed: rewrite the untouched files in the new form (no request).
      const { text } = renderChapter(id, chapterValuesOfRecord(remote), bodies);
      ops.push({ op: "write", path: target, text, from: current });
      changes.push({ kind: "chapter", id, path: target, outcome: "updated", fields: ["format"] });
    } else if (current && target && current !== target) {
      ops.push({ op: "move", from: current, to: target });
      changes.push({ kind: "chapter", id, path: target, outcome: "renamed", from: current });
    }
    if (remote) {
      const entryPath = target ?? current ?? (entry ? translate(entry.path) : undefined);
      const record = snapshotRecord(remote);
      const unchanged = entry && jsonEqual(record, entry.record) && !modeChanged && entry.body !== undefined;
      if (!(entry && jsonEqual(record, entry.record))) cacheTexts.push(String(remote.content ?? ""));
      if (entryPath !== undefined) {
        const rendered = unchanged ? undefined : renderChapter(id, chapterValuesOfRecord(remote), bodies);
        next.chapters[id] = {
          path: entryPath,
          hash: rendered ? rendered.hash : entry!.hash,
          body: rendered ? rendered.body : entry!.body,
          record,
        };
      }
    } else if (plan.local.type === "delete" || !mine) {
      delete next.chapters[id];
    }
  }
  // Course folders that end up empty go (after their files).
  ops.sort((a, b) => OP_ORDER[a.op] - OP_ORDER[b.op]);
  return { ops, changes, snapshot: next, deletes, cacheTexts };
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

/** The snapshot entry a record would have at a path (used by push after a write). */
export function entryFor(pathOf: string, text: string, record: WireRecord): SnapshotEntry {
  return { path: pathOf, hash: sha(text), record: snapshotRecord(record) };
}
