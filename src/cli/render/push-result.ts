import type { Method } from "../../api/client.js";
import { type Change, countOutcomes } from "../../sync/model/report.js";
import type { PushResult } from "../../sync/push/options.js";
import { counted, grouped } from "../../util/words.js";
import type { Output } from "../output.js";
import { changeJson, countsLine } from "../summary.js";
import type { PushJson } from "./json-types.js";
import { heldPlanLines, heldSummaryLines, opJson, opLine, planSummary } from "./push-plan.js";

// What push and restore say when they end: the summary for people, or one JSON object.

/**
 * What a stopped push did and what it did not send: "3 updated, 868 not sent". The writes not
 * sent are counted, not listed one by one.
 */
function stoppedCounts(changes: readonly Change[]): string {
  const notSent = changes.filter((c) => c.outcome === "skipped").length;
  const sent = changes.filter((c) => c.outcome !== "skipped");
  const counts = sent.some((c) => c.outcome !== "unchanged") ? countsLine(sent) : "nothing sent";
  return notSent > 0 ? `${counts}, ${grouped(notSent)} not sent` : counts;
}

/** The outcomes of writes that reached the site. */
const SENT: ReadonlySet<Change["outcome"]> = new Set(["created", "updated", "deleted"]);

/** The warning for a record another writer changed while this push wrote it. */
export function racedWarning(change: Change): string {
  return (
    `${change.kind} ${change.id} (${change.path}) was changed on the site while this push wrote it ` +
    `(${(change.raced ?? []).join(", ")}): that change is kept and now in the file. The API has no ` +
    "conditional update: had they changed a field this push sent as well, theirs was overwritten. " +
    `Run \`coursesync pull\` and check the ${change.kind} on the site.`
  );
}

/** The line a restore opens with: what the site lost and what only it has. */
export function restoredLine(
  restored: { lost: number; extra: number },
  site: { name: string; url: string },
  deletes: boolean,
): string {
  const extra =
    restored.extra === 0
      ? ""
      : `; ${counted(restored.extra, "record")} only on the site ${deletes ? "(deleted: --delete)" : "(left alone; --delete deletes them)"}`;
  return `Restore into "${site.name}" (${site.url}): ${counted(restored.lost, "record")} of the last sync the site no longer has (created again from their files, which take the new ids)${extra}; what differs is sent from the files.`;
}

/** What the summary of a run is said about. */
export interface PushSummaryContext {
  site: { name: string; url: string };
  /** `push` or `restore`: the command to run again. */
  verb: "push" | "restore";
  restore: boolean;
  /** The person (or a run without a terminal) said no to the plan. */
  refused: boolean;
  stdinIsTTY: boolean;
  /** API requests the run made, by method. */
  requests: Record<Method, number>;
}

/** A run's --json summary. */
export function pushJson(result: PushResult, x: PushSummaryContext): PushJson {
  const { plan } = result;
  return {
    command: x.verb,
    site: x.site.url,
    ...(x.restore ? { restored: plan.restored ?? null } : {}),
    dry_run: result.dryRun,
    applied: result.applied,
    plan: plan.ops.map(opJson),
    counts: countOutcomes(result.changes),
    changes: result.changes.map(changeJson),
    // What went to the site, and what was held back (each saying what resolves it).
    sent: result.changes.filter((c) => SENT.has(c.outcome)).map(changeJson),
    held: result.held.map(changeJson),
    conflicts: result.conflicts.map(changeJson),
    raced: result.raced.map(changeJson),
    kept: plan.kept ?? [],
    errors: result.changes.filter((c) => c.outcome === "failed").map(changeJson),
    requests: x.requests,
  };
}

/**
 * A dry run's summary: the plan, what holds it back, and the delete guard. Returns whether the
 * deletes are over the limit (a dry run exits as the real run would).
 */
function printDryRun(out: Output, result: PushResult, x: PushSummaryContext): boolean {
  const { plan } = result;
  out.result(
    `Dry run: push to "${x.site.name}" (${x.site.url}) would send ${counted(plan.ops.length, "write")}: ${planSummary(plan)}`,
  );
  for (const op of plan.ops) out.result(opLine(op, out));
  for (const line of heldPlanLines(plan, out)) out.result(line);
  if (result.unchecked) out.warn(`the plan was not checked against the site: ${result.unchecked}`);
  if (result.held.length > 0) out.results(heldSummaryLines(result.held, [], false));
  const deletes = plan.ops.filter((op) => op.type === "delete").length;
  if (result.deleteLimit === undefined || deletes <= result.deleteLimit) return false;
  out.warn(
    `${counted(deletes, "delete")} ${deletes === 1 ? "is" : "are"} over the limit of ${result.deleteLimit}: a real push would stop unless --max-delete ${deletes}`,
  );
  return true;
}

/**
 * A run's summary for people, then its warnings (records raced, records kept on the site).
 * Returns whether a dry run's deletes are over the limit.
 */
export function printPushSummary(out: Output, result: PushResult, x: PushSummaryContext): boolean {
  const { plan } = result;
  let overLimit = false;
  if (result.dryRun) overLimit = printDryRun(out, result, x);
  else if (plan.ops.length === 0 && result.held.length > 0) {
    out.results(heldSummaryLines(result.held, result.changes, true));
  } else if (plan.ops.length === 0 && (plan.kept ?? []).some((kept) => kept.conflict)) {
    out.result("Nothing was sent: what differs waits for the conflicts below to be resolved.");
  } else if (plan.ops.length === 0) {
    out.result(
      x.restore
        ? "Nothing to restore: the site holds the tree."
        : "Nothing to push: the tree matches the last sync.",
    );
  } else if (x.refused) {
    out.result(
      x.stdinIsTTY
        ? "Nothing was sent."
        : "Nothing was sent: confirmation is needed and there is no terminal. Run again with --yes to apply this plan.",
    );
  } else if (result.interrupted) {
    out.result(
      `Push interrupted (${stoppedCounts(result.changes)}): what was applied is saved; ` +
        `run \`coursesync ${x.verb}\` again to send the rest.`,
    );
  } else if (result.held.length > 0) {
    out.results(heldSummaryLines(result.held, result.changes, true));
  } else if (result.failed) {
    out.result(
      `Push stopped by a failure: ${stoppedCounts(result.changes)}. What was applied is saved; ` +
        `fix the cause above and run \`coursesync ${x.verb}\` again to send the rest.`,
    );
  } else {
    out.result(`Pushed: ${countsLine(result.changes)}.`);
  }
  for (const change of result.raced) out.warn(racedWarning(change));
  for (const kept of plan.kept ?? [])
    out.warn(`${kept.kind} ${kept.path} is kept on the site: ${kept.reason}`);
  return overLimit;
}
