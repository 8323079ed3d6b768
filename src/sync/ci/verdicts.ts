import { ExitCode, UserError } from "../../errors.js";
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

/**
 * What a publish does after `push --yes` exited with `code`: commit the ids and the snapshot on
 * success; on anything else commit nothing (the next run adopts what was sent) and fail.
 */
export function publishVerdict(code: number): Verdict {
  if (code === ExitCode.ok) return { commit: true };
  return nothingCommitted(
    code,
    "publish stopped: the site changed records this merge changes too",
    {
      stopped:
        "Run `coursesync pull` in a clone of this branch, resolve the conflicts (`coursesync status` lists them), " +
        "commit, and merge the fix: the next publish sends it.",
      failed:
        "Fix the cause and run the job again: it sends what is left and adopts what was already created.",
    },
    "publish failed: push",
  );
}

/**
 * What a backup does after `pull` exited with `code`. 0: commit what changed. 1 with the snapshot
 * rewritten: pull finished its writes but left some records out as they were (invalid local
 * files, or records a listing that moved did not show: kept, never deleted): commit what it
 * pulled, then fail. 3 (conflicts, whose markers must never reach the branch; or the delete
 * guard), and every other failure: commit nothing, and fail.
 */
export function backupVerdict(code: number, snapshotChanged: boolean): Verdict {
  if (code === ExitCode.ok) return { commit: true };
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
    "backup stopped: pull met conflicts or its delete guard",
    {
      stopped:
        "Run `coursesync pull` in a clone of this branch, resolve what it reports, commit and push; " +
        "the next backup goes on from there.",
      failed: "Fix the cause and run the job again.",
    },
    "backup failed: pull",
  );
}
