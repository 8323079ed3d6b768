#!/usr/bin/env node
import { main } from "./main.js";
import { terminalPrompts } from "./prompts.js";

const interrupted = new Promise<void>((resolve) => {
  process.once("SIGINT", () => resolve());
  process.once("SIGTERM", () => resolve());
});

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdinIsTTY: Boolean(process.stdin.isTTY),
  env: process.env,
  cwd: process.cwd(),
  interrupted,
  prompts: terminalPrompts(),
});
process.exit(code);
