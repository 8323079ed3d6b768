import { courseFolderOf } from "../../tree/layout.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import { defaultMaxDelete, guardDeleteLimit, invalidFilesError } from "../guards.js";
import { inPaths, planLocalChanges } from "../local/changes.js";
import type { LocalView } from "../local/view.js";
import { changeSelected } from "../selection.js";
import { holdUnmatchedProvisional } from "../state/provisional.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { PushOptions } from "./options.js";
import { holdConflicts } from "./other-site.js";
import { type PushPlan, planPush } from "./plan.js";

// The plan of one push run (pure): which local changes it sends, as ordered writes, with what
// it holds back and the delete guard's limit. Data in, plan out; it throws on invalid files.

/** What a run's plan is made from. */
export interface PlanInput {
  snapshot: Snapshot;
  local: LocalView;
  /** Every problem of the files (see gatherTree). */
  problems: readonly FileProblem[];
  site: string;
  /** A site other than the tree's default one. */
  other: boolean;
  /** A non-default site with no snapshot: every record is created. */
  restore: boolean;
  /** `coursesync restore`: what the site lost, and what only it has. */
  restored?: { lost: number; extra: number } | undefined;
}

/** The plan and the delete guard's limit. */
export interface RunPlan {
  plan: PushPlan;
  maxDelete: number;
}

/** Whether a file was asked for: inside the paths and the selection. */
export function askedFor(options: PushOptions): (file: string) => boolean {
  return (file) => inPaths(file, options.paths) && (options.select?.(file) ?? true);
}

/**
 * Invalid files stop the push, unless they are outside the paths or selection asked for or
 * the caller (watch) skips them; either way nothing they stand for (or hold) is touched.
 * Returns the problems to report one by one (onInvalid) when the caller skips them.
 */
export function checkProblems(problems: readonly FileProblem[], options: PushOptions): FileProblem[] {
  const asked = askedFor(options);
  const blocking = options.skipInvalid ? [] : problems.filter((p) => asked(p.file));
  if (blocking.length > 0) throw invalidFilesError(blocking, "nothing was sent");
  return options.skipInvalid ? problems.filter((p) => asked(p.file)) : [];
}

/** Plan a run (pure): the local changes asked for, as writes, and the holds of its site. */
export function planRun(input: PlanInput, options: PushOptions): RunPlan {
  const { snapshot, local } = input;
  const blocked = input.problems.map((p) => courseFolderOf(p.file));
  const isBlocked = (file: string | undefined) =>
    file !== undefined && blocked.some((b) => file === b || file.startsWith(`${b}/`));
  const changes = planLocalChanges(snapshot, local, options.paths).filter((change) => {
    const entry =
      change.plan.id === undefined
        ? undefined
        : (change.plan.kind === "course" ? snapshot.courses : snapshot.chapters)[change.plan.id];
    const blockedHere = isBlocked(change.path) || isBlocked(change.from) || isBlocked(entry?.path);
    return !blockedHere && changeSelected(change, options.select);
  });
  const plan = planPush(changes, snapshot, local);
  if (input.restore) plan.restore = true;
  if (input.restored) plan.restored = { lost: input.restored.lost, extra: input.restored.extra };
  if (input.other) {
    holdUnmatchedProvisional(plan);
    holdConflicts(plan, snapshot, input.site);
  }
  if (options.deletes === false) {
    plan.heldDeletes = plan.ops.filter((op) => op.type === "delete");
    plan.ops = plan.ops.filter((op) => op.type !== "delete");
  }
  // planPush leaves out the operations of the files it reports.
  if (plan.problems.length > 0 && !options.skipInvalid)
    throw invalidFilesError(plan.problems, "nothing was sent");
  const siteSize = Object.keys(snapshot.courses).length + Object.keys(snapshot.chapters).length;
  return { plan, maxDelete: options.maxDelete ?? defaultMaxDelete(siteSize) };
}

/** The delete guard: more deletes than the limit stop the run before anything is sent. */
export function guardDeletes({ plan, maxDelete }: RunPlan): void {
  guardDeleteLimit("push", plan.ops.filter((op) => op.type === "delete").length, maxDelete);
}
