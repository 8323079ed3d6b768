import type { SetTimer } from "../../src/util/timer.js";

/** Time for an in-process CLI run that passes only when the run sleeps: no wall-clock wait. */
export interface FakeTime {
  /** Milliseconds since the epoch: starts at `start` and moves only by sleeps. */
  now(): number;
  /** Records the wait, moves the clock to the end of it, and resolves at once. */
  sleep(ms: number): Promise<void>;
  /** Every wait asked for, in order, in milliseconds. */
  readonly waits: readonly number[];
}

/**
 * A clock that only sleeps move: each wait moves it on by its length, at once. Pass its `now`
 * to an emulator as `rateClock` and a 429's window opens once the run has waited out the
 * Retry-After it was given, never before.
 */
export function fakeTime(start = Date.parse("2026-03-01T09:30:00.000Z")): FakeTime {
  let ms = start;
  const waits: number[] = [];
  return {
    now: () => ms,
    sleep: (wait: number) => {
      waits.push(wait);
      ms += Math.max(0, wait);
      return Promise.resolve();
    },
    waits,
  };
}

/** Timers that run only when the test fires them: watch's quiet time and retries, on cue. */
export interface ManualTimers {
  /** The seam to pass as `setTimer`. */
  setTimer: SetTimer;
  /** The delays of the timers set and neither run nor cancelled, oldest first. */
  pending(): number[];
  /** Run every timer pending now (not those they set), or those of delay `ms`; returns how many ran. */
  fire(ms?: number): number;
  /**
   * Count one look at the pending timers, and run those this is the `calls`-th look at: a quiet
   * time a real watcher has not restarted in that many looks is over (no clock involved).
   */
  fireSettled(calls: number): number;
}

/** Timers nothing runs but `fire`: a test decides when the quiet time is over. */
export function manualTimers(): ManualTimers {
  let queue: Array<{ fn: () => void; ms: number; seen: number }> = [];
  return {
    setTimer: (fn, ms) => {
      const timer = { fn, ms, seen: 0 };
      queue.push(timer);
      return () => {
        queue = queue.filter((t) => t !== timer);
      };
    },
    pending: () => queue.map((t) => t.ms),
    fire: (ms?: number) => {
      const due = queue.filter((t) => ms === undefined || t.ms === ms);
      queue = queue.filter((t) => !due.includes(t));
      for (const timer of due) timer.fn();
      return due.length;
    },
    fireSettled: (calls: number) => {
      for (const timer of queue) timer.seen++;
      const due = queue.filter((t) => t.seen >= calls);
      queue = queue.filter((t) => !due.includes(t));
      for (const timer of due) timer.fn();
      return due.length;
    },
  };
}
