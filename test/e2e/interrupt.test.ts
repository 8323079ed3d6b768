import { type ChildProcess, spawn } from "node:child_process";
import { appendFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv } from "../helpers/site.js";
import { BIN, type Finished, runBin, startBinEmulator } from "../helpers/subprocess.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** Start the built CLI; `finished` resolves when it exits, with what it printed. */
function startBin(args: string[], cwd: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", CI: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiting: Array<{ pattern: RegExp; resolve: () => void }> = [];
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
    for (const wait of waiting.splice(0)) {
      if (wait.pattern.test(stderr)) wait.resolve();
      else waiting.push(wait);
    }
  });
  const finished = new Promise<Finished>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return {
    child,
    finished,
    /** Resolves once stderr has printed something matching `pattern`. */
    printed: (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        if (pattern.test(stderr)) resolve();
        else waiting.push({ pattern, resolve });
      }),
  };
}

/** Files a killed or stopped run could leave behind. */
async function tempFiles(root: string): Promise<string[]> {
  const all = await readdir(root, { recursive: true });
  return all.filter((file) => /\.tmp|\.moving/.test(file));
}

/** `coursesync init school --url <url>` in a new folder: the tree and the CLI environment. */
async function initSchool(url: string) {
  const dir = await testdir();
  const env = cliEnv(dir);
  expect((await runBin(["init", "school", "--url", url], { cwd: dir, env })).code).toBe(0);
  return { env, root: path.join(dir, "school") };
}

describe("a pull asked to stop", () => {
  it("on Ctrl-C: stops starting requests, writes nothing, exits 130; the next pull completes", async () => {
    const emulator = await startBinEmulator(["--latency", "60", "--page-size", "1"]);
    try {
      const { env, root } = await initSchool(emulator.url);
      const before = await readTree(root);

      const pull = startBin(["pull", "-v"], root, env);
      // Some list pages have come back; many more are still to ask for.
      await pull.printed(/GET \/api\/v1\/chapters\?page=2 200/);
      pull.child.kill("SIGINT");
      const stopped = await pull.finished;
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toMatch(/interrupted while reading the site: nothing was changed/);
      expect(stopped.stderr).toMatch(/Run `coursesync pull` again/);
      expect(stopped.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
      // Nothing more was asked for after the stop than what was already in flight.
      const lines = stopped.stderr.split("\n").filter((line) => /^GET /.test(line));
      expect(lines.length).toBeLessThan(30);
      expect(await readTree(root)).toEqual(before);
      expect(await tempFiles(root)).toEqual([]);

      const again = await runBin(["pull"], { cwd: root, env });
      expect(again.code, again.stderr).toBe(0);
      expect(Object.keys(await readTree(path.join(root, "courses"))).length).toBeGreaterThan(10);
    } finally {
      await emulator.stop();
    }
  });

  it("on SIGTERM (a CI cancel): exits 143 with the tree as it was; a second signal exits at once", async () => {
    const emulator = await startBinEmulator(["--latency", "60", "--page-size", "1"]);
    try {
      const { env, root } = await initSchool(emulator.url);
      const before = await readTree(root);

      const terminated = startBin(["pull", "-v"], root, env);
      await terminated.printed(/GET \/api\/v1\/courses\?page=2 200/);
      terminated.child.kill("SIGTERM");
      const result = await terminated.finished;
      expect(result.code).toBe(143);
      expect(result.stderr).toMatch(/interrupted while reading the site: nothing was changed/);
      expect(await readTree(root)).toEqual(before);

      // Twice: the second Ctrl-C does not wait for anything.
      const twice = startBin(["pull", "-v"], root, env);
      await twice.printed(/GET \/api\/v1\/courses\?page=2 200/);
      twice.child.kill("SIGINT");
      twice.child.kill("SIGINT");
      expect((await twice.finished).code).toBe(130);
      expect(await tempFiles(root)).toEqual([]);

      const again = await runBin(["pull"], { cwd: root, env });
      expect(again.code, again.stderr).toBe(0);
    } finally {
      await emulator.stop();
    }
  });
});

describe("a push asked to stop", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "on %s: writes in flight finish, none starts, exit %i; the next push sends the rest, none twice",
    async (signal, code) => {
      const emulator = await startBinEmulator(["--admin", "--latency", "60"]);
      try {
        const { env, root } = await initSchool(emulator.url);
        expect((await runBin(["pull"], { cwd: root, env })).code).toBe(0);
        const files = (await readdir(path.join(root, "courses"), { recursive: true }))
          .filter((f) => f.endsWith(".md"))
          .sort()
          .slice(0, 10);
        for (const [i, file] of files.entries())
          await appendFile(path.join(root, "courses", file), `\nEdit number ${i}.\n`);

        const push = startBin(["push", "--yes", "-v"], root, env);
        await push.printed(/PATCH \/api\/v1\/chapters\/\d+ 200/);
        push.child.kill(signal);
        const stopped = await push.finished;
        expect(stopped.code, stopped.stderr).toBe(code);
        expect(stopped.stdout).toMatch(
          /Push interrupted \(.*\d+ updated.*\): what was applied is saved; run `coursesync push` again/,
        );
        expect(stopped.stderr).not.toMatch(/internal error/);
        expect(await tempFiles(root)).toEqual([]);

        const rerun = await runBin(["push", "--yes"], { cwd: root, env });
        expect(rerun.code, rerun.stderr).toBe(0);
        const state = (await (await fetch(`${new URL(emulator.url).origin}/__admin/state`)).json()) as {
          chapters: Array<{ content: string }>;
        };
        for (let i = 0; i < files.length; i++) {
          const edited = state.chapters.filter((c) => c.content.includes(`Edit number ${i}.`));
          expect(edited).toHaveLength(1);
          expect(edited[0]!.content.split(`Edit number ${i}.`)).toHaveLength(2);
        }
        const status = await runBin(["status", "--exit-code"], { cwd: root, env });
        expect(status.code, status.stdout).toBe(0);
      } finally {
        await emulator.stop();
      }
    },
  );
});
