#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=50
// The flags above hold the heap near what the run keeps alive: a young generation of at most
// 4 MB per half (V8's default is up to 16 MB) and an old generation that grows by half of what
// survived the last full collection (V8's default lets it grow up to 4×). A 50,000-chapter pull
// keeps about 60–80 MB alive; with V8's defaults its heap reached 2.5–3× that. They must be
// given when node starts, hence the shebang (`env -S` splits them; npm's shims on Windows read
// it too). `bench/run.mjs` runs the CLI with the same flags, read from this line.
import type { StopSignal } from "../errors.js";
import { completionList, completionNames } from "./commands/completion.js";
import { terminalPrompts } from "./prompts.js";

// A completion script asks for the site names or course folders on every Tab: answered here,
// before the whole command line is loaded, so that the shell does not wait for it.
const list = completionList(process.argv.slice(2));
if (list !== undefined) {
  process.stdout.write((await completionNames(list, process.cwd())).map((name) => `${name}\n`).join(""));
  process.exit(0);
}
const { main } = await import("./main.js");

/** How long a run asked to stop may take to finish what is in flight before it is cut short. */
const GRACE_MS = 10_000;

const EXIT_CODES: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

// The first Ctrl-C or SIGTERM asks the run to stop (it finishes what is in flight and leaves a
// state the next run completes); a second one, or the grace running out, exits at once: every
// write is atomic and journaled, so even that is recoverable.
const interrupted = new Promise<StopSignal>((resolve) => {
  let asked = false;
  const onSignal = (signal: StopSignal) => {
    if (asked) process.exit(EXIT_CODES[signal]);
    asked = true;
    setTimeout(() => process.exit(EXIT_CODES[signal]), GRACE_MS).unref();
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
});
process.exit(code);
