import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { contentMerger } from "../content-merge.js";
import { noBaseNote } from "../local/bases.js";
import { chapterValuesAgainst, type LocalView } from "../local/view.js";
import { chapterValuesOfRecord, courseValuesOfRecord, fieldsEqual } from "../model/entities.js";
import { type Change, conflictReason } from "../model/report.js";
import { type Conflict, type Kind, type ReconcileOptions, reconcileEntity } from "../reconcile.js";
import { matchesCreate } from "../state/recovery.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot-model.js";
import { conflictResolve } from "./hold.js";
import type { TargetOp, ValuesOf } from "./plan.js";

// What the site holds means for a write (pure): send these fields, create it again, or stop on
// a conflict (a record re-read); adopt, adopt then patch, or create (a would-be create).

export type { TargetOp } from "./plan.js";

/** What re-reading the site decided for one write to a record of kind K. */
export interface DecisionOf<K extends Kind> {
  kind: K;
  /** Fields to send (update), after dropping what the site already has. */
  fields: string[];
  /** The values the record should end with (local edits over the site's record). */
  merged: ValuesOf<K> | undefined;
  /** The site's record as re-read (undefined when it is gone). */
  remote: WireRecord | undefined;
  /** --force over a record the site deleted: create it again from the local file. */
  recreate?: boolean;
}

/** What re-reading the site decided for one write. */
export type Decision = DecisionOf<"course"> | DecisionOf<"chapter">;

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
  if (op.kind === "course") {
    const entry = known.snapshot.courses[op.id];
    const mine = known.local.courses.get(op.key);
    return reconcileWrite("course", op, known, entry, record, {
      base: entry && courseValuesOfRecord(entry.record),
      local: op.type === "delete" ? undefined : mine?.values,
      remote: record && courseValuesOfRecord(record),
    });
  }
  const entry = known.snapshot.chapters[op.id];
  const mine = known.local.chapters.get(op.key);
  return reconcileWrite(
    "chapter",
    op,
    known,
    entry,
    record,
    {
      base: entry && chapterValuesOfRecord(entry.record),
      local:
        op.type === "delete" || !mine ? undefined : chapterValuesAgainst(mine, record?.content, known.bodies),
      remote: record && chapterValuesOfRecord(record),
    },
    // A body edited on both sides merges (in Markdown, for a Markdown file) as pull merges it.
    contentMerger(known.bodies, known.baseTexts ?? new Map(), mine?.body),
  );
}

/** The three sides of one write, as values of its kind. */
interface Sides<T> {
  base: T | undefined;
  local: T | undefined;
  remote: T | undefined;
}

/** decideWrite for one kind: reconcile the three sides, then a decision or the conflict. */
function reconcileWrite<K extends Kind>(
  kind: K,
  op: TargetOp,
  known: Known,
  entry: SnapshotEntry | undefined,
  record: WireRecord | undefined,
  sides: Sides<ValuesOf<K>>,
  mergeText?: ReconcileOptions["mergeText"],
): { decision: DecisionOf<K> } | { conflict: Change } {
  const plan = reconcileEntity(
    { kind, id: op.id, key: op.key, ...sides, remoteKnown: true },
    { equal: fieldsEqual, winner: known.force ? "local" : undefined, mergeText },
  );
  if (plan.conflict)
    return { conflict: conflictChange(op, plan.conflict, noBaseNote(plan.conflict, known.baseTexts, entry)) };
  return {
    decision: {
      kind,
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

/** What the site holds for a would-be create, as the adoption look-ups found it. */
export interface CreateFound {
  /** A record no sync knows, equal to the fields to send. */
  equal?: WireRecord | undefined;
  /** A record an earlier run made from this file as it was then (the journal's create, or git's versions). */
  earlier?: WireRecord | undefined;
  /** The journal holds this create's intent: the record found is this file's own, not adopted. */
  journaled: boolean;
}

/** What a would-be create does: adopt a record the site holds, adopt it then patch it, or create. */
export type CreateDecision =
  | { type: "adopt"; record: WireRecord; adopted?: "equal" | "edited" }
  | { type: "patch"; record: WireRecord; since: Record<string, unknown>; adopted?: "edited" }
  | { type: "create" };

/**
 * Decide a create from what the site holds (pure). A record equal to the file, made by an
 * earlier run whose ids never reached this clone, is adopted, not made twice; one made from the
 * file as it was then is adopted, and what the file changed since goes as an update.
 */
export function decideCreate(found: CreateFound, fields: Record<string, unknown>): CreateDecision {
  if (found.equal)
    return { type: "adopt", record: found.equal, ...(found.journaled ? {} : { adopted: "equal" }) };
  const sent = found.earlier;
  if (!sent) return { type: "create" };
  const adopted = found.journaled ? {} : { adopted: "edited" as const };
  const since = Object.fromEntries(
    Object.entries(fields).filter(([k, v]) =>
      k === "ordinal" ? Number(sent.ordinal) !== Number(v) : !matchesCreate(sent, { [k]: v }),
    ),
  );
  if (Object.keys(since).length === 0) return { type: "adopt", record: sent, ...adopted };
  return { type: "patch", record: sent, since, ...adopted };
}
