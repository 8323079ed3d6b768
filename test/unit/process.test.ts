import { describe, expect, it } from "vitest";
import { watchParent } from "../../src/util/process.js";
import { manualTimers } from "../helpers/time.js";

describe("watchParent", () => {
  it("calls back once the parent pid changes (the parent died), and only then", () => {
    const timers = manualTimers();
    let parent = 4242;
    let gone = 0;
    watchParent(() => (gone += 1), { ppid: () => parent, setTimer: timers.setTimer, everyMs: 1000 });
    expect(timers.pending()).toEqual([1000]);
    timers.fire();
    timers.fire();
    expect(gone).toBe(0);
    parent = 1;
    timers.fire();
    expect(gone).toBe(1);
    expect(timers.pending()).toEqual([]);
  });

  it("stops looking when stopped", () => {
    const timers = manualTimers();
    let parent = 10;
    let gone = 0;
    const stop = watchParent(() => (gone += 1), { ppid: () => parent, setTimer: timers.setTimer });
    stop();
    parent = 1;
    expect(timers.fire()).toBe(0);
    expect(gone).toBe(0);
  });
});
