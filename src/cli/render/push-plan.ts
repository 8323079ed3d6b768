import type { Change } from "../../sync/model/report.js";
import type { PushOp, PushPlan } from "../../sync/push/plan.js";
import { counted } from "../../util/words.js";
import type { Output } from "../output.js";
import { countsLine } from "../summary.js";
import type { PlanOpJson } from "./json-types.js";

function show(value: unknown): string {
  if (value === null || value === undefined) return "(none)";
  // Only text is quoted: `ordinal: 1 -> 3`, `free: true -> false`, `title: "A" -> "B"`.
  if (typeof value !== "string") return JSON.stringify(value);
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}

/** A body's change in the plan: with --force over the site's edit, the site's words it removes. */
function bodyChange(removes: readonly string[] | undefined): string {
  if (removes === undefined) return "body changed";
  if (removes.length === 0) return "body changed (overwrites the site's edit, removing no words)";
  return `body changed, overwriting the site's edit; removes: ${removes.map((run) => `- ${JSON.stringify(run)}`).join(" ")}`;
}

/** "chapter 3", or "chapter" for a record to create. */
function opName(op: PushOp): string {
  return `${op.kind}${op.type === "create" ? "" : ` ${op.id}`}`;
}

/** One line of the plan for people. */
export function opLine(op: PushOp, out: Output): string {
  const what = opName(op);
  switch (op.type) {
    case "create":
      return `  ${out.paint("green", "+ create")} ${what.padEnd(14)} ${op.path}`;
    case "delete":
      return `  ${out.paint("red", "- delete")} ${what.padEnd(14)} ${op.path}`;
    case "update": {
      const fields = op.diff
        .map((d) =>
          d.field === "content"
            ? bodyChange(d.removes)
            : d.field === "course_id"
              ? `moved to ${d.to === undefined ? "a new course" : `course ${d.to}`}`
              : `${d.field}: ${show(d.from)} -> ${show(d.to)}${"site" in d ? ` (overwrites the site's ${show(d.site)})` : ""}`,
        )
        .join("; ");
      return `  ${out.paint("yellow", "~ update")} ${what.padEnd(14)} ${op.path}  ${fields}`;
    }
  }
}

/** The plan as JSON (for a body --force overwrites, `removes`: the site's words it removes). */
export function opJson(op: PushOp): PlanOpJson {
  const base = { type: op.type, kind: op.kind, id: op.type === "create" ? null : op.id, path: op.path };
  if (op.type !== "update") return base;
  const removes = op.diff.find((d) => d.field === "content")?.removes;
  return { ...base, fields: op.fields, ...(removes ? { removes } : {}) };
}

export function planSummary(plan: PushPlan): string {
  const n = (type: PushOp["type"]) => plan.ops.filter((op) => op.type === type).length;
  return `${n("create")} to create, ${n("update")} to update, ${n("delete")} to delete`;
}

/**
 * The writes a plan holds back, for the plan a person reads before it is sent (or with
 * --dry-run): one line each, with why; nothing when none is held.
 */
export function heldPlanLines(plan: PushPlan, out: Output): string[] {
  const held = plan.held ?? [];
  if (held.length === 0) return [];
  return [
    `Held, not sent (one conflict holds one record; the rest is sent): ${counted(held.length, "write")}`,
    ...held.map(
      ({ op, change }) =>
        `  ${out.paint("magenta", `! ${op.type.padEnd(6)}`)} ${opName(op).padEnd(14)} ${op.path}  ${change.reason ?? ""}`,
    ),
  ];
}

/** The words for what a push held: "1 record in conflict with the site (and 1 write waiting on it)". */
function heldWords(held: readonly Change[]): string {
  const conflicts = held.filter((c) => c.outcome === "conflict").length;
  const waiting = held.length - conflicts;
  const records = `${counted(conflicts, "record")} in conflict with the site`;
  return waiting === 0
    ? records
    : `${records} (and ${counted(waiting, "write")} waiting on ${conflicts === 1 ? "it" : "them"})`;
}

/**
 * The closing lines of a push that held writes back: what was sent, what was not, and per held
 * record what resolves it. `done` is false for a dry run.
 */
export function heldSummaryLines(
  held: readonly Change[],
  changes: readonly Change[],
  done: boolean,
): string[] {
  const advice =
    "Run `coursesync pull` to merge, or `coursesync push --force` to overwrite the site's changes.";
  const sent = changes.filter(
    (c) => c.outcome === "created" || c.outcome === "updated" || c.outcome === "deleted",
  );
  const head = !done
    ? `A push would hold, not send: ${heldWords(held)}. ${advice}`
    : sent.length === 0
      ? `Nothing was sent: ${heldWords(held)}. ${advice}`
      : `Pushed what is not in conflict (${countsLine(sent)}); held, not sent: ${heldWords(held)}. ${advice}`;
  return [
    head,
    ...held.map(
      (c) =>
        `  held ${c.path} (${c.kind}${c.id === undefined ? "" : ` ${c.id}`}): ${c.resolve ?? c.reason ?? "see above"}`,
    ),
  ];
}
