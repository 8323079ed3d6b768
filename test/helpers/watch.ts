import { afterEach } from "vitest";
import { realSleep } from "../../src/api/gate.js";
import { main } from "../../src/cli/main.js";
import type { StopSignal } from "../../src/errors.js";
import type { SetTimer } from "../../src/util/timer.js";
import { eventually } from "./site.js";
import { type ManualTimers, manualTimers } from "./time.js";

/** A `coursesync watch` running in this process. */
export interface RunningWatch {
  /** The timers of its quiet time and retries: they run only when the test fires them. */
  timers: ManualTimers;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Ctrl-C: resolves with its exit code once it has stopped. */
  stop(): Promise<number>;
}

/**
 * Options of one watch: the API client's own retries, the timers (default new manual ones), and
 * whether it brings the site's edits in (default not: `--no-pull`, for the tests of publishing).
 */
export interface WatchRunOptions {
  apiRetries?: number;
  setTimer?: SetTimer;
  pull?: boolean;
}

/**
 * Register an afterEach that stops every watch the returned function started in the test; call
 * it after the afterEach that removes the test folders (hooks run last-registered first).
 */
export function useWatches(): (
  tree: string,
  env: Record<string, string>,
  args?: string[],
  options?: WatchRunOptions,
) => Promise<RunningWatch> {
  const stops: Array<() => Promise<number>> = [];
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
  });
  return async (tree, env, args = [], options = {}) => {
    // The quiet time and the retries run on timers the test fires: nothing waits on the clock.
    const timers = manualTimers();
    let stdout = "";
    let stop!: () => void;
    const interrupted = new Promise<StopSignal>((resolve) => (stop = () => resolve("SIGINT")));
    const { pull, ...rest } = options;
    const done = main(["watch", "--yes", ...(pull ? [] : ["--no-pull"]), ...args], {
      stdout: { write: (t: string) => (stdout += t), isTTY: false },
      stderr: { write: (t: string) => (stdout += t), isTTY: false },
      stdinIsTTY: false,
      env,
      cwd: tree,
      interrupted,
      sleep: realSleep,
      now: Date.now,
      setTimer: timers.setTimer,
      ...rest,
      prompts: {
        input: () => Promise.reject(new Error("no prompt")),
        password: () => Promise.reject(new Error("no prompt")),
        confirm: () => Promise.reject(new Error("no prompt")),
      },
    });
    const handle: RunningWatch = {
      timers,
      output: () => stdout,
      stop: async () => {
        stop();
        return done;
      },
    };
    stops.push(handle.stop);
    await eventually(() => stdout.includes("watching") || stdout.includes('"type":"ready"'));
    return handle;
  };
}

/** Once the watcher has seen a save (the 300 ms quiet-time timer is set), end the quiet time now. */
export async function quietTimeOver(timers: ManualTimers): Promise<void> {
  await eventually(() => timers.pending().includes(300));
  timers.fire(300);
}

/** The wait of watch's next poll, once it is set (its other timers are shorter). */
export function pollWait(timers: ManualTimers): number | undefined {
  return timers.pending().find((ms) => ms >= 10_000);
}

/**
 * Run watch's next poll and wait until it is done (the one after it is set), ending each quiet
 * time of a save as it starts (a pull waits for the saves before it); returns the poll's wait.
 */
export async function poll(timers: ManualTimers): Promise<number> {
  const wait = await eventually(() => pollWait(timers));
  timers.fire(wait);
  await eventually(() => {
    timers.fire(300);
    return pollWait(timers) !== undefined;
  });
  return wait;
}
