import path from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { defaultSeedDir, emulatorOptions, registerEmulator } from "../../src/cli/commands/emulator.js";
import type { CliIO } from "../../src/cli/io.js";
import type { StopSignal } from "../../src/errors.js";
import { UserError } from "../../src/errors.js";
import { call } from "../helpers/emulator.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";
import { fakeTime } from "../helpers/time.js";

afterEach(cleanupTestdirs);

/** Run `emulator <args>` in-process; resolves once the first stdout line (the base URL) is out. */
async function runEmulator(args: string[], cwd = process.cwd()) {
  let stdout = "";
  let stderr = "";
  let stop = () => {};
  let announce = (_url: string) => {};
  const announced = new Promise<string>((resolve) => {
    announce = resolve;
  });
  const time = fakeTime();
  const io: CliIO = {
    sleep: time.sleep,
    now: time.now,
    stdout: {
      write: (text: string) => {
        stdout += text;
        if (stdout.includes("\n")) announce(stdout.split("\n")[0] ?? "");
      },
    },
    stderr: { write: (text: string) => (stderr += text) },
    stdinIsTTY: false,
    env: {},
    cwd,
    interrupted: new Promise<StopSignal>((resolve) => {
      stop = () => resolve("SIGINT");
    }),
    prompts: {
      input: () => Promise.reject(new Error("no prompt")),
      password: () => Promise.reject(new Error("no prompt")),
      confirm: () => Promise.reject(new Error("no prompt")),
    },
  };
  const program = new Command("coursesync").exitOverride().option("-q, --quiet");
  registerEmulator(program, io);
  const finished = program.parseAsync(["emulator", ...args], { from: "user" });
  // A command that fails before announcing settles `finished` first; the caller inspects it.
  const ended = finished.then(
    () => "",
    () => "",
  );
  const baseUrl = await Promise.race([announced, ended]);
  return { baseUrl, finished, stop, output: () => ({ stdout, stderr }) };
}

async function token(baseUrl: string, email = "demo@example.com", password = "coursesync"): Promise<string> {
  const loginUrl = baseUrl.replace(/\/v1$/, "/login");
  const query = new URLSearchParams({ email, password });
  const login = await call(`${loginUrl}?${query}`, "POST");
  expect(login.status).toBe(200);
  return (login.body as { auth_token: string }).auth_token;
}

describe("coursesync emulator", () => {
  it("prints the base URL as its first stdout line, a login hint on stderr, and serves until interrupted", async () => {
    const run = await runEmulator(["--empty"]);
    expect(run.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(run.output().stdout).toBe(`${run.baseUrl}\n`);
    expect(run.output().stderr).toContain("demo@example.com");
    expect(run.output().stderr).toContain("coursesync");
    const auth = await token(run.baseUrl);
    expect((await call(`${run.baseUrl}/courses`, "GET", { token: auth })).body).toEqual([]);
    run.stop();
    await run.finished;
    await expect(fetch(`${run.baseUrl}/courses`)).rejects.toThrow();
  });

  it("wires its flags into the emulator", async () => {
    const run = await runEmulator([
      "--empty",
      "--admin",
      "--page-size",
      "1",
      "--response-shape",
      "wrapped",
      "--paging-headers",
      "total",
      "--email",
      "me@school.test",
      "--password",
      "hunter22",
    ]);
    try {
      expect(run.output().stderr).toContain("me@school.test");
      expect(run.output().stderr).not.toContain("hunter22");
      const auth = await token(run.baseUrl, "me@school.test", "hunter22");
      for (const title of ["A", "B"]) {
        const created = await call(`${run.baseUrl}/courses`, "POST", {
          token: auth,
          json: { course: { title } },
        });
        expect(created.body).toMatchObject({ course: { title } });
      }
      const page = await call(`${run.baseUrl}/courses`, "GET", { token: auth });
      expect(page.body).toHaveLength(1);
      expect(page.headers.get("x-total-pages")).toBe("2");
      const origin = new URL(run.baseUrl).origin;
      expect((await call(`${origin}/__admin/state`, "GET")).status).toBe(200);
    } finally {
      run.stop();
      await run.finished;
    }
  });

  it("seeds from --seed, relative to the working folder", async () => {
    const dir = await testdir({
      "courses/a/course.yaml": "id: 3\ntitle: Seeded\n",
      "courses/a/01-x.md": "---\ntitle: X\nordinal: 1\nformat: html\n---\n<p>x</p>\n",
    });
    const run = await runEmulator(["--seed", path.basename(dir), "--quiet"], path.dirname(dir));
    try {
      expect(run.output().stderr).toBe("");
      const auth = await token(run.baseUrl);
      expect((await call(`${run.baseUrl}/courses/3`, "GET", { token: auth })).body).toMatchObject({
        title: "Seeded",
      });
    } finally {
      run.stop();
      await run.finished;
    }
  });

  it("turns a seed problem into a UserError naming the file, before printing anything", async () => {
    const dir = await testdir({
      "courses/a/course.yaml": "title: A\n",
      "courses/a/01-x.md": "---\ntitle: X\nordinal: 1\n---\n",
    });
    const run = await runEmulator(["--seed", dir]);
    const error = await run.finished.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toContain(path.join(dir, "courses", "a", "01-x.md"));
    expect((error as UserError).hint).toContain("format: html");
    expect(run.output().stdout).toBe("");
  });

  it("refuses bad flag values with usage errors (exit code 2)", async () => {
    const bad = [
      ["--port", "http"],
      ["--port", "70000"],
      ["--page-size", "0"],
      ["--latency", "-5"],
      ["--rate", "1.5"],
      ["--fail-rate", "2"],
      ["--reset-rate", "x"],
      ["--lost-write-rate", ""],
      ["--token-ttl", "0"],
      ["--random-seed", "1.2"],
      ["--response-shape", "odd"],
      ["--paging-headers", "cursor"],
      ["--list-order", "newest"],
      ["--events-kept", "0"],
      ["--events-kept", "2.5"],
      ["--seed", "somewhere"],
    ];
    for (const [flag, value] of bad) {
      const flags = { port: "0", empty: true, [camel(flag ?? "")]: value };
      expect(() => emulatorOptions(flags), `${flag} ${value}`).toThrow(UserError);
      try {
        emulatorOptions(flags);
      } catch (error) {
        expect((error as UserError).exitCode).toBe(2);
        expect((error as UserError).message).toContain(flag);
      }
    }
  });

  it("converts seconds and defaults to the package's sample-site", () => {
    const options = emulatorOptions({
      port: "0",
      tokenTtl: "1.5",
      latency: "20",
      rate: "5",
      randomSeed: "42",
      rateHeaders: "x",
      tokenUses: "5",
      listOrder: "updated_at",
    });
    expect(options).toMatchObject({
      listOrder: "updated_at",
      tokenTtlMs: 1500,
      latencyMs: 20,
      rate: 5,
      randomSeed: 42,
      admin: false,
      rateHeaders: "x",
      tokenUses: 5,
    });
    const packageRoot = fileURLToPath(new URL("../../", import.meta.url));
    expect(options.seedDir).toBe(path.join(packageRoot, "sample-site"));
    expect(defaultSeedDir()).toBe(options.seedDir);
    expect(emulatorOptions({ port: "0", empty: true }).seedDir).toBeNull();
  });

  it("turns --no-events and --events-kept into options, and refuses both at once", () => {
    const plain = emulatorOptions({ port: "0", empty: true, events: true });
    expect([plain.events, plain.eventsKept]).toEqual([undefined, undefined]);
    expect(emulatorOptions({ port: "0", empty: true, events: false })).toMatchObject({ events: false });
    expect(emulatorOptions({ port: "0", empty: true, eventsKept: "50" })).toMatchObject({ eventsKept: 50 });
    const both = () => emulatorOptions({ port: "0", empty: true, events: false, eventsKept: "5" });
    expect(both).toThrow(/--no-events and --events-kept/);
  });

  it("wires --no-events and --events-kept into the emulator, says so on start, and --help names them", async () => {
    const none = await runEmulator(["--empty", "--no-events"]);
    try {
      expect(none.output().stderr).toContain("GET /events answers 404");
      const auth = await token(none.baseUrl);
      expect((await call(`${none.baseUrl}/events`, "GET", { token: auth })).status).toBe(404);
    } finally {
      none.stop();
      await none.finished;
    }
    const kept = await runEmulator(["--empty", "--events-kept", "2"]);
    try {
      expect(kept.output().stderr).toContain("only the newest 2");
      const auth = await token(kept.baseUrl);
      for (const title of ["A", "B", "C"]) {
        await call(`${kept.baseUrl}/courses`, "POST", { token: auth, json: { course: { title } } });
      }
      const events = await call(`${kept.baseUrl}/events`, "GET", { token: auth });
      expect((events.body as Array<{ id: number }>).map((e) => e.id)).toEqual([3, 2]);
    } finally {
      kept.stop();
      await kept.finished;
    }
    const program = new Command("coursesync");
    registerEmulator(program, {} as CliIO);
    const help = program.commands.find((command) => command.name() === "emulator")!.helpInformation();
    expect(help).toContain("--no-events");
    expect(help).toContain("--events-kept <n>");
  });
});

function camel(flag: string): string {
  return flag.replace(/^--/, "").replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
