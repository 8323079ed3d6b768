import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { type ChapterValues, renderChapter } from "../../src/sync/model/entities.js";
import type { renderThreads as RenderThreads } from "../../src/sync/pull/render-pool.js";
import { markdownCodec } from "../../src/tree/codecs.js";

// The built render pool (its worker is found beside it only in dist/: `npm run build` first).
const built = pathToFileURL(
  path.join(
    path.dirname(fileURLToPath(import.meta.url)),
    "..",
    "..",
    "dist",
    "sync",
    "pull",
    "render-pool.js",
  ),
).href;

describe("the pull's render thread", () => {
  it("renders a chapter of several megabytes within its heap limits, as this thread does", async () => {
    const { renderThreads } = (await import(built)) as { renderThreads: typeof RenderThreads };
    const pool = renderThreads(markdownCodec, { threads: 1 });
    expect(pool).toBeDefined();
    const block =
      '<h2>Part</h2>\n<p>Text with <strong>marks</strong>, a <a href="https://example.com/x">link</a> &amp; entities.</p>\n' +
      "<ul><li>one</li><li>two <em>three</em></li></ul>\n<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>\n";
    const chapters: Array<readonly [number, ChapterValues]> = [
      [
        1,
        {
          course_id: 1,
          title: "Large",
          ordinal: 1,
          content: block.repeat(Math.ceil(5_000_000 / block.length)),
        },
      ],
      [2, { course_id: 1, title: "Small", ordinal: 2, content: block }],
    ];
    try {
      const rendered = await pool!.render(chapters);
      expect(rendered).toEqual(chapters.map(([id, values]) => renderChapter(id, values, markdownCodec)));
    } finally {
      await pool!.close();
    }
  }, 60_000);
});
