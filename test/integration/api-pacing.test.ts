import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import type { RateHeaderStyle } from "../../src/emulator/server.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";

const start = useEmulators();
const clients: ApiClient[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

/**
 * Virtual time for one client: a sleep ends when every earlier sleep has ended and no attempt
 * is on the wire, and then moves the clock to its end. Requests thus reach the emulator at the
 * moment the client started them, however long they take on the real wire.
 */
function virtualTime(clock: ReturnType<typeof manualClock>, onWire: () => number) {
  const timers: Array<{ at: number; seq: number; wake: () => void }> = [];
  let seq = 0;
  let pumping = false;
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  async function pump() {
    if (pumping) return;
    pumping = true;
    while (timers.length > 0) {
      for (let quiet = 0; quiet < 5; quiet = onWire() === 0 ? quiet + 1 : 0) await turn();
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = timers.shift();
      if (next === undefined) break;
      const now = clock.now().getTime();
      if (next.at > now) clock.advance(next.at - now);
      next.wake();
    }
    pumping = false;
  }
  return (ms: number) =>
    new Promise<void>((wake) => {
      timers.push({ at: clock.now().getTime() + ms, seq: seq++, wake });
      void pump();
    });
}

/** An emulator allowing 5 requests a second and a client on one virtual clock. */
async function limitedSite(options: { concurrency: number; rateHeaders?: RateHeaderStyle }) {
  const clock = manualClock();
  const emulator = await start({
    rate: 5,
    pageSize: 1,
    now: clock.now,
    rateClock: () => clock.now().getTime(),
    ...(options.rateHeaders === undefined ? {} : { rateHeaders: options.rateHeaders }),
  });
  for (let i = 1; i <= 50; i++) emulator.state.createCourse({ course: { title: `Course ${i}` } });
  const sleeps: number[] = [];
  let answered = 0;
  const sent = () => Object.values(client.stats.requests).reduce((a, b) => a + b, 0);
  const sleep = virtualTime(clock, () => sent() - answered);
  const client: ApiClient = new ApiClient({
    baseUrl: emulator.baseUrl,
    credentials: { email: "demo@example.com", password: "coursesync" },
    concurrency: options.concurrency,
    sleep: (ms) => {
      sleeps.push(ms);
      return sleep(ms);
    },
    now: () => clock.now().getTime(),
    random: () => 0.5,
    log: () => {
      answered += 1;
    },
  });
  clients.push(client);
  const statuses = () => emulator.state.requests.map((r) => r.status);
  return { emulator, client, sleeps, statuses };
}

/** The 429s after the first collision: none at a steady limit. */
function laterRefusals(statuses: Array<number | null>): number {
  const first = statuses.indexOf(429);
  const collisionEnd = statuses.findIndex((s, i) => i > first && s !== 429);
  return statuses.slice(collisionEnd).filter((s) => s === 429).length;
}

describe("pacing against a site allowing 5 requests a second", () => {
  it("50 sequential requests: one 429, honoured by its Retry-After, then none", async () => {
    const { client, sleeps, statuses } = await limitedSite({ concurrency: 1 });
    for (let id = 1; id <= 50; id++) expect(await client.get("courses", id)).toMatchObject({ id });
    expect(statuses().filter((s) => s === 429)).toHaveLength(1);
    expect(sleeps[0]).toBe(1000); // the Retry-After the emulator sent
    expect(client.gate.learnedLimit).toBe(5);
  });

  it("a listing of 50 pages at concurrency 4: 429s only in the first collision", async () => {
    const { client, statuses } = await limitedSite({ concurrency: 4 });
    const listing = await client.listAll("courses");
    expect(listing.records).toHaveLength(50);
    const seen = statuses();
    expect(seen.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(laterRefusals(seen)).toBe(0);
  });

  it("4 concurrent callers of 50 requests: no 429 after the first collision", async () => {
    const { client, statuses } = await limitedSite({ concurrency: 4 });
    await Promise.all(Array.from({ length: 50 }, (_, i) => client.get("courses", i + 1)));
    expect(laterRefusals(statuses())).toBe(0);
  });

  for (const rateHeaders of ["ietf", "x"] as const) {
    it(`with ${rateHeaders} rate-limit headers: no 429 at all, 4 at a time`, async () => {
      const { client, statuses } = await limitedSite({ concurrency: 4, rateHeaders });
      const listing = await client.listAll("courses");
      expect(listing.records).toHaveLength(50);
      await Promise.all(Array.from({ length: 20 }, (_, i) => client.get("courses", i + 1)));
      expect(statuses().filter((s) => s === 429)).toEqual([]);
    });
  }
});
