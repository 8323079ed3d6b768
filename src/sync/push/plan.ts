import type { ChapterInput, CourseInput } from "../../api/wire.js";
import { recordFilePath } from "../../tree/layout.js";
import { FIELD_RULES, STATUS_VALUES, statusProblem } from "../../tree/schema.js";
import { FileProblem } from "../../tree/yaml-text.js";
import type { LocalChange } from "../local/changes.js";
import type { LocalView } from "../local/view.js";
import type { ChapterValues, CourseValues } from "../model/entities.js";
import { courseValuesOfRecord, valuesOfRecord } from "../model/entities.js";
import type { Change } from "../model/report.js";
import type { Fields, Kind } from "../reconcile.js";
import type { Snapshot } from "../state/snapshot-model.js";

/** What a write sends for a record of kind K: course or chapter values. */
export type ValuesOf<K extends Kind> = { course: CourseValues; chapter: ChapterValues }[K];

/** A record to create on the site, with the values its file holds. */
export type CreateOp<K extends Kind = Kind> = {
  course: { type: "create"; kind: "course"; key: string; path: string; values: CourseValues };
  chapter: {
    type: "create";
    kind: "chapter";
    key: string;
    path: string;
    values: ChapterValues;
    /** The key of the course the chapter is created in. */
    courseKey: string;
  };
}[K];

/** Fields of a record the site has, to send. */
export type UpdateOp<K extends Kind = Kind> = K extends Kind
  ? {
      type: "update";
      kind: K;
      id: number;
      key: string;
      path: string;
      fields: string[];
      courseKey?: string | undefined;
      /**
       * Old and new values of each field, for the plan a person reads (bodies as "(changed)");
       * `site`: the site's value now, when it is not the old one (what --force overwrites).
       */
      diff: Array<{
        field: string;
        from: unknown;
        to: unknown;
        site?: unknown;
        /** A body the site changed that --force overwrites: the site's words it removes. */
        removes?: string[];
      }>;
    }
  : never;

/** A record of the site to delete. */
export type DeleteOp<K extends Kind = Kind> = K extends Kind
  ? { type: "delete"; kind: K; id: number; key: string; path: string }
  : never;

/** One write push will send, in the order it is sent; `kind` fixes the type of its values. */
export type PushOp<K extends Kind = Kind> = CreateOp<K> | UpdateOp<K> | DeleteOp<K>;

/** A write to a record the site already has: an update or a delete. */
export type TargetOp<K extends Kind = Kind> = UpdateOp<K> | DeleteOp<K>;

/** The plan: writes in order, plus renames that only move the snapshot's idea of a path. */
export interface PushPlan {
  ops: PushOp[];
  /** Local renames with nothing to send: key and new path. */
  renames: Array<{ kind: "course" | "chapter"; id: number; path: string; from: string }>;
  problems: FileProblem[];
  /** Deletes left out of this push (watch without --delete): a plain push sends them. */
  heldDeletes?: PushOp[];
  /** Records of the site this push leaves there although their file is gone, and why. */
  kept?: Array<{ kind: "course" | "chapter"; path: string; reason: string; conflict?: true }>;
  /** A restore: every record is created on a site that was empty and had no snapshot. */
  restore?: boolean;
  /**
   * Writes held back, not sent: their record is in conflict with the site, or they wait on a
   * write that is (see push/hold.ts). `change` says why and what resolves it.
   */
  held?: Array<{ op: PushOp; change: Change }>;
  /** `coursesync restore`: records of the last sync the site lost, and records only it has. */
  restored?: { lost: number; extra: number };
}

const STATUS_INPUT = Object.fromEntries(STATUS_VALUES.map((status, code) => [status, code])) as Record<
  string,
  number
>;

function isDateTime(field: string): boolean {
  return (FIELD_RULES.course as Record<string, { type: string }>)[field]?.type === "datetime";
}

/** The API's course input for some fields of a course (status as 0/1, an empty date as null). */
export function courseInput(values: CourseValues, fields: readonly string[]): CourseInput {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field as keyof CourseValues];
    if (field === "status") {
      const code = STATUS_INPUT[String(value)];
      if (code !== undefined) out.status = code;
    } else out[field] = value === "" && isDateTime(field) ? null : value; // empty: not set
  }
  return out as CourseInput;
}

/** The API's chapter input for some fields of a chapter. */
export function chapterInput(
  values: ChapterValues,
  fields: readonly string[],
  courseId?: number,
): ChapterInput {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (field === "course_id") out.course_id = courseId ?? values.course_id;
    else if (field === "content") {
      if (typeof values.content !== "string") throw new Error("content to send is not at hand");
      out.content = values.content;
    } else out[field] = values[field as keyof ChapterValues];
  }
  return out as ChapterInput;
}

/**
 * What only the plan can see of a course's values: a status the API cannot take, a yes/no the
 * site requires whose line was removed (sending null would be refused).
 */
function courseProblem(change: LocalChange, snapshot: Snapshot): FileProblem | undefined {
  const { plan: p } = change;
  if (p.kind !== "course" || !p.merged || (p.toSite.type !== "create" && p.toSite.type !== "update"))
    return undefined;
  const file = recordFilePath(p.kind, change.path);
  const values = p.merged;
  const base = p.id === undefined ? undefined : snapshot.courses[p.id];
  const baseStatus = base ? courseValuesOfRecord(base.record).status : undefined;
  const status = statusProblem(file, values.status, baseStatus, undefined);
  if (status) return status;
  const toSite = p.toSite;
  const cleared = (["free", "questions_enabled"] as const).filter(
    (field) => toSite.type === "update" && toSite.fields.includes(field) && values[field] == null,
  );
  if (cleared.length === 0) return undefined;
  return new FileProblem(
    file,
    undefined,
    `${cleared.join(" and ")} ${cleared.length > 1 ? "are" : "is"} missing: the site takes only true or false`,
    `Put the line back, for example ${cleared[0]}: false.`,
    { rule: "required" },
  );
}

/** The update of one changed record: the fields to send, and their old and new values. */
function updateOf(change: LocalChange, snapshot: Snapshot, fields: string[]): PushOp {
  const { plan: p } = change;
  const entry = p.kind === "course" ? snapshot.courses[p.id!] : snapshot.chapters[p.id!];
  const before: Fields = entry ? valuesOfRecord(p.kind, entry.record) : {};
  const after: Fields = p.merged ?? {};
  return {
    type: "update",
    kind: p.kind,
    id: p.id!,
    key: p.key,
    path: change.path,
    fields,
    courseKey: change.courseKey,
    diff: fields.map((field) =>
      field === "content"
        ? { field, from: "(body)", to: "(changed)" }
        : { field, from: before[field], to: after[field] },
    ),
  };
}

/**
 * Turn local changes into the ordered writes of a push: course creates, chapter creates,
 * updates, chapter deletes, course deletes. Checks what only the plan can see: a status the
 * API cannot take, a chapter whose new course will not exist.
 */
export function planPush(changes: readonly LocalChange[], snapshot: Snapshot, local: LocalView): PushPlan {
  const plan: PushPlan = { ops: [], renames: [], problems: [] };
  const courseCreates: PushOp[] = [];
  const chapterCreates: PushOp[] = [];
  const updates: PushOp[] = [];
  const chapterDeletes: PushOp[] = [];
  const courseDeletes: PushOp[] = [];
  const creatingCourse = new Set<string>();
  for (const change of changes) {
    if (change.plan.kind === "course" && change.plan.toSite.type === "create")
      creatingCourse.add(change.plan.key);
  }

  for (const change of changes) {
    const { plan: p } = change;
    const file = recordFilePath(p.kind, change.path);
    const problem = courseProblem(change, snapshot);
    if (problem) {
      plan.problems.push(problem);
      continue;
    }
    switch (p.toSite.type) {
      case "create":
        if (p.kind === "course") {
          courseCreates.push({
            type: "create",
            kind: "course",
            key: p.key,
            path: change.path,
            // A create always ends with the local values merged.
            values: p.merged!,
          });
        } else {
          const courseKey = change.courseKey ?? "";
          const courseId = local.courses.get(courseKey)?.id;
          if (courseId === undefined && !creatingCourse.has(courseKey)) {
            plan.problems.push(
              new FileProblem(file, undefined, "its course folder has no course to create it in", undefined, {
                rule: "outside-course",
              }),
            );
            continue;
          }
          chapterCreates.push({
            type: "create",
            kind: "chapter",
            key: p.key,
            path: change.path,
            values: p.merged!,
            courseKey,
          });
        }
        break;
      case "update":
        updates.push(updateOf(change, snapshot, p.toSite.fields));
        break;
      case "delete":
        (p.kind === "course" ? courseDeletes : chapterDeletes).push({
          type: "delete",
          kind: p.kind,
          id: p.id!,
          key: p.key,
          path: change.path,
        });
        break;
      case "none":
        if (change.from && p.id !== undefined)
          plan.renames.push({ kind: p.kind, id: p.id, path: change.path, from: change.from });
        break;
    }
  }
  plan.ops = [...courseCreates, ...chapterCreates, ...updates, ...chapterDeletes, ...courseDeletes];
  return plan;
}
