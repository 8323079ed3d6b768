import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Batch, Coalescer } from "../../src/sync/watch/coalescer.js";

describe("the save coalescer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function collect(options: { debounceMs?: number; maxWaitMs?: number } = {}) {
    const batches: Batch[] = [];
    const coalescer = new Coalescer({ ...options, onBatch: async (batch) => void batches.push(batch) });
    return { coalescer, batches };
  }

  it("turns ten saves of one file in a second into one change, 300 ms after the last", async () => {
    const { coalescer, batches } = collect();
    for (let i = 0; i < 10; i++) {
      coalescer.push({ kind: "change", path: "courses/a/01-x.md" });
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(batches).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(batches).toEqual([{ changed: ["courses/a/01-x.md"], deleted: [] }]);
  });

  it("reads an editor's atomic save (unlink then add) as a change, not a delete", async () => {
    const { coalescer, batches } = collect();
    coalescer.push({ kind: "unlink", path: "courses/a/01-x.md" });
    coalescer.push({ kind: "add", path: "courses/a/01-x.md" });
    await vi.advanceTimersByTimeAsync(300);
    expect(batches).toEqual([{ changed: ["courses/a/01-x.md"], deleted: [] }]);
  });

  it("reports a file that stays gone as deleted, and a new file as changed", async () => {
    const { coalescer, batches } = collect();
    coalescer.push({ kind: "unlink", path: "courses/a/02-y.md" });
    coalescer.push({ kind: "add", path: "courses/a/03-z.md" });
    coalescer.push({ kind: "change", path: "courses/a/03-z.md" });
    await vi.advanceTimersByTimeAsync(300);
    expect(batches).toEqual([{ changed: ["courses/a/03-z.md"], deleted: ["courses/a/02-y.md"] }]);
  });

  it("does not hold a steady stream of saves back longer than the longest wait", async () => {
    const { coalescer, batches } = collect({ debounceMs: 300, maxWaitMs: 1000 });
    for (let i = 0; i < 20; i++) {
      coalescer.push({ kind: "change", path: "courses/a/01-x.md" });
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(batches.length).toBeGreaterThanOrEqual(1);
    expect(batches.length).toBeLessThanOrEqual(2);
  });

  it("hands batches over one at a time", async () => {
    const order: string[] = [];
    let release!: () => void;
    const coalescer = new Coalescer({
      onBatch: async (batch) => {
        order.push(`start ${batch.changed[0]}`);
        if (batch.changed[0] === "a") await new Promise<void>((resolve) => (release = resolve));
        order.push(`end ${batch.changed[0]}`);
      },
    });
    coalescer.push({ kind: "change", path: "a" });
    await vi.advanceTimersByTimeAsync(300);
    coalescer.push({ kind: "change", path: "b" });
    await vi.advanceTimersByTimeAsync(300);
    expect(order).toEqual(["start a"]);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(["start a", "end a", "start b", "end b"]);
  });
});

describe("the save coalescer and temp files", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("forgets a file that appeared and vanished inside one burst", async () => {
    const batches: Batch[] = [];
    const coalescer = new Coalescer({ onBatch: async (batch) => void batches.push(batch) });
    coalescer.push({ kind: "add", path: "courses/a/4913" });
    coalescer.push({ kind: "unlink", path: "courses/a/4913" });
    coalescer.push({ kind: "change", path: "courses/a/01-x.md" });
    await vi.advanceTimersByTimeAsync(300);
    expect(batches).toEqual([{ changed: ["courses/a/01-x.md"], deleted: [] }]);
  });
});
