import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseChapterFile } from "../../src/tree/chapter-file.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { POOL_THRESHOLD } from "../../src/tree/markdown/pool.js";
import { pulledBinSite } from "../helpers/bin-site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

describe("a first pull of a large site", () => {
  it("converts its chapters on worker threads into exactly the files a single thread writes", async () => {
    const count = POOL_THRESHOLD + 50;
    const { tree, chapters, stop } = await pulledBinSite(100, (template, samples) =>
      Array.from({ length: count }, (_, i) => ({
        ...template,
        id: 1000 + i,
        ordinal: i + 1,
        title: `Chapter ${i + 1}`,
        content: `<h2>Part ${i + 1}</h2>\n${samples[i % samples.length]}`,
      })),
    );
    try {
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
      await stop();
    }
  });
});
