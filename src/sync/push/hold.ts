import type { Change } from "../model/report.js";
import type { Conflict } from "../reconcile.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { PushOp, PushPlan } from "./plan.js";

// One conflict holds one record (DESIGN 4): a push sends every write whose record is not in
// conflict, and holds back only the conflicting ones and the writes that cannot go without them.
//
// The dependency rule, in the order the plan runs (a write depends only on earlier ones):
// - a chapter created in a course this push creates, or moved into one, waits for that
//   course's create: held when it is held;
// - a course delete takes the course's chapters along on the site: held when a write that
//   takes one of its chapters out of it (a chapter delete, a move to another course) is held;
// - nothing else waits: an update, a create in a course the site already has, a chapter delete
//   go whatever happens to their course's own write (a course whose fields are in conflict
//   still takes new chapters).

/** What resolves a conflict push met, by its reason: the line a person acts on. */
export function conflictResolve(reason: Conflict["reason"]): string {
  switch (reason) {
    case "both-changed":
    case "no-base":
      return "run `coursesync pull` to bring the site's change into the file (a merge, or its version beside the file), then push; or `coursesync push --force` to overwrite it";
    case "deleted-locally-edited-remotely":
      return "run `coursesync pull` to get the site's version back, or `coursesync push --force` to delete it anyway";
    case "deleted-remotely-edited-locally":
      return "run `coursesync push --force` to create it again from the file, or `coursesync pull --theirs` to remove the file";
    case "unknown-id":
      return "run `coursesync pull`: it says what the site has for this file";
  }
}

/** The id of the course a chapter is in at the last sync, if the snapshot knows it. */
function syncedCourse(snapshot: Snapshot, chapterId: number): number | undefined {
  const course = snapshot.chapters[chapterId]?.record.course_id;
  return course === undefined || course === null ? undefined : Number(course);
}

/** The writes of `ops` that `op` cannot go without (see the rule above). */
export function dependenciesOf(op: PushOp, ops: readonly PushOp[], snapshot: Snapshot): PushOp[] {
  if (op.kind === "chapter" && op.type !== "delete") {
    const moves = op.type === "create" || op.fields.includes("course_id");
    if (!moves || op.courseKey === undefined) return [];
    return ops.filter((o) => o.type === "create" && o.kind === "course" && o.key === op.courseKey);
  }
  if (op.kind === "course" && op.type === "delete") {
    return ops.filter(
      (o) =>
        o.kind === "chapter" &&
        (o.type === "delete" || (o.type === "update" && o.fields.includes("course_id"))) &&
        syncedCourse(snapshot, o.id) === op.id,
    );
  }
  return [];
}

/** A write held back because a write it depends on is held: reported as skipped, naming that one. */
export function heldWith(op: PushOp, by: Change): Change {
  const what = by.id === undefined ? `new ${by.kind}` : `${by.kind} ${by.id}`;
  // A write held by a held write names the one it waits for, and what resolves the conflict.
  const resolve = by.heldBy ? by.resolve : by.resolve && `resolve ${by.path} first: ${by.resolve}`;
  return {
    kind: op.kind,
    id: op.type === "create" ? undefined : op.id,
    path: op.path,
    outcome: "skipped",
    reason: `held with ${what} (${by.path}), which ${by.heldBy ? "is held" : "is in conflict"}`,
    heldBy: by.path,
    ...(resolve ? { resolve } : {}),
  };
}

/** A write held back, and the change that reports it. */
export interface HeldOp {
  op: PushOp;
  change: Change;
}

/**
 * Split a plan's writes into those to send and those held: the writes whose record is in
 * conflict (`conflicts`, by op key), and, in plan order, each write that depends on a held
 * one (see the rule above). Pure.
 */
export function holdDependents(
  ops: readonly PushOp[],
  conflicts: ReadonlyMap<string, Change>,
  snapshot: Snapshot,
): { send: PushOp[]; held: HeldOp[] } {
  const holding = new Map(conflicts);
  const send: PushOp[] = [];
  const held: HeldOp[] = [];
  for (const op of ops) {
    const conflict = holding.get(op.key);
    if (conflict) {
      held.push({ op, change: conflict });
      continue;
    }
    const by = dependenciesOf(op, ops, snapshot).find((d) => holding.has(d.key));
    if (!by) {
      send.push(op);
      continue;
    }
    const change = heldWith(op, holding.get(by.key)!);
    holding.set(op.key, change);
    held.push({ op, change });
  }
  return { send, held };
}

/**
 * Take out of the plan the writes the checked plan found in conflict (`conflicts`, one change
 * per record) and those that depend on them: they go to `plan.held`. Returns the changes that
 * report them, in plan order.
 */
export function holdBack(plan: PushPlan, conflicts: readonly Change[], snapshot: Snapshot): Change[] {
  if (conflicts.length === 0) return [];
  const byKey = new Map<string, Change>();
  for (const op of plan.ops) {
    if (op.type === "create") continue;
    const conflict = conflicts.find((c) => c.kind === op.kind && c.id === op.id);
    if (conflict) byKey.set(op.key, conflict);
  }
  const { send, held } = holdDependents(plan.ops, byKey, snapshot);
  plan.ops = send;
  plan.held = [...(plan.held ?? []), ...held];
  return held.map((h) => h.change);
}
