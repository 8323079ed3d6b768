import { afterEach, describe, expect, it, vi } from "vitest";
import { RATE_WINDOW_SLACK_MS, RequestGate } from "../../src/api/gate.js";

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Let queued callbacks and I/O callbacks run. */
async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

describe("RequestGate", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("never runs more than `concurrency` tasks at once", async () => {
    const gate = new RequestGate({ concurrency: 3 });
    let running = 0;
    let most = 0;
    const tasks = Array.from({ length: 12 }, () =>
      gate.run(async () => {
        running += 1;
        most = Math.max(most, running);
        await settle(1);
        running -= 1;
      }),
    );
    await Promise.all(tasks);
    expect(most).toBe(3);
  });

  it("pauseFor holds every task that has not started, and lets running ones finish", async () => {
    const pause = deferred();
    const sleeps: number[] = [];
    const gate = new RequestGate({
      concurrency: 2,
      sleep: (ms) => {
        sleeps.push(ms);
        return pause.promise;
      },
    });
    const started: string[] = [];
    const answerA = deferred();
    const release = deferred();
    const a = gate.run(async () => {
      started.push("a");
      await answerA.promise;
      void gate.pauseFor(2000); // a 429 seen inside the task
      return "a";
    });
    const b = gate.run(async () => {
      started.push("b");
      await release.promise;
      return "b";
    });
    const c = gate.run(async () => {
      started.push("c");
      return "c";
    });
    const d = gate.run(async () => {
      started.push("d");
      return "d";
    });
    await settle();
    expect(started).toEqual(["a", "b"]);
    answerA.resolve();
    expect(await a).toBe("a");
    release.resolve();
    expect(await b).toBe("b");
    await settle();
    expect(started).toEqual(["a", "b"]);
    expect(gate.isPaused).toBe(true);
    expect(sleeps).toEqual([2000]);
    pause.resolve();
    expect(await Promise.all([c, d])).toEqual(["c", "d"]);
    expect(started).toEqual(["a", "b", "c", "d"]);
  });

  it("overlapping pauses open the gate when the last one ends", async () => {
    const first = deferred();
    const second = deferred();
    const sleeps = [first, second];
    const gate = new RequestGate({
      concurrency: 1,
      sleep: () => sleeps.shift()?.promise ?? Promise.resolve(),
    });
    const p1 = gate.pauseFor(1000);
    const p2 = gate.pauseFor(5000);
    let ran = false;
    const task = gate.run(async () => {
      ran = true;
    });
    first.resolve();
    await p1;
    await settle();
    expect(ran).toBe(false);
    second.resolve();
    await p2;
    await task;
    expect(ran).toBe(true);
  });

  it("halves the concurrency once per pause and recovers step by step", async () => {
    const pause = deferred();
    const gate = new RequestGate({ concurrency: 8, recoverAfter: 2, sleep: () => pause.promise });
    const resumed = gate.throttle(1000);
    gate.slowDown(); // a second 429 of the same burst
    gate.slowDown();
    expect(gate.concurrency).toBe(4);
    pause.resolve();
    await resumed;
    gate.slowDown(); // a new burst after the pause
    expect(gate.concurrency).toBe(2);
    for (let i = 0; i < 2; i++) gate.recordSuccess();
    expect(gate.concurrency).toBe(3);
    for (let i = 0; i < 20; i++) gate.recordSuccess();
    expect(gate.concurrency).toBe(8);
    expect(gate.maxConcurrency).toBe(8);
  });

  it("never lets the concurrency drop below 1", () => {
    const gate = new RequestGate({ concurrency: 1 });
    gate.slowDown();
    gate.slowDown();
    expect(gate.concurrency).toBe(1);
  });

  it("requestsPerSecond: never more than N starts in any rolling second", async () => {
    vi.useFakeTimers({ now: 0 });
    const gate = new RequestGate({ concurrency: 10, requestsPerSecond: 3 });
    const starts: number[] = [];
    const tasks = Array.from({ length: 10 }, () =>
      gate.run(async () => {
        starts.push(Date.now());
      }),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(tasks);
    expect(starts).toHaveLength(10);
    for (const t of starts) {
      expect(starts.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(3);
    }
    // It does use the allowance: three at once, then three a second (plus the slack) later.
    expect(starts.slice(0, 3)).toEqual([0, 0, 0]);
    expect(starts[3]).toBe(1000 + RATE_WINDOW_SLACK_MS);
  });

  it("rejects bad options with what was expected and what came", () => {
    expect(() => new RequestGate({ concurrency: 0 })).toThrow(
      /concurrency must be a whole number from 1 up, got 0/,
    );
    expect(() => new RequestGate({ requestsPerSecond: -1 })).toThrow(
      /requests_per_second must be a number above 0/,
    );
  });

  it("a fractional rate still caps each rolling second", async () => {
    vi.useFakeTimers({ now: 0 });
    const gate = new RequestGate({ concurrency: 5, requestsPerSecond: 2.5 });
    const starts: number[] = [];
    const tasks = Array.from({ length: 6 }, () =>
      gate.run(async () => {
        starts.push(Date.now());
      }),
    );
    await vi.advanceTimersByTimeAsync(5000);
    await Promise.all(tasks);
    for (const t of starts) {
      expect(starts.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(2);
    }
  });
});
