import { describe, expect, it } from "vitest";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { eventually } from "../helpers/site.js";

const start = useEmulators();

const newCourse = (title: string) => ({ json: { course: { title } } });

/** Statuses of `count` sequential GETs; a dropped connection shows as "reset". */
async function statuses(emulator: TestEmulator, count: number): Promise<Array<number | "reset">> {
  const seen: Array<number | "reset"> = [];
  for (let i = 0; i < count; i++) {
    seen.push(
      await emulator.api("GET", "/courses").then(
        (r) => r.status,
        () => "reset" as const,
      ),
    );
  }
  return seen;
}

describe("latency", () => {
  it("waits latencyMs before answering an API request", async () => {
    const waits: number[] = [];
    let waited!: () => void;
    const emulator = await start({
      latencyMs: 80,
      latencySleep: (ms) => {
        waits.push(ms);
        return new Promise<void>((resolve) => (waited = resolve));
      },
    });
    let answered = false;
    const reply = emulator.api("GET", "/courses").then((r) => {
      answered = true;
      return r;
    });
    await eventually(() => waits.length === 1);
    expect(waits).toEqual([80]);
    // Unanswered while the wait lasts: the request is logged only once it is answered.
    expect(answered).toBe(false);
    expect(emulator.state.requests.filter((r) => r.path.endsWith("/courses"))).toEqual([]);
    waited();
    expect((await reply).status).toBe(200);
  });
});

describe("rate limit", () => {
  it("answers 429 with Retry-After in whole seconds once the 1 s window is full", async () => {
    let ms = 0;
    const emulator = await start({ rate: 2, rateClock: () => ms });
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
    ms = 400;
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
    ms = 500;
    const limited = await emulator.api("POST", "/courses", newCourse("Too fast"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect((limited.body as { error: string }).error).toMatch(/rate limit/i);
    expect(emulator.state.dump().courses).toEqual([]);
    ms = 1000;
    // The first request has left the window; the second has not.
    expect((await emulator.api("POST", "/courses", newCourse("Now"))).status).toBe(201);
    expect((await emulator.api("GET", "/courses")).status).toBe(429);
    expect(emulator.state.requests.map((entry) => entry.fault ?? entry.status)).toEqual([
      200,
      200,
      "rate-limited",
      201,
      "rate-limited",
    ]);
  });

  it("counts logins too, and uses the real clock by default", async () => {
    const emulator = await start({ rate: 1 });
    expect(
      (await fetch(`${emulator.loginUrl}?email=demo@example.com&password=coursesync`, { method: "POST" }))
        .status,
    ).toBe(200);
    const second = await emulator.api("GET", "/courses");
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});

describe("rate-limit headers", () => {
  it("ietf: RateLimit-Limit, -Remaining, -Reset in seconds and the policy, on answers and 429s", async () => {
    let ms = 0;
    const emulator = await start({ rate: 2, rateClock: () => ms, rateHeaders: "ietf" });
    const first = await emulator.api("GET", "/courses");
    expect(Object.fromEntries([...first.headers].filter(([name]) => name.startsWith("ratelimit")))).toEqual({
      "ratelimit-limit": "2",
      "ratelimit-remaining": "1",
      "ratelimit-reset": "1",
      "ratelimit-policy": "2;w=1",
    });
    ms = 400;
    expect((await emulator.api("GET", "/courses")).headers.get("ratelimit-remaining")).toBe("0");
    ms = 500;
    const limited = await emulator.api("GET", "/courses");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
  });

  it("x: X-RateLimit-Reset as the epoch second the window is empty again", async () => {
    let ms = 0;
    const clock = manualClock("2026-03-01T09:30:00.250Z");
    const emulator = await start({ rate: 3, rateClock: () => ms, now: clock.now, rateHeaders: "x" });
    ms = 100;
    const answer = await emulator.api("GET", "/courses");
    expect(answer.headers.get("x-ratelimit-limit")).toBe("3");
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("2");
    expect(answer.headers.get("x-ratelimit-reset")).toBe(String(Date.parse("2026-03-01T09:30:02Z") / 1000));
  });

  it("none without a rate limit, or by default", async () => {
    for (const options of [{ rateHeaders: "ietf" as const }, { rate: 5 }]) {
      const emulator = await start(options);
      const names = [...(await emulator.api("GET", "/courses")).headers.keys()];
      expect(names.filter((name) => name.includes("ratelimit"))).toEqual([]);
    }
  });
});

describe("random faults", () => {
  it("failRate 1 answers every API request with a 5xx and a JSON error, applying nothing", async () => {
    const emulator = await start({ failRate: 1, randomSeed: 7 });
    for (let i = 0; i < 6; i++) {
      const response = await emulator.api("POST", "/courses", newCourse(`C${i}`));
      expect([500, 502, 503]).toContain(response.status);
      expect(typeof (response.body as { error: unknown }).error).toBe("string");
    }
    expect(emulator.state.dump()).toEqual({ courses: [], chapters: [], events: [] });
  });

  it("is reproducible with randomSeed", async () => {
    const options = { failRate: 0.4, resetRate: 0.2, randomSeed: 1234 };
    const first = await statuses(await start(options), 30);
    const second = await statuses(await start(options), 30);
    expect(first).toEqual(second);
    expect(first).toContain(200);
    expect(first).toContain("reset");
    expect(first.some((status) => typeof status === "number" && status >= 500)).toBe(true);
    const other = await statuses(await start({ ...options, randomSeed: 99 }), 30);
    expect(other).not.toEqual(first);
  });

  it("resetRate 1 drops the connection without applying the request", async () => {
    const emulator = await start({ resetRate: 1, randomSeed: 1 });
    await expect(emulator.api("POST", "/courses", newCourse("Never"))).rejects.toThrow();
    expect(emulator.state.dump().courses).toEqual([]);
    expect(emulator.state.requests).toEqual([
      { method: "POST", path: "/api/v1/courses", query: "", status: null, fault: "reset" },
    ]);
  });

  it("lostWriteRate 1 applies a write and then drops its connection; reads are untouched", async () => {
    const emulator = await start({ lostWriteRate: 1, randomSeed: 1 });
    await expect(emulator.api("POST", "/courses", newCourse("Applied"))).rejects.toThrow();
    expect(emulator.state.dump().courses).toMatchObject([{ id: 1, title: "Applied" }]);
    const read = await emulator.api("GET", "/courses/1");
    expect(read.status).toBe(200);
    await expect(
      emulator.api("PATCH", "/courses/1", { json: { course: { title: "Renamed" } } }),
    ).rejects.toThrow();
    expect(emulator.state.get("courses", 1)?.title).toBe("Renamed");
    await expect(emulator.api("DELETE", "/courses/1")).rejects.toThrow();
    expect(emulator.state.get("courses", 1)).toBeUndefined();
    // A write that fails validation is answered: nothing was applied, so nothing is lost.
    expect((await emulator.api("POST", "/courses", newCourse(""))).status).toBe(422);
  });
});

describe("one-shot faults", () => {
  it("failNext fails exactly the next n API requests with the chosen status", async () => {
    const emulator = await start();
    emulator.faults.update({ failNext: 2, failStatus: 503 });
    const seen = await statuses(emulator, 3);
    expect(seen).toEqual([503, 503, 200]);
  });

  it("resetNext with a match hits only the matching requests, before anything is applied", async () => {
    const emulator = await start();
    await emulator.api("POST", "/courses", newCourse("Kept"));
    emulator.faults.update({ resetNext: 1, match: { method: "patch", path: "/api/v1/courses" } });
    expect((await emulator.api("GET", "/courses/1")).status).toBe(200);
    await expect(
      emulator.api("PATCH", "/courses/1", { json: { course: { title: "Lost" } } }),
    ).rejects.toThrow();
    expect(emulator.state.get("courses", 1)?.title).toBe("Kept");
    const retried = await emulator.api("PATCH", "/courses/1", { json: { course: { title: "Second try" } } });
    expect(retried.status).toBe(200);
  });

  it("loseNextWrites applies the next n successful writes and drops their responses", async () => {
    const emulator = await start();
    emulator.faults.update({ loseNextWrites: 1 });
    expect((await emulator.api("POST", "/courses", newCourse(""))).status).toBe(422);
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
    await expect(emulator.api("POST", "/courses", newCourse("Created once"))).rejects.toThrow();
    const next = await emulator.api("POST", "/courses", newCourse("Second"));
    expect(next.status).toBe(201);
    expect(emulator.state.dump().courses.map((c) => c.title)).toEqual(["Created once", "Second"]);
    expect(emulator.faults.pending).toEqual({ failNext: 0, resetNext: 0, loseNextWrites: 0 });
  });
});

describe("token expiry", () => {
  it("answers 401 once tokenTtlMs has passed on the injected clock; a new login works", async () => {
    const clock = manualClock();
    const emulator = await start({ tokenTtlMs: 1000, now: clock.now });
    clock.advance(999);
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
    clock.advance(1);
    const expired = await emulator.api("GET", "/courses");
    expect(expired.status).toBe(401);
    expect((expired.body as { error: string }).error).toMatch(/expired/);
    const fresh = emulator.state.login("demo@example.com", "coursesync");
    expect((await emulator.api("GET", "/courses", { token: fresh ?? null })).status).toBe(200);
  });

  it("answers 401 once a token has made tokenUses requests; a new login works", async () => {
    const emulator = await start({ tokenUses: 2 });
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
    const expired = await emulator.api("GET", "/courses");
    expect(expired.status).toBe(401);
    expect((expired.body as { error: string }).error).toMatch(/expired/);
    const fresh = emulator.state.login("demo@example.com", "coursesync");
    expect((await emulator.api("GET", "/courses", { token: fresh ?? null })).status).toBe(200);
  });

  it("keeps tokens valid forever without tokenTtlMs", async () => {
    const clock = manualClock();
    const emulator = await start({ now: clock.now });
    clock.advance(10 * 365 * 24 * 3600 * 1000);
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
  });
});
