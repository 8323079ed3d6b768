import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { get } from "../helpers/preview.js";
import { cliEnv } from "../helpers/site.js";
import { BIN, type Finished, runBin, startBinEmulator } from "../helpers/subprocess.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

describe("coursesync preview, the built CLI", () => {
  it("prints the URL on its first line, serves the tree, and exits 130 on Ctrl-C with the port closed", async () => {
    const emulator = await startBinEmulator();
    try {
      const dir = await testdir();
      const env = cliEnv(dir) as Record<string, string>;
      expect(
        (await runBin(["init", "school", "--url", emulator.url, "--no-check"], { cwd: dir, env })).code,
      ).toBe(0);
      const root = `${dir}/school`;
      expect((await runBin(["pull"], { cwd: root, env })).code).toBe(0);

      const child = spawn(process.execPath, [BIN, "preview", "--port", "0"], {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", CI: "true", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const finished = new Promise<Pick<Finished, "code" | "signal">>((resolve) =>
        child.on("close", (code, signal) => resolve({ code, signal })),
      );
      const url = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout }).once("line", resolve),
      );
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const index = await get(url);
      expect(index.status).toBe(200);
      expect(index.body).toContain('data-path="courses/web-development-foundations" data-state="unchanged"');

      child.kill("SIGINT");
      expect(await finished).toEqual({ code: 130, signal: null });
      expect(stderr).toContain("nothing is sent. Ctrl-C stops.");
      await expect(get(url)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await emulator.stop();
    }
  });
});
