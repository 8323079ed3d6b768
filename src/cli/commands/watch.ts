import type { Command } from "commander";
import { ExitCode, type StopSignal } from "../../errors.js";
import type { PushPlan } from "../../sync/push/plan.js";
import { cleanStamp } from "../../sync/state/clean-mark.js";
import { type WatchEvent, watchTree } from "../../sync/watch/watch.js";
import { counted } from "../../util/words.js";
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
}

/** Run watch for `watch` and `push --watch`. */
export async function runWatch(run: CliRun, command: Command, flags: WatchFlags): Promise<void> {
  const globals = globalsOf(command);
  const out = new Output(run, globals.quiet || flags.json);
  const tree = await openTree(run, globals);
  const { site, client } = await connect(run, globals, tree.config);
  const deletes = flags.delete === true;
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
  { does: "push each file as you save it in your editor (Ctrl-C stops)", line: "coursesync watch" },
  { does: "also delete on the site what you delete here", line: "coursesync watch --delete" },
  { does: "push what is pending at start without asking", line: "coursesync watch --yes" },
];

/** `coursesync watch [--delete]` */
export function registerWatch(program: Command, run: CliRun): void {
  program
    .command("watch")
    .description("push as you save (= push --watch); deletes only with --delete")
    .option("--delete", "also delete on the site what is deleted here")
    .option("-y, --yes", "push what is pending at start without asking")
    .option("--json", "one JSON line per event on stdout")
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (flags: WatchFlags, command: Command) => runWatch(run, command, flags));
}
