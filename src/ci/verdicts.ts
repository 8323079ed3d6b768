import { ExitCode, UserError } from "../errors.js";
import { counted } from "../util/words.js";
import type { Verdict } from "./job.js";

/** The subject of the commit a publish makes: `[skip ci]` keeps it from starting the workflow again. */
export const PUBLISH_MESSAGE = "coursesync: ids and snapshot after publish [skip ci]";

/** The subject of a backup's commit. */
export function backupMessage(site: string): string {
  return `coursesync: backup of ${site} [skip ci]`;
}

/** Commit nothing and fail: the command stopped (exit 3) or failed; `code` is the job's exit code too. */
function nothingCommitted(
  code: number,
  stopped: string,
  hint: { stopped: string; failed: string },
  job: string,
) {
  const exitCode =
    code === ExitCode.stopped || code === ExitCode.usage || code >= 128 ? code : ExitCode.failed;
  const message =
    code === ExitCode.stopped
      ? `${stopped} (see above); nothing was committed`
      : `${job} exited ${code} (see above); nothing was committed`;
  return {
    commit: false as const,
    error: new UserError(message, {
      hint: code === ExitCode.stopped ? hint.stopped : hint.failed,
      exitCode: exitCode as ExitCode,
    }),
  };
}

/** The records named, up to a few. */
function named(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(", ");
  return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown;
}

/** What resolves a conflict that holds a record, from a CI job: it happens in a clone. */
const RESOLVE_IN_A_CLONE =
  "Run `coursesync pull` in a clone of this branch, resolve the conflicts (`coursesync status` lists them), " +
  "commit, and merge the fix: the next publish sends it.";

/**
 * What a publish does after `push --yes` exited with `code`, `held` naming the records push
 * held back on a conflict. 0: commit the ids and the snapshot. 3 (one conflict holds one
 * record: the rest was sent; or another writer raced a write, or a guard stopped it before
 * any): commit what push saved, then fail with 3 naming what waits. Anything else: commit
 * nothing (the next run adopts what was sent) and fail.
 */
export function publishVerdict(code: number, held: readonly string[] = []): Verdict {
  if (code === ExitCode.ok) return { commit: true };
  if (code === ExitCode.stopped) {
    const message =
      held.length > 0
        ? `publish held ${counted(held.length, "record")} back, in conflict with the site or waiting on one: ${named(held)} (see above); the rest was sent, and its ids and snapshot are committed`
        : "publish stopped (see above); what it sent, if anything, is committed";
    return {
      commit: true,
      error: new UserError(message, { hint: RESOLVE_IN_A_CLONE, exitCode: ExitCode.stopped }),
    };
  }
  return nothingCommitted(
    code,
    "publish stopped",
    {
      stopped: RESOLVE_IN_A_CLONE,
      failed:
        "Fix the cause and run the job again: it sends what is left and adopts what was already created.",
    },
    "publish failed: push",
  );
}

/**
 * What a backup does after `pull --no-markers` exited with `code`, `held` naming the records in
 * conflict. 0: commit what changed. 3 with records in conflict: commit everything pulled (the
 * files, the snapshot, the events): a conflicting record keeps the branch's file and its last
 * sync in the snapshot (no markers: pull wrote the site's version beside the file, a copy
 * git ignores), so the next backup finds it again and a restore sends only valid files;
 * then fail with 3 naming what waits. 1 with the snapshot rewritten: pull finished its
 * writes but left some records out as they were (invalid local files, or records a listing
 * that moved did not show: kept, never deleted): commit what it pulled, then fail. 3 without
 * conflicts (the delete guard), and every other failure: commit nothing, and fail.
 */
export function backupVerdict(code: number, snapshotChanged: boolean, held: readonly string[] = []): Verdict {
  if (code === ExitCode.ok) return { commit: true };
  if (code === ExitCode.stopped && held.length > 0) {
    return {
      commit: true,
      error: new UserError(
        `backup: ${counted(held.length, "record")} ${held.length === 1 ? "waits" : "wait"} on a conflict: ${named(held)} (see above); everything else pulled, with the events, is committed`,
        {
          hint:
            "Run `coursesync pull` in a clone of this branch, resolve what it reports (`coursesync status` lists it), " +
            "commit and merge: the next publish sends the resolution, and the next backup takes in the rest.",
          exitCode: ExitCode.stopped,
        },
      ),
    };
  }
  if (code === ExitCode.failed && snapshotChanged) {
    return {
      commit: true,
      error: new UserError(
        "backup incomplete: pull left some records out (see above); what it pulled is committed",
        {
          hint:
            "Invalid files: fix the files pull names (`coursesync status` lists them), commit, and run the backup again. " +
            "A listing that moved (records deleted or edited on the site while pull paged through): only run the backup again.",
        },
      ),
    };
  }
  return nothingCommitted(
    code,
    "backup stopped: pull met its delete guard",
    {
      stopped:
        "Run `coursesync pull` in a clone of this branch, resolve what it reports, commit and push; " +
        "the next backup goes on from there.",
      failed: "Fix the cause and run the job again.",
    },
    "backup failed: pull",
  );
}
