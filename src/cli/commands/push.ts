import type { Command } from "commander";
import { Option } from "commander";
import { processGit } from "../../ci/git.js";
import type { ResolvedSite } from "../../config/config.js";
import { resolveSite } from "../../config/config.js";
import { ExitCode, usageError } from "../../errors.js";
import type { Change } from "../../sync/model/report.js";
import { type PushResult, push } from "../../sync/push/index.js";
import type { PushPlan } from "../../sync/push/plan.js";
import { restore } from "../../sync/restore/index.js";
import { fileSelection } from "../../sync/selection.js";
import { cleanStamp } from "../../sync/state/clean-mark.js";
import { gitFileHistory } from "../../sync/state/file-history.js";
import { acquireLock } from "../../sync/state/lock.js";
import { SiteState } from "../../sync/state/workspace.js";
import { counted } from "../../util/words.js";
import { COMMAND_LIST } from "../command-list.js";
import { connect, stopRequestsOnSignal, syncTarget } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun, GlobalOptions } from "../io.js";
import { Output } from "../output.js";
import { ignoreOption, knownTreePaths, maxDeleteFlag, onlyOption, type SelectionFlags } from "../paths.js";
import { type WriteProgress, writeProgress } from "../progress.js";
import { heldPlanLines, opLine, planSummary } from "../render/push-plan.js";
import { printPushSummary, pushJson, restoredLine } from "../render/push-result.js";
import { restoreLines } from "../render/restore.js";
import { changeLines } from "../summary.js";
import { openTree, type TreeContext } from "../tree-root.js";
import { runWatch } from "./watch.js";

interface PushFlags extends SelectionFlags {
  dryRun?: boolean;
  yes?: boolean;
  force?: boolean;
  maxDelete?: string;
  json?: boolean;
  watch?: boolean;
  delete?: boolean;
  /** false with --no-pull (with --watch: only publish). */
  pull?: boolean;
  /** --poll <seconds> (with --watch). */
  poll?: string;
  /** `coursesync restore`: make the site hold the tree (see PushOptions.restore). */
  restore?: boolean;
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
    .description(COMMAND_LIST.push.description)
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
    .option("--no-pull", "with --watch: only publish, do not bring the site's edits into the files")
    .option("--poll <seconds>", "with --watch: how often to look for the site's edits (default 10)")
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
        const { delete: deletes, yes, json, pull, poll } = flags;
        return runWatch(run, command, { delete: deletes, yes, json, pull, poll });
      }
      if (flags.pull === false || flags.poll !== undefined)
        throw usageError("--no-pull and --poll go with --watch (or use `coursesync watch`)");
      await pushRun(run, command, paths, flags);
    });
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
    .description(COMMAND_LIST.restore.description)
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

/** The paths a push is limited to, as the tree knows them (undefined: the whole tree). */
async function scopeOf(run: CliRun, tree: TreeContext, globals: GlobalOptions, paths: string[]) {
  if (!paths.length) return undefined;
  const snapshot = await SiteState.open(tree.root, resolveSite(tree.config, globals).name).loadSnapshot();
  return knownTreePaths(run, tree.root, paths, snapshot);
}

/** What the dialog of a run knows of it as it goes. */
interface DialogState {
  /** The person (or a run without a terminal) said no to the plan. */
  refused: boolean;
  /** A restore, whose creates the progress line counts instead of listing them. */
  restoring: boolean;
  /** The run was asked to stop: writes not sent are counted in the summary, not listed. */
  stopping: boolean;
  progress: WriteProgress | undefined;
}

/**
 * How a run talks with the person while it runs: the plan and the question, a line per write
 * above the progress line, and what the summary needs to know of it afterwards.
 */
function pushDialog(run: CliRun, out: Output, globals: GlobalOptions, flags: PushFlags, site: ResolvedSite) {
  const state: DialogState = { refused: false, restoring: false, stopping: false, progress: undefined };
  const writes = { done: 0, total: 0 };
  // Once the run is asked to stop, the writes it does not send are counted in the summary.
  void run.interrupted.then(() => {
    state.stopping = true;
  });
  /** Print above the progress line while it shows. */
  const above = (print: () => void) => (state.progress ? state.progress.above(print) : print());
  const confirm = async (plan: PushPlan): Promise<boolean> => {
    if (!flags.json && plan.restored) out.result(restoredLine(plan.restored, site, flags.delete === true));
    if (!flags.json && plan.restore) for (const line of restoreLines(plan, site)) out.result(line);
    else if (!flags.json) {
      out.result(`Push to "${site.name}" (${site.url}): ${planSummary(plan)}`);
      for (const op of plan.ops) out.result(opLine(op, out));
      for (const line of heldPlanLines(plan, out)) out.result(line);
    }
    if (!flags.yes && !run.stdinIsTTY) {
      state.refused = true;
      return false;
    }
    const ok =
      flags.yes || (await run.prompts.confirm(`Apply ${counted(plan.ops.length, "write")} to ${site.url}?`));
    state.refused = !ok;
    state.restoring = plan.restore === true || plan.restored !== undefined;
    writes.total = plan.ops.length;
    if (ok && !flags.json) state.progress = writeProgress(run, globals, plan.ops.length);
    return ok;
  };
  const onWarning = (message: string) => above(() => out.warn(message));
  const onChange = (change: Change) => {
    state.progress?.done();
    writes.done++;
    const { path, outcome } = change;
    run.onProgress?.({
      type: "write",
      path,
      outcome,
      done: writes.done,
      total: Math.max(writes.done, writes.total),
    });
    if (flags.json || globals.quiet || (state.stopping && change.outcome === "skipped")) return;
    // A restore creates thousands: the progress line counts them.
    if (state.progress?.shown && state.restoring && change.outcome === "created") return;
    above(() => {
      for (const line of changeLines([change], out)) out.result(line);
    });
  };
  return { state, confirm, onWarning, onChange };
}

/** What push and restore share: read the tree, plan, confirm, send, report. */
async function pushRun(run: CliRun, command: Command, paths: string[], flags: PushFlags): Promise<void> {
  const globals = globalsOf(command);
  const out = new Output(run, globals.quiet || flags.json);
  const tree = await openTree(run, globals);
  const maxDelete = maxDeleteFlag(flags.maxDelete);
  const scope = await scopeOf(run, tree, globals, paths);
  const { site, client } = await connect(run, globals, tree.config);
  const verb = flags.restore ? "restore" : "push";
  const release = flags.dryRun ? async () => {} : await acquireLock(tree.root, site.name, verb);
  stopRequestsOnSignal(
    run,
    client,
    "interrupted before anything was sent",
    `Run \`coursesync ${verb}\` again.`,
  );
  const dialog = pushDialog(run, out, globals, flags, site);
  try {
    const result = await (flags.restore ? restore : push)(
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
        ...(flags.restore ? { deletes: flags.delete === true } : {}),
        confirm: dialog.confirm,
        onWarning: dialog.onWarning,
        onChange: dialog.onChange,
      },
      client,
    );
    // Before the summary: the line of progress is erased, the summary printed where it was.
    dialog.state.progress?.stop();
    const summary = {
      site,
      verb,
      restore: flags.restore === true,
      refused: dialog.state.refused,
      stdinIsTTY: run.stdinIsTTY,
      requests: client.stats.requests,
    } as const;
    if (flags.json) out.json(pushJson(result, summary));
    // A dry run exits as the real run would.
    else if (printPushSummary(out, result, summary)) run.exitCode = Math.max(run.exitCode, ExitCode.stopped);
    setPushExit(run, result, dialog.state.refused);
  } finally {
    dialog.state.progress?.stop();
    client.close();
    await release();
  }
}

/**
 * The exit code of a run: 3 when something waits on a person (a refusal, a conflict, a record
 * kept, another writer raced this push; a dry run as the real run would), 1 on a failure, the
 * signal's on an interrupt.
 */
function setPushExit(run: CliRun, result: PushResult, refused: boolean): void {
  const kept = (result.plan.kept ?? []).filter((k) => k.conflict);
  run.onHeld?.([...result.held.map((c) => c.path), ...kept.map((k) => k.path)]);
  if (refused || kept.length > 0 || result.held.length > 0 || result.raced.length > 0)
    run.exitCode = Math.max(run.exitCode, ExitCode.stopped);
  if (result.failed) run.exitCode = Math.max(run.exitCode, ExitCode.failed);
  if (result.interrupted) run.exitCode = result.interrupted.exitCode;
}
