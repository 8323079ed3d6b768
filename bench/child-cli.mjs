// Runs the built CLI (the bundled command, as the package ships it) in this process and reports
// its peak memory on fd 3 as JSON.
import { writeSync } from "node:fs";
import { limitHeapGrowth } from "../dist/bin/heap.js";
import { main } from "../dist/bin/main.js";

const started = performance.now();
const code = await main(process.argv.slice(2), {
  stdout: { write: () => true, isTTY: false },
  stderr: process.stderr,
  stdinIsTTY: false,
  env: process.env,
  cwd: process.cwd(),
  interrupted: new Promise(() => {}),
  // As the CLI's entry point does.
  boundHeap: limitHeapGrowth,
  prompts: {
    input: () => Promise.reject(new Error("no prompts in the benchmark")),
    password: () => Promise.reject(new Error("no prompts in the benchmark")),
    confirm: () => Promise.reject(new Error("no prompts in the benchmark")),
  },
});
const ms = performance.now() - started;
writeSync(3, JSON.stringify({ code, ms, maxRssKb: process.resourceUsage().maxRSS }));
process.exit(code);
