import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EmulatorOptions, FaultPatch } from "../../src/emulator/server.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { addChapter, addCourse, cliEnv, writeConfig } from "../helpers/site.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";
import { fakeTime } from "../helpers/time.js";

// The CLI's waits (backoff, Retry-After) go to a fake time that records them and resolves at
// once; the emulator's rate window runs on the same clock, so a 429 clears once it is waited out.

const start = useEmulators();
afterEach(cleanupTestdirs);

const SKIP = [".coursesync/cache"];

/** An emulator with a small site, and a way to pull it into a fresh tree. */
async function setup(options: EmulatorOptions = {}) {
  const time = fakeTime();
  const emulator = await start({
    seedDir: null,
    admin: true,
    pageSize: 2,
    randomSeed: 20260301,
    now: manualClock().now,
    rateClock: time.now,
    ...options,
  });
  seed(emulator);
  const dir = await testdir();
  const env = cliEnv(dir);
  const pullInto = async (name: string, extraEnv: Record<string, string> = {}) => {
    const root = path.join(dir, name);
    await writeConfig(root, emulator.baseUrl);
    const result = await runCli(["pull"], {
      cwd: root,
      env: { ...env, ...extraEnv },
      sleep: time.sleep,
      now: time.now,
    });
    return { root, result };
  };
  return { emulator, dir, env, pullInto, time };
}

/** Three courses of three chapters each, every course followed by its chapters. */
function seed(emulator: TestEmulator): void {
  for (let c = 0; c < 3; c++) {
    const course = addCourse(emulator, { title: `Course ${c}`, excerpt: `About ${c}` });
    for (let i = 0; i < 3; i++) {
      addChapter(emulator, { course_id: course, title: `Part ${i}`, content: `<p>${c}.${i}</p>\n` });
    }
  }
}

/** Pull clean, then pull again into another tree under `faults`: the trees must be identical. */
async function identicalUnder(faults: FaultPatch[], options: EmulatorOptions = {}) {
  const { emulator, pullInto, time } = await setup(options);
  const clean = await pullInto("clean");
  expect(clean.result.code).toBe(0);
  const cleanLog = emulator.state.requests.length;
  for (const patch of faults) emulator.faults.update(patch);
  const faulty = await pullInto("faulty");
  expect(faulty.result.stderr).toBe("");
  expect(faulty.result.code).toBe(0);
  expect(await readTree(faulty.root, SKIP)).toEqual(await readTree(clean.root, SKIP));
  return { emulator, time, log: emulator.state.requests.slice(cleanLog) };
}

describe("pull under faults gives the same bytes as without", () => {
  it("with 5xx answers", async () => {
    const { log } = await identicalUnder([{ failRate: 0.2 }]);
    expect(log.filter((r) => r.fault === "failed").length).toBeGreaterThan(0);
  });

  it("with dropped connections", async () => {
    const { log } = await identicalUnder([{ resetRate: 0.15 }]);
    expect(log.filter((r) => r.fault === "reset").length).toBeGreaterThan(0);
  });

  it("with one-shot faults on both lists", async () => {
    const { log } = await identicalUnder([
      { failNext: 1, failStatus: 502, match: { path: "/api/v1/courses" } },
      { resetNext: 1, match: { path: "/api/v1/chapters" } },
    ]);
    expect(log.filter((r) => r.fault === "failed")).toEqual([
      expect.objectContaining({ path: "/api/v1/courses", query: "page=1", status: 502 }),
    ]);
    expect(log.filter((r) => r.fault === "reset")).toEqual([
      expect.objectContaining({ path: "/api/v1/chapters", query: "page=1" }),
    ]);
  });

  it("with 429 and Retry-After", async () => {
    const { log, time } = await identicalUnder([{ rate: 6 }]);
    const limited = log.filter((r) => r.status === 429).length;
    expect(limited).toBeGreaterThan(0);
    // Each 429 said "Retry-After: 1", and that is the wait the pull took before going on.
    expect(time.waits).toEqual(Array.from({ length: limited }, () => 1000));
  });

  it("with tokens expiring mid-run (logs in again with COURSESYNC_EMAIL/PASSWORD)", async () => {
    // Each token check moves the clock a second; a token lasts 12 checks, a pull needs more.
    let ms = Date.parse("2026-03-01T09:30:00.000Z");
    const ticking = () => {
      ms += 1000;
      return new Date(ms);
    };
    const { emulator, pullInto } = await setup({ now: ticking, tokenTtlMs: 12_000, pageSize: 1 });
    const clean = await pullInto("clean");
    expect(clean.result.code).toBe(0);
    const log = emulator.state.requests;
    expect(log.filter((r) => r.status === 401).length).toBeGreaterThan(0);
    expect(log.filter((r) => r.path === "/api/login").length).toBeGreaterThan(1);

    // A token from the environment that the site has since expired (admin route): log in again.
    const token = emulator.state.login("demo@example.com", "coursesync")!;
    const expired = await emulator.admin("POST", "/expire-tokens");
    expect(expired.status).toBe(204);
    const before = log.length;
    const again = await pullInto("again", { COURSESYNC_TOKEN: token });
    expect(again.result.code).toBe(0);
    expect(log.slice(before).filter((r) => r.status === 401).length).toBeGreaterThan(0);
    expect(await readTree(again.root, SKIP)).toEqual(await readTree(clean.root, SKIP));
  });
});
