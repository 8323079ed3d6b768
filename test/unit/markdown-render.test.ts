import MarkdownIt from "markdown-it";
import StateCore from "markdown-it/lib/rules_core/state_core.mjs";
import { describe, expect, it } from "vitest";
import { markdownIt, markdownToHtml, normalize } from "../../src/tree/markdown/render.js";

// The renderer's cheaper steps must read every text as markdown-it's own do.
const plain = new MarkdownIt({ html: true, linkify: false, typographer: false });
const markdownItNormalize = plain.core.ruler.getRules("")[0]!;

describe("the Markdown renderer's own steps", () => {
  it("normalizes line ends and NUL characters as markdown-it does", () => {
    expect(markdownItNormalize.name).toBe("normalize");
    for (const src of ["", "a\nb\n", "a\r\nb\rc\n", "x\0y", "\r\0\r\n\n\r", "no line end"]) {
      const ours = new StateCore(src, plain, {});
      const theirs = new StateCore(src, plain, {});
      normalize(ours);
      markdownItNormalize(theirs);
      expect(ours.src).toBe(theirs.src);
    }
    expect(markdownToHtml("a\r\nb\0\r\n\r\nc")).toBe(plain.render("a\r\nb\0\r\n\r\nc"));
  });

  it("normalizes a link as markdown-it does, the second time too", () => {
    const urls = [
      "https://example.com/a b",
      "https://münchen.example/straße?q=ä#x",
      "HTTPS://Example.COM/%zz%41",
      "mailto:user@bücher.example",
      "//host/path",
      "javascript:alert(1)",
      "",
    ];
    for (const url of [...urls, ...urls])
      expect(markdownIt.normalizeLink(url)).toBe(plain.normalizeLink(url));
    const links = urls.map((url, i) => `[${i}](<${url}>)`).join("\n");
    expect(markdownToHtml(links)).toBe(plain.render(links));
  });
});
