import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.js";
import { pull } from "../../src/lib.js";
import { initTree } from "../helpers/site.js";

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

/** Start an emulator that the test's end closes. */
async function started(options: Parameters<typeof startEmulator>[0]): Promise<Emulator> {
  const emulator = await startEmulator(options);
  running.push(emulator);
  return emulator;
}

describe("coursesync/emulator", () => {
  it("serves the sample site by default, on a free port, until closed", async () => {
    const emulator = await started({ port: 0 });
    expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}/api/v1`);
    const tree = await initTree({ baseUrl: emulator.url });
    const pulled = await pull({ dir: tree.root, env: tree.env });
    expect(pulled.remote.courses).toBeGreaterThan(0);
    expect(pulled.errors).toEqual([]);
    await emulator.close();
    running.pop();
    await expect(fetch(`${emulator.url}/courses`)).rejects.toThrow();
  });

  it("starts empty with seed: null, with its own account", async () => {
    const emulator = await started({ seed: null, email: "ci@example.com", password: "pw" });
    const tree = await initTree({ baseUrl: emulator.url });
    const pulled = await pull({
      dir: tree.root,
      env: { COURSESYNC_CONFIG_DIR: tree.env.COURSESYNC_CONFIG_DIR },
      email: "ci@example.com",
      password: "pw",
    });
    expect(pulled.remote).toEqual({ courses: 0, chapters: 0 });
  });

  it("answers 429 past its rate, as `--rate` does", async () => {
    const emulator = await started({ seed: null, rate: 1 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${emulator.url}/courses`)).status);
    expect(statuses).toContain(429);
  });

  it("names a bad option as the caller gave it", async () => {
    await expect(startEmulator({ latency: -1 })).rejects.toMatchObject({
      name: "CoursesyncError",
      exitCode: 2,
      message: 'startEmulator: option "latency" must be 0 or more, not -1',
    });
    await expect(startEmulator({ faults: { fail: 2 } })).rejects.toMatchObject({
      message: expect.stringContaining('option "faults.fail"'),
    });
    await expect(startEmulator({ latencyMs: 5 } as never)).rejects.toMatchObject({
      message: 'startEmulator: unknown option "latencyMs"',
      hint: expect.stringContaining("latency"),
    });
  });
});
