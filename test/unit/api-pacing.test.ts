import { describe, expect, it } from "vitest";
import { Pacer, RATE_WINDOW_SLACK_MS, readRateHeaders, type Start } from "../../src/api/pacing.js";

const WINDOW = 1000 + RATE_WINDOW_SLACK_MS;

/** A pacer on a manual clock whose sleep moves the clock. */
function manualPacer(creepAfterMs?: number) {
  let clock = 0;
  const sleeps: number[] = [];
  const pacer = new Pacer({
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    ...(creepAfterMs === undefined ? {} : { creepAfterMs }),
  });
  return {
    pacer,
    sleeps,
    advance: (ms: number) => {
      clock += ms;
    },
    now: () => clock,
  };
}

/** Starts that the site took, as an answer without headers reports them. */
async function acceptedStarts(pacer: Pacer, count: number): Promise<Start[]> {
  const starts: Start[] = [];
  for (let i = 0; i < count; i++) {
    const start = await pacer.admit();
    pacer.answered(start, {});
    starts.push(start);
  }
  return starts;
}

describe("Pacer", () => {
  it("holds nothing back before the site refuses something", async () => {
    const { pacer, sleeps } = manualPacer();
    const starts = await acceptedStarts(pacer, 50);
    expect(sleeps).toEqual([]);
    expect(starts.every((s) => s.at === 0)).toBe(true);
    expect(pacer.learnedLimit).toBeUndefined();
  });

  it("after a 429, allows as many starts per window as the site took in the second before", async () => {
    const { pacer, advance } = manualPacer();
    await acceptedStarts(pacer, 5);
    advance(20);
    pacer.refused(await pacer.admit());
    expect(pacer.learnedLimit).toBe(5);
    // The five accepted starts at 0 fill the window until 1100; then five more, and so on.
    const next = await acceptedStarts(pacer, 11);
    expect(next.map((s) => s.at)).toEqual([
      ...Array(5).fill(WINDOW),
      ...Array(5).fill(2 * WINDOW),
      3 * WINDOW,
    ]);
    // Never more than five accepted starts in any window.
    for (const s of next) {
      expect(next.filter((o) => o.at > s.at - WINDOW && o.at <= s.at).length).toBeLessThanOrEqual(5);
    }
  });

  it("a burst of 429s from one collision teaches once; a refused start does not fill the window", async () => {
    const { pacer } = manualPacer();
    await acceptedStarts(pacer, 3);
    const inFlight = [await pacer.admit(), await pacer.admit(), await pacer.admit()];
    for (const start of inFlight) pacer.refused(start);
    expect(pacer.learnedLimit).toBe(3);
    expect((await pacer.admit()).at).toBe(WINDOW);
  });

  it("a 429 with nothing of ours accepted before it teaches no pace", async () => {
    const { pacer } = manualPacer();
    pacer.refused(await pacer.admit());
    expect(pacer.learnedLimit).toBeUndefined();
    expect((await pacer.admit()).at).toBe(0);
  });

  it("a later 429 under the learned pace lowers it by one", async () => {
    const { pacer, advance } = manualPacer();
    await acceptedStarts(pacer, 5);
    pacer.refused(await pacer.admit());
    advance(5000);
    await acceptedStarts(pacer, 5);
    pacer.refused(await pacer.admit());
    expect(pacer.learnedLimit).toBe(4);
  });

  it("creeps up by one only after the quiet stretch, and waits twice as long after a refused rise", async () => {
    const { pacer, advance } = manualPacer(60_000);
    await acceptedStarts(pacer, 5);
    pacer.refused(await pacer.admit());
    advance(59_000);
    await acceptedStarts(pacer, 1);
    expect(pacer.learnedLimit).toBe(5);
    advance(1000);
    await acceptedStarts(pacer, 1);
    expect(pacer.learnedLimit).toBe(6);
    // The site still allows 5: the sixth start of a window is refused, and the limit goes back.
    advance(10_000);
    await acceptedStarts(pacer, 5);
    pacer.refused(await pacer.admit());
    expect(pacer.learnedLimit).toBe(5);
    expect(pacer.creepAfterMs).toBe(120_000);
    advance(119_000);
    await acceptedStarts(pacer, 1);
    expect(pacer.learnedLimit).toBe(5);
    advance(1000);
    await acceptedStarts(pacer, 1);
    expect(pacer.learnedLimit).toBe(6);
  });

  it("with Remaining 0, holds new starts until Reset, counting starts the answer did not see", async () => {
    const { pacer } = manualPacer();
    const first = await pacer.admit();
    const second = await pacer.admit();
    pacer.answered(first, { "ratelimit-remaining": "1", "ratelimit-reset": "2" });
    // The second start (after the first) used up the one left: the next waits for the reset.
    expect((await pacer.admit()).at).toBe(2000);
    // An answer to an older start than the last one read is stale.
    pacer.answered(first, { "ratelimit-remaining": "9", "ratelimit-reset": "1" });
    // The clock now stands at 2000 (the wait moved it): Reset is 3 s from here.
    pacer.answered(second, { "ratelimit-remaining": "0", "ratelimit-reset": "3" });
    expect((await pacer.admit()).at).toBe(5000);
  });

  it("paces by a limit the headers give with a window", async () => {
    const { pacer } = manualPacer();
    const first = await pacer.admit();
    pacer.answered(first, { "ratelimit-limit": "2", "ratelimit-policy": "2;w=10" });
    const next = await acceptedStarts(pacer, 3);
    expect(next.map((s) => s.at)).toEqual([0, 10_000 + RATE_WINDOW_SLACK_MS, 10_000 + RATE_WINDOW_SLACK_MS]);
  });

  it("does not hold for a reset further off than two minutes: that is left to the 429", async () => {
    const { pacer } = manualPacer();
    pacer.answered(await pacer.admit(), { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "3600" });
    expect((await pacer.admit()).at).toBe(0);
  });
});

describe("readRateHeaders", () => {
  const now = Date.parse("2026-03-01T09:30:00.000Z");

  it("reads the IETF headers, Reset in seconds and the window from the policy or the limit", () => {
    expect(
      readRateHeaders(
        {
          "ratelimit-limit": "5",
          "ratelimit-remaining": "3",
          "ratelimit-reset": "2",
          "ratelimit-policy": "5;w=1",
        },
        now,
      ),
    ).toEqual({ limit: 5, remaining: 3, resetAt: now + 2000, windowMs: 1000 });
    expect(readRateHeaders({ "ratelimit-limit": "10, 10;w=60" }, now)).toEqual({
      limit: 10,
      windowMs: 60_000,
    });
    expect(
      readRateHeaders({ ratelimit: '"default";r=0;t=7', "ratelimit-policy": '"default";q=100;w=60' }, now),
    ).toEqual({ limit: 100, remaining: 0, resetAt: now + 7000, windowMs: 60_000 });
  });

  it("reads X-RateLimit-Reset as seconds to wait, or as an epoch time when it is one", () => {
    expect(
      readRateHeaders(
        { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "30" },
        now,
      ),
    ).toEqual({ limit: 60, remaining: 0, resetAt: now + 30_000 });
    const epochSeconds = String(Math.floor(now / 1000) + 45);
    expect(readRateHeaders({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": epochSeconds }, now)).toEqual(
      {
        remaining: 0,
        resetAt: (Math.floor(now / 1000) + 45) * 1000,
      },
    );
    expect(
      readRateHeaders({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now + 500) }, now),
    ).toEqual({
      remaining: 0,
      resetAt: now + 500,
    });
  });

  it("finds nothing in an answer without such headers", () => {
    expect(readRateHeaders({ "retry-after": "3", "content-type": "application/json" }, now)).toBeUndefined();
  });
});
