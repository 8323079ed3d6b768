import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseChapterFile } from "../../src/tree/chapter-file.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { POOL_THRESHOLD } from "../../src/tree/markdown/pool.js";
import { cliEnv } from "../helpers/site.js";
import { runBin, startBinEmulator } from "../helpers/subprocess.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

interface Dump {
  courses: Array<Record<string, unknown>>;
  chapters: Array<Record<string, unknown> & { id: number; content: string }>;
  events: unknown[];
}

describe("a first pull of a large site", () => {
  it("converts its chapters on worker threads into exactly the files a single thread writes", async () => {
    const emulator = await startBinEmulator(["--admin", "--page-size", "100"]);
    try {
      const origin = new URL(emulator.url).origin;
      const dump = (await (await fetch(`${origin}/__admin/state`)).json()) as Dump;
      const template = dump.chapters[0]!;
      const samples = dump.chapters.map((c) => c.content);
      const count = POOL_THRESHOLD + 50;
      const chapters = Array.from({ length: count }, (_, i) => ({
        ...template,
        id: 1000 + i,
        ordinal: i + 1,
        title: `Chapter ${i + 1}`,
        content: `<h2>Part ${i + 1}</h2>\n${samples[i % samples.length]}`,
      }));
      const reset = await fetch(`${origin}/__admin/reset`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...dump, chapters, events: [] }),
      });
      expect(reset.status).toBe(200);

      const dir = await testdir();
      const env = cliEnv(dir);
      expect((await runBin(["init", "school", "--url", emulator.url], { cwd: dir, env })).code).toBe(0);
      const tree = path.join(dir, "school");
      const pulled = await runBin(["pull", "--json"], { cwd: tree, env });
      expect(pulled.code, pulled.stderr).toBe(0);

      const byId = new Map(chapters.map((c) => [c.id, c.content]));
      const files = (await readdir(path.join(tree, "courses"), { recursive: true }))
        .filter((name) => name.endsWith(".md"))
        .map((name) => path.join(tree, "courses", name));
      expect(files).toHaveLength(count);
      for (const name of files) {
        const parsed = parseChapterFile(await readFile(name, "utf8"), name);
        const expected = markdownCodec.fromHtml(byId.get(parsed.id!)!);
        expect({ body: parsed.body, format: parsed.format }, name).toEqual(expected);
      }
    } finally {
      await emulator.stop();
    }
  });
});
