import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { contentMerger } from "../content-merge.js";
import { noBaseNote } from "../local/bases.js";
import { chapterValuesAgainst, type LocalChapter, type LocalView } from "../local/view.js";
import { type ChapterValues, type CourseValues, fieldsEqual, valuesOfRecord } from "../model/entities.js";
import { type Change, conflictReason } from "../model/report.js";
import { type Conflict, reconcileEntity } from "../reconcile.js";
import type { Snapshot } from "../state/snapshot.js";
import { conflictResolve } from "./hold.js";
import type { PushOp } from "./plan.js";

// What a record re-read from the site means for its write (pure): send these fields, create
// it again, or stop on a conflict.

/** A write to a record the site already has: an update or a delete. */
export type TargetOp = Extract<PushOp, { id: number }>;

/** What re-reading the site decided for one write. */
export interface Decision {
  /** Fields to send (update), after dropping what the site already has. */
  fields: string[];
  /** The values the record should end with (local edits over the site's record). */
  merged: CourseValues | ChapterValues | undefined;
  /** The site's record as re-read (undefined when it is gone). */
  remote: WireRecord | undefined;
  /** --force over a record the site deleted: create it again from the local file. */
  recreate?: boolean;
}

/** A decision, or the conflict that keeps the write from being sent. */
export type Checked = { decision: Decision } | { conflict: Change };

/** What a decision is made from, besides the op and the record re-read. */
export interface Known {
  snapshot: Snapshot;
  local: LocalView;
  /** The local side wins conflicts. */
  force: boolean;
  bodies: BodyCodec;
  /** The last sync's chapter texts by hash: the base of a body merge. */
  baseTexts?: ReadonlyMap<string, string>;
}

/** The conflict a write met, as a change to report. */
function conflictChange(op: TargetOp, conflict: Conflict, note = ""): Change {
  return {
    kind: op.kind,
    id: op.id,
    path: op.path,
    outcome: "conflict",
    fields: conflict.fields,
    reason: `${conflictReason(conflict)}${note}`,
    // Push writes no file: the site's side comes in with a pull.
    resolution: "none",
    resolve: conflictResolve(conflict.reason),
  };
}

/**
 * Reconcile one write with the record as the site now has it (undefined: gone): the last
 * sync is the base, the file the local side.
 */
export function decideWrite(op: TargetOp, record: WireRecord | undefined, known: Known): Checked {
  const table = op.kind === "course" ? known.snapshot.courses : known.snapshot.chapters;
  const entry = table[op.id];
  const mine = op.kind === "course" ? known.local.courses.get(op.key) : known.local.chapters.get(op.key);
  const localValues =
    op.type === "delete" || !mine
      ? undefined
      : op.kind === "chapter"
        ? chapterValuesAgainst(mine as LocalChapter, record?.content, known.bodies)
        : mine.values;
  const plan = reconcileEntity(
    {
      kind: op.kind,
      id: op.id,
      key: op.key,
      base: entry ? valuesOfRecord(op.kind, entry.record) : undefined,
      local: localValues ? localValues : undefined,
      remote: record ? valuesOfRecord(op.kind, record) : undefined,
      remoteKnown: true,
    },
    {
      equal: fieldsEqual,
      winner: known.force ? "local" : undefined,
      // A body edited on both sides merges (in Markdown, for a Markdown file) as pull merges it.
      mergeText:
        op.kind === "chapter"
          ? contentMerger(
              known.bodies,
              known.baseTexts ?? new Map(),
              (mine as LocalChapter | undefined)?.body,
            )
          : undefined,
    },
  );
  if (plan.conflict)
    return { conflict: conflictChange(op, plan.conflict, noBaseNote(plan.conflict, known.baseTexts, entry)) };
  return {
    decision: {
      fields: plan.toSite.type === "update" ? plan.toSite.fields : [],
      merged: plan.merged,
      remote: record,
      recreate: plan.toSite.type === "create",
    },
  };
}

/**
 * Deleting a course deletes its chapters: one the site still has in it that this push does
 * not take out of it (made on the site since the last sync, or kept here) would be lost with
 * it, so the delete is a conflict (unless --force). `leaving`: the ids of the chapters this
 * push is still to delete or move to another course.
 */
export function courseDeleteConflict(
  op: TargetOp,
  listed: readonly WireRecord[],
  leaving: ReadonlySet<number>,
  force: boolean,
): Change | undefined {
  if (force || op.kind !== "course" || op.type !== "delete") return undefined;
  const kept = listed.some((c) => Number(c.course_id) === op.id && !leaving.has(c.id));
  return kept ? conflictChange(op, { fields: [], reason: "deleted-locally-edited-remotely" }) : undefined;
}
