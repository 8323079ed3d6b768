import { ApiError } from "../../api/errors.js";
import type { UserError } from "../../errors.js";
import type { Change } from "../model/report.js";
import type { Done } from "../state/journal.js";
import { racedFields } from "./answers.js";
import type { Decision } from "./decide.js";
import type { PushResult } from "./options.js";
import type { PushOp, PushPlan } from "./plan.js";

// What one write of a push ends as: the change reported for it.

/** The change a confirmed write reports, with another writer's change the answer shows. */
export function doneChange(
  op: PushOp,
  line: Done,
  decision: Decision | undefined,
  notes: { adopted?: "equal" | "edited" | undefined; normalised?: readonly string[] | undefined } = {},
): Change {
  const { adopted, normalised } = notes;
  // An update re-read as already on the site sends nothing; one over a record the site
  // deleted (--force) creates it again.
  const sent = op.type === "update" ? (decision?.fields ?? op.fields) : [];
  const outcome =
    op.type === "create" || line.op === "create"
      ? "created"
      : op.type === "delete"
        ? "deleted"
        : sent.length > 0
          ? "updated"
          : "unchanged";
  const remote = decision?.remote;
  const raced =
    outcome === "updated" && remote && line.record ? racedFields(op.kind, remote, line.record, sent) : [];
  const reason =
    adopted === "equal"
      ? `the site already had an equal ${op.kind} that no sync knew (${op.kind} ${line.id}): adopted, not created again`
      : adopted === "edited"
        ? `the site already had this ${op.kind}, made by an earlier push from an older version of the file that no sync knew (${op.kind} ${line.id}): adopted, not created again, and the edits since sent to it`
        : normalised !== undefined
          ? `the site stored it otherwise than sent (${normalised.join("; ")}): taken as the site has it, into the file and the snapshot`
          : raced.length > 0
            ? `changed on the site while this push wrote it: ${raced.join(", ")} (kept, and brought into the file)`
            : outcome === "unchanged"
              ? "the site already had it"
              : op.type === "update" && line.op === "create"
                ? `deleted on the site; created again (it was ${op.kind} ${op.id})`
                : undefined;
  return {
    kind: op.kind,
    id: line.id,
    path: op.path,
    outcome,
    ...(outcome === "updated" ? { fields: sent } : {}),
    ...(reason === undefined ? {} : { reason }),
    ...(raced.length > 0 ? { raced } : {}),
  };
}

/** A failed write's message, with the site's field messages next to the file. */
export function failureText(error: UserError, file: string): string {
  if (error instanceof ApiError && error.fieldErrors) {
    const fields = Object.entries(error.fieldErrors)
      .map(([field, messages]) => `${file}: ${field} ${messages.join(", ")}`)
      .join("; ");
    return `${error.message} (${fields})`;
  }
  return error.message;
}

/** A run's result before anything is checked or sent. */
export function newResult(
  plan: PushPlan,
  maxDelete: number,
  restored: { lost: number; extra: number } | undefined,
  dryRun: boolean,
): PushResult {
  return {
    plan,
    ...(restored ? { restored: { lost: restored.lost, extra: restored.extra } } : {}),
    changes: [],
    applied: false,
    confirmed: false,
    dryRun,
    deleteLimit: maxDelete,
    conflicts: [],
    held: [],
    raced: [],
    failed: false,
  };
}

/** Reports a change into the result (and to `onChange`): conflicts, holds, races, failures. */
export function reporter(result: PushResult, onChange?: (change: Change) => void): (change: Change) => void {
  return (change) => {
    result.changes.push(change);
    if (change.outcome === "conflict") result.conflicts.push(change);
    if (change.outcome === "conflict" || change.heldBy) result.held.push(change);
    if (change.raced) result.raced.push(change);
    if (change.outcome === "failed") result.failed = true;
    onChange?.(change);
  };
}
