import { describe, expect, it } from "vitest";
import { giveWay, runSteps, runStepsSliced, type Steps } from "../../src/util/steps.js";

/** Sums 1..n a step per number, noting each step in `log`; each step takes `ms` of `clock`. */
function* sum(n: number, log: string[], clock = { ms: 0 }, ms = 0): Steps<number> {
  let total = 0;
  for (let i = 1; i <= n; i++) {
    yield;
    log.push(`step ${i}`);
    clock.ms += ms;
    total += i;
  }
  return total;
}

describe("steps", () => {
  it("run at once give the computation's result", () => {
    expect(runSteps(sum(10, []))).toBe(55);
  });

  it("run in slices give way to the event loop once a slice has taken its time, and give the same result", async () => {
    const log: string[] = [];
    // Steps of 1 ms, the clock read every 8 steps: a slice of 10 ms ends after 15 steps, the
    // next after 16 more.
    const clock = { ms: 0 };
    const pause = async () => {
      log.push("pause");
    };
    const total = await runStepsSliced(sum(40, log, clock, 1), { sliceMs: 10, now: () => clock.ms, pause });
    expect(total).toBe(820);
    expect(log.filter((entry) => entry === "pause")).toHaveLength(2);
    expect(log.indexOf("pause")).toBe(log.indexOf("step 15") + 1);
    expect(log.lastIndexOf("pause")).toBe(log.indexOf("step 31") + 1);
  });

  it("let timers and I/O callbacks run between slices", async () => {
    const log: string[] = [];
    // Every step takes longer than a slice: the first reading of the clock ends one.
    const clock = { ms: 0 };
    setImmediate(() => log.push("immediate"));
    await runStepsSliced(sum(10, log, clock, 100), { sliceMs: 10, now: () => clock.ms });
    expect(log.indexOf("immediate")).toBe(log.indexOf("step 7") + 1);
  });

  it("give way in a loop of awaits once a slice has gone by, and not before", async () => {
    const log: string[] = [];
    const clock = { ms: 0 };
    const turn = giveWay({
      sliceMs: 10,
      now: () => clock.ms,
      pause: async () => {
        log.push("pause");
      },
    });
    for (let i = 1; i <= 6; i++) {
      log.push(`item ${i}`);
      clock.ms += 4;
      await turn();
    }
    expect(log).toEqual(["item 1", "item 2", "item 3", "pause", "item 4", "item 5", "item 6", "pause"]);
  });
});
