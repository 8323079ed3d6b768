import type { Command } from "commander";
import { CREDENTIALS_HINT } from "../../api/errors.js";
import { ExitCode, type StopSignal } from "../../errors.js";
import type { PushPlan } from "../../sync/push/plan.js";
import { cleanStamp } from "../../sync/state/clean-mark.js";
import { type Pending, type WatchEvent, watchTree } from "../../sync/watch/watch.js";
import { counted } from "../../util/words.js";
import { connect, syncTarget } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { Output } from "../output.js";
import { opLine } from "../render/push-plan.js";
import { openTree } from "../tree-root.js";

/** Options of watch, whether started as `watch` or as `push --watch`. */
export interface WatchFlags {
  delete?: boolean;
  yes?: boolean;
  json?: boolean;
}

/** The local time of day, HH:MM:SS, that starts each line. */
function clock(at: number): string {
  return new Date(at).toTimeString().slice(0, 8);
}

/** One line for people per watch event, stamped with the time `at` (ms since the epoch). */
function watchLine(event: WatchEvent, out: Output, deletes: boolean, at: number): string {
  const t = out.paint("gray", clock(at));
  switch (event.type) {
    case "ready":
      return `${t}  watching ${event.root} (Ctrl-C to stop); ${deletes ? "deletes are sent" : "deletes wait for a plain `coursesync push`"}`;
    case "change": {
      const c = event.change;
      const what = c.fields?.length ? ` [${c.fields.join(", ")}]` : "";
      const why = c.reason ? ` (${c.reason})` : "";
      const next =
        c.outcome === "conflict"
          ? "; run `coursesync pull` to bring the site's version in, then save again"
          : "";
      return `${t}  ${c.outcome.padEnd(9)} ${c.path}${what}${why}  ${event.ms} ms${next}`;
    }
    case "invalid":
      return `${t}  ${out.paint("red", "invalid")}   ${event.path}${event.line === undefined ? "" : `:${event.line}`}: ${event.message} (skipped until it is fixed)`;
    case "held-delete":
      return `${t}  deleted   ${event.path} (not sent: run \`coursesync push\` to delete it on the site, or watch with --delete)`;
    case "paused":
      return `${t}  ${out.paint("yellow", "paused")}: ${counted(event.deleted, "file")} disappeared at once (a branch switch?). Nothing is sent until they are back, or until a plain \`coursesync push\` settles the deletes.`;
    case "resumed":
      return `${t}  resumed: the tree is whole again`;
    case "retrying":
      return `${t}  ${out.paint("yellow", "waiting")}: ${event.message}; trying again in ${Math.round(event.inMs / 1000)} s`;
    case "signed-out":
      return `${t}  ${out.paint("red", "signed out")}: ${event.message}. ${event.hint ?? CREDENTIALS_HINT} Watching goes on: saves wait, and are sent once a token works (each try reads the stored token again, so \`coursesync login\` in another terminal is enough).`;
    case "signed-in":
      return `${t}  signed in again: the site took the token, and what waited is sent`;
    case "stopped":
      return `${t}  stopped; the snapshot is saved${pendingText(event.pending)}`;
  }
}

/** What a stopped watch left unsent, and what settles it. */
function pendingText({ edits, invalid, signedOut, deletes, conflicts }: Pending): string {
  const parts: string[] = [];
  if (edits.length > 0) {
    const them = edits.length === 1 ? "it" : "them";
    const how = signedOut
      ? `run \`coursesync login\`, then \`coursesync push\` sends ${them}`
      : `\`coursesync push\` sends ${them}`;
    const named = edits.map((file) => (invalid.includes(file) ? `${file} (invalid: fix it first)` : file));
    parts.push(`${counted(edits.length, "edit")} not sent (${how}): ${named.join(", ")}`);
  }
  if (deletes > 0)
    parts.push(
      `${counted(deletes, "delete")} not sent (\`coursesync push\` sends ${deletes === 1 ? "it" : "them"})`,
    );
  if (conflicts.length > 0)
    parts.push(
      `${counted(conflicts.length, "conflict")} with the site (\`coursesync pull\` brings its version in): ${conflicts.join(", ")}`,
    );
  return parts.length > 0 ? `; ${parts.join("; ")}` : "";
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
