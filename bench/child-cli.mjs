// Runs the built CLI (the bundled command, as the package ships it) in this process and reports
// on fd 3 as JSON: exit code, wall ms, peak RSS, user and system CPU ms of all threads (workers
// included), the longest the main thread was blocked (event-loop delay, 10 ms resolution) and
// each block over 20 ms with when it began, the epoch ms the run started and ended and its first
// request went out, when a pull reached each step, and (on Linux) the CPU by thread
// (bench/thread-cpu.mjs).
import diagnostics from "node:diagnostics_channel";
import { readdirSync, writeSync } from "node:fs";
import { limitHeapGrowth } from "../dist/bin/heap.js";
import { main } from "../dist/bin/main.js";
import { watchThreadCpu } from "./thread-cpu.mjs";

// BENCH_LOAD_FIRST=1: every chunk of the bundle is loaded before the clock starts, so the run
// shows what the command costs without loading its code (the pull bench's floor).
if (process.env.BENCH_LOAD_FIRST === "1") {
  const bin = new URL("../dist/bin/", import.meta.url);
  const chunks = readdirSync(bin).filter((name) => name.startsWith("chunk-") && name.endsWith(".js"));
  for (const name of chunks.sort()) await import(new URL(name, bin).href);
}
// A timer every 10 ms: a block is an interval between its ticks less the 10 ms asked for (to
// within that resolution). The longest is kept, and those over 20 ms with when they began
// (epoch ms): where the blocks were, e.g. while requests were out or before the first went.
const RESOLUTION_MS = 10;
const BLOCK_KEPT_MS = 20;
const blocks = [];
let longestBlock = 0;
let tick = performance.now();
const ticking = setInterval(() => {
  const now = performance.now();
  const block = now - tick - RESOLUTION_MS;
  longestBlock = Math.max(longestBlock, block);
  if (block > BLOCK_KEPT_MS) blocks.push([performance.timeOrigin + tick, block]);
  tick = now;
}, RESOLUTION_MS);
ticking.unref();
// When the first request went out (epoch ms).
let firstRequestAt;
const requested = () => (firstRequestAt ??= performance.timeOrigin + performance.now());
diagnostics.subscribe("http.client.request.start", requested);
const threads = watchThreadCpu();
// A pull's steps (the library's progress events), as epoch ms: where its time after the lists goes.
const steps = {};
const onProgress = (event) => {
  if (event.type === "step") steps[event.step] = performance.timeOrigin + performance.now();
};
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
  onProgress,
  prompts: {
    input: () => Promise.reject(new Error("no prompts in the benchmark")),
    password: () => Promise.reject(new Error("no prompts in the benchmark")),
    confirm: () => Promise.reject(new Error("no prompts in the benchmark")),
  },
});
const ended = performance.now();
clearInterval(ticking);
diagnostics.unsubscribe("http.client.request.start", requested);
const byThread = threads.stop();
const usage = process.resourceUsage();
writeSync(
  3,
  JSON.stringify({
    code,
    ms: ended - started,
    maxRssKb: usage.maxRSS,
    userCpuMs: usage.userCPUTime / 1000,
    systemCpuMs: usage.systemCPUTime / 1000,
    maxBlockMs: longestBlock,
    startedAt: performance.timeOrigin + started,
    endedAt: performance.timeOrigin + ended,
    threads: byThread,
    steps,
    blocks,
    firstRequestAt,
  }),
);
process.exit(code);
