import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chapterFileText } from "../../src/sync/model/entities.js";
import { parseChapterFile } from "../../src/tree/chapter-file.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { pulledBinSite } from "../helpers/bin-site.js";
import { runBin } from "../helpers/subprocess.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

describe("a first pull renders its chapters on threads of their own", () => {
  it("writes exactly the files one thread renders, records their hashes, and a second pull writes none", async () => {
    // Pages of small chapters, and one large one (its thread busy, the pages after it go to
    // another).
    const { tree, env, chapters, stop } = await pulledBinSite(10, (template, samples) =>
      Array.from({ length: 80 }, (_, i) => ({
        ...template,
        id: 1000 + i,
        ordinal: i + 1,
        title: `Chapter ${i + 1}`,
        content:
          i === 20
            ? samples.join("\n").repeat(Math.ceil(400_000 / samples.join("\n").length))
            : `<h2>Part ${i + 1}</h2>\n${samples[i % samples.length]}`,
      })),
    );
    try {
      const byId = new Map(chapters.map((c) => [c.id, c]));
      const files = (await readdir(path.join(tree, "courses"), { recursive: true }))
        .filter((name) => name.endsWith(".md"))
        .map((name) => path.join(tree, "courses", name));
      expect(files).toHaveLength(chapters.length);
      for (const name of files) {
        const text = await readFile(name, "utf8");
        const record = byId.get(parseChapterFile(text, name).id!)!;
        const values = {
          title: record.title,
          ordinal: record.ordinal,
          course_id: record.course_id,
          content: record.content,
        };
        expect(text, name).toBe(chapterFileText(record.id, values, markdownCodec));
      }
      // The snapshot holds each file's hash as written: nothing reads as changed, nothing is
      // written again.
      const status = await runBin(["status", "--json"], { cwd: tree, env });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ clean: true });
      const again = await runBin(["pull", "--json"], { cwd: tree, env });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ files_written: 0, changes: [] });
    } finally {
      await stop();
    }
  });
});
