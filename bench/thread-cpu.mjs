// CPU time of each of this process's threads (Linux: /proc/self/task), for the benchmarks' split
// of a run's CPU: the main thread, the threads that were there before the run (V8's compiler
// and garbage-collector helpers, node's I/O pool as module loading started it), and the threads
// the run started (a pull's render thread and staging writer, more of the I/O pool). A thread
// that ends before the run does (a pull's render thread) leaves /proc, so the threads are read
// every 50 ms and each keeps its last reading: what a thread spent in its last 50 ms before it
// ended is missed (`unseenMs` says how much CPU no reading holds). A reading costs the main
// thread about half a millisecond: some 30 ms over a 3-second pull. Elsewhere: nothing.
import { readdirSync, readFileSync } from "node:fs";

const TASKS = "/proc/self/task";
const SAMPLE_MS = 50;
/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

function readThread(tid) {
  try {
    const stat = readFileSync(`${TASKS}/${tid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state is the first, utime the 12th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { userMs: Number(fields[11]) * TICK_MS, systemMs: Number(fields[12]) * TICK_MS };
  } catch {
    return undefined;
  }
}

/** Start reading the threads; `stop()` reads them once more and returns the split. */
export function watchThreadCpu() {
  let before;
  try {
    before = new Set(readdirSync(TASKS));
  } catch {
    return { stop: () => undefined };
  }
  const last = new Map();
  const sample = () => {
    for (const tid of readdirSync(TASKS)) {
      const read = readThread(tid);
      if (read) last.set(tid, read);
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      const usage = process.resourceUsage();
      const sum = (threads) =>
        threads.reduce(
          (total, t) => ({ userMs: total.userMs + t.userMs, systemMs: total.systemMs + t.systemMs }),
          {
            userMs: 0,
            systemMs: 0,
          },
        );
      const main = last.get(String(process.pid));
      const present = sum(
        [...last].filter(([tid]) => before.has(tid) && tid !== String(process.pid)).map(([, t]) => t),
      );
      const started = [...last]
        .filter(([tid]) => !before.has(tid))
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([, t]) => t)
        .filter((t) => t.userMs + t.systemMs > 0);
      const seen = sum([main, present, ...started]);
      const unseenMs = Math.max(
        0,
        (usage.userCPUTime + usage.systemCPUTime) / 1000 - (seen.userMs + seen.systemMs),
      );
      return { main, present, started, unseenMs };
    },
  };
}
