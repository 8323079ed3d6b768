import { spawn } from "node:child_process";
import { appendFile, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, eventually } from "../helpers/site.js";
import { BIN, runBin, startBinEmulator } from "../helpers/subprocess.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

interface Dump {
  courses: Array<{ id: number; title: string }>;
  chapters: Array<{ id: number; course_id: number; title: string; content: string }>;
}

async function admin<T>(url: string, route: string): Promise<T> {
  const origin = new URL(url).origin;
  return (await (await fetch(`${origin}/__admin${route}`)).json()) as T;
}

describe("a push killed with SIGKILL", () => {
  it("is finished by the next push: every edit on the site exactly once, no duplicate record", async () => {
    const emulator = await startBinEmulator(["--admin", "--latency", "60"]);
    try {
      const dir = await testdir();
      const env = cliEnv(dir);
      const tree = path.join(dir, "school");
      expect((await runBin(["init", "school", "--url", emulator.url], { cwd: dir, env })).code).toBe(0);
      expect((await runBin(["pull"], { cwd: tree, env })).code).toBe(0);

      // 20 edits: 10 bodies, 5 titles, 5 new chapters.
      const folder = path.join(tree, "courses", "web-development-foundations");
      const files = (await readdir(path.join(tree, "courses"), { recursive: true }))
        .filter((f) => f.endsWith(".md"))
        .sort();
      for (const [i, file] of files.slice(0, 10).entries()) {
        await appendFile(path.join(tree, "courses", file), `<p>edit number ${i}</p>\n`);
      }
      for (const [i, file] of files.slice(10, 13).entries()) {
        const full = path.join(tree, "courses", file);
        const text = await readFile(full, "utf8");
        await writeFile(full, text.replace(/^title: .*$/m, `title: Retitled ${i}`));
      }
      for (const name of ["course.yaml"]) {
        for (const course of ["cafe-latte-art-a-baristas-guide", "data-analysis-with-python"]) {
          const full = path.join(tree, "courses", course, name);
          const text = await readFile(full, "utf8");
          await writeFile(full, text.replace(/^title: .*$/m, `title: Renamed ${course}`));
        }
      }
      for (let i = 1; i <= 5; i++) {
        await writeFile(
          path.join(folder, `9${i}-new.md`),
          `---\ntitle: New chapter ${i}\nordinal: ${10 + i}\nformat: html\n---\n<p>new ${i}</p>\n`,
        );
      }

      await admin(emulator.url, "/requests").catch(() => undefined);
      const child = spawn(process.execPath, [BIN, "push", "--yes"], {
        cwd: tree,
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: "ignore",
      });
      const writes = async () =>
        (await admin<Array<{ method: string }>>(emulator.url, "/requests")).filter((r) => r.method !== "GET")
          .length;
      // Kill it in the middle: after some writes reached the site, before all 20 did.
      await eventually(async () => (await writes()) >= 6, 20_000);
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
      const before = await writes();
      expect(before).toBeLessThan(20);

      const rerun = await runBin(["push", "--yes"], { cwd: tree, env });
      expect(rerun.stderr).toBe("");
      expect(rerun.code).toBe(0);

      const state = await admin<Dump>(emulator.url, "/state");
      for (let i = 0; i < 10; i++) {
        const edited = state.chapters.filter((c) => c.content.includes(`<p>edit number ${i}</p>`));
        expect(edited).toHaveLength(1);
        expect(edited[0]!.content.split(`edit number ${i}`)).toHaveLength(2);
      }
      for (let i = 0; i < 3; i++)
        expect(state.chapters.filter((c) => c.title === `Retitled ${i}`)).toHaveLength(1);
      expect(state.courses.filter((c) => c.title.startsWith("Renamed "))).toHaveLength(2);
      for (let i = 1; i <= 5; i++)
        expect(state.chapters.filter((c) => c.title === `New chapter ${i}`)).toHaveLength(1);
      expect(state.chapters).toHaveLength(13 + 5);

      // And the tree agrees with the site: nothing left to push, nothing to pull.
      const status = await runBin(["status", "--exit-code"], { cwd: tree, env });
      expect(status.stdout).toContain("Nothing to push");
      expect(status.code).toBe(0);
      const pull = await runBin(["pull"], { cwd: tree, env });
      expect(pull.stdout).toMatch(/no changes/);
      const newIds = await Promise.all(
        [1, 2, 3, 4, 5].map(
          async (i) => (await readFile(path.join(folder, `9${i}-new.md`), "utf8")).match(/^id: (\d+)$/m)?.[1],
        ),
      );
      expect(new Set(newIds).size).toBe(5);
      expect(newIds.every(Boolean)).toBe(true);
    } finally {
      await emulator.stop();
    }
  });
});
