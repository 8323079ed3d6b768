import type { Command } from "commander";
import { ExitCode, type StopSignal, usageError } from "../../errors.js";
import type { PushPlan } from "../../sync/push/plan.js";
import { cleanStamp } from "../../sync/state/clean-mark.js";
import { type WatchEvent, watchTree } from "../../sync/watch/watch.js";
import { counted } from "../../util/words.js";
import { COMMAND_LIST } from "../command-list.js";
import { connect, syncTarget } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { Output } from "../output.js";
import { opLine } from "../render/push-plan.js";
import { watchLine } from "../render/watch.js";
import { openTree } from "../tree-root.js";

/** Options of watch, whether started as `watch` or as `push --watch`. */
export interface WatchFlags {
  delete?: boolean;
  yes?: boolean;
  json?: boolean;
  /** false with --no-pull: the site's changes are not brought in. */
  pull?: boolean;
  /** --poll <seconds>: the pace of polls while the author saves. */
  poll?: string;
}

/** --poll's seconds as milliseconds (default 10 s). */
function pollMs(flag: string | undefined): number {
  if (flag === undefined) return 10_000;
  const seconds = Number(flag);
  if (!(Number.isFinite(seconds) && seconds >= 1 && seconds <= 3600))
    throw usageError(
      `--poll must be a number of seconds from 1 to 3600, got "${flag}"`,
      "For example: --poll 30",
    );
  return Math.round(seconds * 1000);
}

/** Run watch for `watch` and `push --watch`. */
export async function runWatch(run: CliRun, command: Command, flags: WatchFlags): Promise<void> {
  const globals = globalsOf(command);
  const out = new Output(run, globals.quiet || flags.json);
  const tree = await openTree(run, globals);
  const { site, client } = await connect(run, globals, tree.config);
  const deletes = flags.delete === true;
  const poll = pollMs(flags.poll);
  const report = (event: WatchEvent) => {
    const at = run.now();
    if (flags.json) run.stdout.write(`${JSON.stringify({ time: new Date(at).toISOString(), ...event })}\n`);
    // What needs the person's hand is said even with --quiet.
    else if (!globals.quiet || event.type === "invalid" || event.type === "signed-out")
      out.result(watchLine(event, out, deletes, at));
  };
  let stoppedBy: StopSignal | undefined;
  void run.interrupted.then((signal) => {
    stoppedBy = signal;
  });
  try {
    const started = await watchTree(
      {
        ...(await syncTarget(run, tree, site)),
        writeConcurrency: tree.config.concurrency,
        // Another site's verdict would rest on the default site's snapshot too: none.
        stamp: site.name === tree.config.ids ? () => cleanStamp(tree, site) : undefined,
        deletes,
        pull: flags.pull !== false,
        pollMs: poll,
        stop: run.interrupted,
        sleep: run.sleep,
        now: run.now,
        ...(run.setTimer ? { setTimer: run.setTimer } : {}),
        report,
        confirm: async (plan: PushPlan) => {
          if (!flags.json) {
            out.result(`Pending before watching: ${counted(plan.ops.length, "write")}`);
            for (const op of plan.ops) out.result(opLine(op, out));
          }
          if (flags.yes) return true;
          if (!run.stdinIsTTY) {
            out.result(
              "Confirmation is needed and there is no terminal: run again with --yes, or push first.",
            );
            return false;
          }
          return run.prompts.confirm(
            `Push ${plan.ops.length === 1 ? "this write" : `these ${counted(plan.ops.length, "write")}`} to ${site.url}, then watch?`,
          );
        },
      },
      client,
    );
    if (!started) run.exitCode = Math.max(run.exitCode, ExitCode.stopped);
    // Stopped by a signal, as watch always is: the shell's code for it (130 Ctrl-C, 143 SIGTERM).
    else if (stoppedBy) run.exitCode = stoppedBy === "SIGTERM" ? ExitCode.terminated : ExitCode.interrupted;
  } finally {
    client.close();
  }
}

const EXAMPLES: Example[] = [
  {
    does: "push each file as you save it, and bring the site's edits in (Ctrl-C stops)",
    line: "coursesync watch",
  },
  { does: "also delete on the site what you delete here", line: "coursesync watch --delete" },
  { does: "publish only: leave the site's edits for a later pull", line: "coursesync watch --no-pull" },
  { does: "look for the site's edits every 30 s (default 10 s)", line: "coursesync watch --poll 30" },
];

/** `coursesync watch [--delete]` */
export function registerWatch(program: Command, run: CliRun): void {
  program
    .command("watch")
    .description(COMMAND_LIST.watch.description)
    .option("--delete", "also delete on the site what is deleted here")
    .option("--no-pull", "only publish: do not bring the site's edits into the files")
    .option(
      "--poll <seconds>",
      "how often to look for the site's edits while you save (default 10; slower, up to 60, when idle)",
    )
    .option("-y, --yes", "push what is pending at start without asking")
    .option("--json", "one JSON line per event on stdout")
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (flags: WatchFlags, command: Command) => runWatch(run, command, flags));
}
