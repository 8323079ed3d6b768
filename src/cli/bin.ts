#!/usr/bin/env node
import type { StopSignal } from "../errors.js";
import { exitFlushed, ignoreClosedReaders } from "./exit.js";
import { limitHeapGrowth } from "./heap.js";
import { openInBrowser } from "./open-browser.js";
import { terminalPrompts } from "./prompts.js";

ignoreClosedReaders([process.stdout, process.stderr]);

// A completion script asks for the site names or course folders on every Tab: answered here,
// before the whole command line is loaded, so that the shell does not wait for it.
const args = process.argv.slice(2);
if (args[0] === "completion" && args[1] === "--list") {
  const { completionList, completionNames } = await import("./commands/completion.js");
  const list = completionList(args);
  if (list !== undefined) {
    process.stdout.write((await completionNames(list, process.cwd())).map((name) => `${name}\n`).join(""));
    await exitFlushed(0);
  }
}
const { main } = await import("./main.js");

/** How long a run asked to stop may take to finish what is in flight before it is cut short. */
const GRACE_MS = 10_000;

const EXIT_CODES: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

// The first Ctrl-C or SIGTERM asks the run to stop (it finishes what is in flight and leaves a
// state the next run completes); the grace running out ends it once its output is out; a second
// signal exits at once (what a reader has not taken yet is lost): every write is atomic and
// journaled, so even that is recoverable.
const interrupted = new Promise<StopSignal>((resolve) => {
  let asked = false;
  const onSignal = (signal: StopSignal) => {
    if (asked) process.exit(EXIT_CODES[signal]);
    asked = true;
    setTimeout(() => void exitFlushed(EXIT_CODES[signal]), GRACE_MS).unref();
    resolve(signal);
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
});

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdinIsTTY: Boolean(process.stdin.isTTY),
  env: process.env,
  cwd: process.cwd(),
  interrupted,
  prompts: terminalPrompts(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: Date.now,
  boundHeap: limitHeapGrowth,
  openBrowser: openInBrowser,
});
await exitFlushed(code);
