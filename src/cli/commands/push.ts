import type { Command } from "commander";
import { Option } from "commander";
import { processGit } from "../../ci/git.js";
import { resolveSite } from "../../config/config.js";
import { ExitCode, usageError } from "../../errors.js";
import { type Change, countOutcomes } from "../../sync/model/report.js";
import { push } from "../../sync/push/index.js";
import { fileSelection } from "../../sync/selection.js";
import { gitFileHistory } from "../../sync/state/file-history.js";
import { acquireLock } from "../../sync/state/lock.js";
import { loadSnapshot } from "../../sync/state/snapshot.js";
import { counted, grouped } from "../../util/words.js";
import { connect, stopRequestsOnSignal, syncTarget } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { Output } from "../output.js";
import { ignoreOption, knownTreePaths, maxDeleteFlag, onlyOption, type SelectionFlags } from "../paths.js";
import { type WriteProgress, writeProgress } from "../progress.js";
import { heldPlanLines, heldSummaryLines, opJson, opLine, planSummary } from "../render/push-plan.js";
import { restoreLines } from "../render/restore.js";
import { changeJson, changeLines, countsLine } from "../summary.js";
import { cleanStamp, openTree } from "../tree-root.js";
import { runWatch } from "./watch.js";

interface PushFlags extends SelectionFlags {
  dryRun?: boolean;
  yes?: boolean;
  force?: boolean;
  maxDelete?: string;
  json?: boolean;
  watch?: boolean;
  delete?: boolean;
  /** `coursesync restore`: make the site hold the tree (see PushOptions.restore). */
  restore?: boolean;
}

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
function racedWarning(change: Change): string {
  return (
    `${change.kind} ${change.id} (${change.path}) was changed on the site while this push wrote it ` +
    `(${(change.raced ?? []).join(", ")}): that change is kept and now in the file. The API has no ` +
    "conditional update: had they changed a field this push sent as well, theirs was overwritten. " +
    `Run \`coursesync pull\` and check the ${change.kind} on the site.`
  );
}

const EXAMPLES: Example[] = [
  {
    does: "see the plan for the intro courses alone (creates, updates, deletes); send nothing",
    line: "coursesync push --dry-run --only 'courses/intro-*/**'",
  },
  { does: "send local edits: shows the plan and asks first", line: "coursesync push" },
  {
    does: "restore the tree into a new, empty site added with `coursesync site add`",
    line: "coursesync push --site staging --yes",
  },
  { does: "push, then keep pushing each file as it is saved", line: "coursesync push --watch" },
];

/** `coursesync push [paths...]` */
export function registerPush(program: Command, run: CliRun): void {
  program
    .command("push")
    .description("send local edits to the site: creates, updates of changed fields, deletes")
    .argument("[paths...]", "limit to these files or folders")
    .option("-n, --dry-run", "print the plan; send and write nothing")
    .option("-y, --yes", "apply without asking (needed without a terminal)")
    .option("--force", "the local side wins conflicts with the site")
    .addOption(
      new Option(
        "--max-delete <n>",
        "most records the push may delete (default: 10, or 25% of the site if lower)",
      ),
    )
    .addOption(onlyOption("push"))
    .addOption(ignoreOption())
    .option("--json", "print one JSON summary on stdout (with --watch: one JSON line per event)")
    .option("--watch", "after pushing, keep pushing as files are saved (see `coursesync watch`)")
    .option("--delete", "with --watch: also delete on the site what is deleted here")
    .addHelpText(
      "after",
      `
With --site <name> (a site of coursesync.yaml other than the default one), push sends what
changed since that site's own last sync; the files keep the default site's ids, and the
site's snapshot maps them to its own. A new file pushed to such a site first keeps no id
line: the site's snapshot keeps it as a provisional record at its path, and once the default
site gives the file its id, the next run with --site <name> maps that id to the same record.
To a site that is empty and has no snapshot yet, push --site <name> is a restore: it creates
every course and chapter (journaled: run it again to finish one that was cut short).`,
    )
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (paths: string[], flags: PushFlags, command: Command) => {
      if (flags.watch) {
        const selected = flags.only !== undefined || flags.ignore !== undefined;
        if (paths.length || flags.dryRun || flags.force || flags.maxDelete !== undefined || selected) {
          throw usageError(
            "push --watch takes no paths and none of --dry-run, --force, --max-delete, --only, --ignore",
          );
        }
        return runWatch(run, command, { delete: flags.delete, yes: flags.yes, json: flags.json });
      }
      await pushRun(run, command, paths, flags);
    });
}

/** The line a restore opens with: what the site lost and what only it has. */
function restoredLine(
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

const RESTORE_EXAMPLES: Example[] = [
  {
    does: "see what a restore would send (creates, updates); send nothing",
    line: "coursesync restore --dry-run",
  },
  { does: "make the site hold the tree again after a loss", line: "coursesync restore --yes" },
  {
    does: "into a new, empty site added with `coursesync site add`",
    line: "coursesync restore --site restored --yes",
  },
  { does: "and delete what only the site has (guarded like push)", line: "coursesync restore --delete" },
];

/** `coursesync restore [paths...]`: make the site hold the tree (a backup brought back). */
export function registerRestore(program: Command, run: CliRun): void {
  program
    .command("restore")
    .description(
      "make the site hold the tree: create what it lacks, send what differs; delete only with --delete",
    )
    .argument("[paths...]", "limit to these files or folders")
    .option("-n, --dry-run", "print the plan; send and write nothing")
    .option("-y, --yes", "apply without asking (needed without a terminal)")
    .option("--delete", "also delete on the site what only it has (the delete guard applies)")
    .addOption(
      new Option(
        "--max-delete <n>",
        "with --delete: most records it may delete (default: 10, or 25% of the site if lower)",
      ),
    )
    .option("--json", "print one JSON summary on stdout")
    .addHelpText(
      "after",
      `
restore compares the tree with the site as it is now, not with the last sync: a record the
site lost (a wiped or partly wiped site) is created again from its file, which takes the new
id; a record that differs is sent from the file (the tree wins); a record only the site has is
left alone unless --delete. Journaled like push: run it again to finish one that was cut short;
nothing is created twice. Into a site that is empty and has no snapshot here, --site <name>
restores as push --site does.`,
    )
    .addHelpText("after", examplesText(RESTORE_EXAMPLES))
    .action(async (paths: string[], flags: PushFlags, command: Command) =>
      pushRun(run, command, paths, { ...flags, restore: true, force: true }),
    );
}

/** What push and restore share: read the tree, plan, confirm, send, report. */
async function pushRun(run: CliRun, command: Command, paths: string[], flags: PushFlags): Promise<void> {
  const globals = globalsOf(command);
  const out = new Output(run, globals.quiet || flags.json);
  const tree = await openTree(run, globals);
  const maxDelete = maxDeleteFlag(flags.maxDelete);
  const scope = paths.length
    ? knownTreePaths(
        run,
        tree.root,
        paths,
        await loadSnapshot(tree.root, resolveSite(tree.config, globals).name),
      )
    : undefined;
  const { site, client } = await connect(run, globals, tree.config);
  const verb = flags.restore ? "restore" : "push";
  const release = flags.dryRun ? async () => {} : await acquireLock(tree.root, site.name, verb);
  stopRequestsOnSignal(
    run,
    client,
    "interrupted before anything was sent",
    `Run \`coursesync ${verb}\` again.`,
  );
  let refused = false;
  let restoring = false;
  let progress: WriteProgress | undefined;
  // Once the run is asked to stop, the writes it does not send are counted in the summary.
  let stopping = false;
  void run.interrupted.then(() => {
    stopping = true;
  });
  /** Print above the progress line while it shows. */
  const above = (print: () => void) => (progress ? progress.above(print) : print());
  try {
    const result = await push(
      {
        ...(await syncTarget(run, tree, site)),
        history: gitFileHistory(run.git ?? processGit(run.env), tree.root),
        writeConcurrency: tree.config.concurrency,
        sleep: run.sleep,
        // Another site's verdict would rest on the default site's snapshot too: none.
        stamp: site.name === tree.config.ids ? () => cleanStamp(tree, site) : undefined,
        paths: scope,
        select: fileSelection(flags.only ?? [], flags.ignore ?? []),
        dryRun: flags.dryRun,
        force: flags.force,
        maxDelete,
        ...(flags.restore ? { restore: true, deletes: flags.delete === true } : {}),
        confirm: async (plan) => {
          if (!flags.json && plan.restored)
            out.result(restoredLine(plan.restored, site, flags.delete === true));
          if (!flags.json && plan.restore) for (const line of restoreLines(plan, site)) out.result(line);
          else if (!flags.json) {
            out.result(`Push to "${site.name}" (${site.url}): ${planSummary(plan)}`);
            for (const op of plan.ops) out.result(opLine(op, out));
            for (const line of heldPlanLines(plan, out)) out.result(line);
          }
          if (!flags.yes && !run.stdinIsTTY) {
            refused = true;
            return false;
          }
          const ok =
            flags.yes ||
            (await run.prompts.confirm(`Apply ${counted(plan.ops.length, "write")} to ${site.url}?`));
          refused = !ok;
          restoring = plan.restore === true || plan.restored !== undefined;
          if (ok && !flags.json) progress = writeProgress(run, globals, plan.ops.length);
          return ok;
        },
        onWarning: (message) => above(() => out.warn(message)),
        onChange: (change) => {
          progress?.done();
          if (flags.json || globals.quiet || (stopping && change.outcome === "skipped")) return;
          // A restore creates thousands: the progress line counts them.
          if (progress?.shown && restoring && change.outcome === "created") return;
          above(() => {
            for (const line of changeLines([change], out)) out.result(line);
          });
        },
      },
      client,
    );
    // Before the summary: the line of progress is erased, the summary printed where it was.
    progress?.stop();
    const { plan } = result;
    if (flags.json) {
      out.json({
        command: verb,
        site: site.url,
        ...(flags.restore ? { restored: plan.restored ?? null } : {}),
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
        requests: client.stats.requests,
      });
    } else if (result.dryRun) {
      out.result(
        `Dry run: push to "${site.name}" (${site.url}) would send ${counted(plan.ops.length, "write")}: ${planSummary(plan)}`,
      );
      for (const op of plan.ops) out.result(opLine(op, out));
      for (const line of heldPlanLines(plan, out)) out.result(line);
      if (result.unchecked) out.warn(`the plan was not checked against the site: ${result.unchecked}`);
      if (result.held.length > 0) out.results(heldSummaryLines(result.held, [], false));
      const deletes = plan.ops.filter((op) => op.type === "delete").length;
      if (result.deleteLimit !== undefined && deletes > result.deleteLimit) {
        out.warn(
          `${counted(deletes, "delete")} ${deletes === 1 ? "is" : "are"} over the limit of ${result.deleteLimit}: a real push would stop unless --max-delete ${deletes}`,
        );
        // A dry run exits as the real run would.
        run.exitCode = Math.max(run.exitCode, ExitCode.stopped);
      }
    } else if (plan.ops.length === 0 && result.held.length > 0) {
      out.results(heldSummaryLines(result.held, result.changes, true));
    } else if (plan.ops.length === 0 && (plan.kept ?? []).some((kept) => kept.conflict)) {
      out.result("Nothing was sent: what differs waits for the conflicts below to be resolved.");
    } else if (plan.ops.length === 0) {
      out.result(
        flags.restore
          ? "Nothing to restore: the site holds the tree."
          : "Nothing to push: the tree matches the last sync.",
      );
    } else if (refused) {
      out.result(
        run.stdinIsTTY
          ? "Nothing was sent."
          : "Nothing was sent: confirmation is needed and there is no terminal. Run again with --yes to apply this plan.",
      );
    } else if (result.interrupted) {
      out.result(
        `Push interrupted (${stoppedCounts(result.changes)}): what was applied is saved; ` +
          `run \`coursesync ${verb}\` again to send the rest.`,
      );
    } else if (result.held.length > 0) {
      out.results(heldSummaryLines(result.held, result.changes, true));
    } else if (result.failed) {
      out.result(
        `Push stopped by a failure: ${stoppedCounts(result.changes)}. What was applied is saved; ` +
          `fix the cause above and run \`coursesync ${verb}\` again to send the rest.`,
      );
    } else {
      out.result(`Pushed: ${countsLine(result.changes)}.`);
    }
    if (!flags.json) for (const change of result.raced) out.warn(racedWarning(change));
    if (!flags.json)
      for (const kept of plan.kept ?? [])
        out.warn(`${kept.kind} ${kept.path} is kept on the site: ${kept.reason}`);
    // Another writer raced this push: like a conflict, a person should look (exit 3).
    // A dry run exits as the real run would: 3 on conflicts.
    const kept = (plan.kept ?? []).filter((k) => k.conflict);
    run.onHeld?.([...result.held.map((c) => c.path), ...kept.map((k) => k.path)]);
    if (refused || kept.length > 0 || result.held.length > 0 || result.raced.length > 0)
      run.exitCode = Math.max(run.exitCode, ExitCode.stopped);
    if (result.failed) run.exitCode = Math.max(run.exitCode, ExitCode.failed);
    if (result.interrupted) run.exitCode = result.interrupted.exitCode;
  } finally {
    progress?.stop();
    client.close();
    await release();
  }
}
