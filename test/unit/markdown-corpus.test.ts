import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseFragment } from "parse5";
import { afterAll, describe, expect, it } from "vitest";
import { equivalentNodes, parseRendered } from "../../src/tree/markdown/gate.js";
import { htmlToBody, markdownBodies, markdownToHtml } from "../../src/tree/markdown/index.js";
import { markdownIt } from "../../src/tree/markdown/render.js";
import { seededRandom } from "../helpers/random.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, "..", "fixtures", "editor-html");
const spec = createRequire(import.meta.url)("commonmark-spec") as {
  tests: Array<{ html: string; markdown: string }>;
};

/** The CommonMark spec's distinct HTML outputs (with its → marks as the tabs they stand for). */
const specCorpus = [...new Set(spec.tests.map((test) => test.html.replace(/→/g, "\t")))];
/** Rich-text editors' HTML, one snippet a file. */
const editorCorpus = readdirSync(fixtures)
  .filter((name) => name.endsWith(".html"))
  .sort()
  .map((name) => [name, readFileSync(path.join(fixtures, name), "utf8")] as const);

/** Seeded random fragments mixing Markdown syntax characters, whitespace and markup. */
function generatedCorpus(count: number, seed: number): string[] {
  const { random, pick } = seededRandom(seed);
  const pieces = ["a", "word", " ", "  ", "\n", "\t", "*", "_", "#", ">", "-", "+", "=", "|", "~", "`"];
  pieces.push("\\", "[", "]", "(", ")", "&lt;", "&amp;", "!", "1.", "2)", "&nbsp;", '"', "x_y", "é", "---");
  const text = () => Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(pieces)).join("");
  const inline = (depth: number): string => {
    if (depth > 2 || random() < 0.45) return text();
    const inner = () => inline(depth + 1) + (random() < 0.5 ? inline(depth + 1) : "");
    return pick([
      () => `<em>${inner()}</em>`,
      () => `<strong>${inner()}</strong>`,
      () => `<code>${text()}</code>`,
      () =>
        `<a href="${pick(["/a", "https://x.org/p?q=1&amp;r=2", "#f", "/a(b)", "https://ü.de"])}">${inner()}</a>`,
      () => `<img src="/i.png" alt="${pick(["", "cat", "a *b*"])}">`,
      () => pick(["<br>", "<br>\n"]),
      () => `<span class="c">${inner()}</span>`,
      () => `<s>${inner()}</s>`,
      () => `<!-- ${pick(["c", "x y"])} -->`,
    ])();
  };
  const paragraph = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => inline(0)).join("");
  const block = (depth: number): string =>
    pick([
      () => `<p>${paragraph()}</p>`,
      () => `<h${1 + Math.floor(random() * 6)}>${paragraph()}</h${1 + Math.floor(random() * 6)}>`,
      () => (depth < 2 ? `<blockquote>${block(depth + 1)}\n${block(depth + 1)}</blockquote>` : "<hr>"),
      () => {
        const tag = pick(["ul", "ol"]);
        const item = () => (random() < 0.3 ? `<p>${paragraph()}</p>` : paragraph());
        const nested = () => (depth < 2 && random() < 0.3 ? block(depth + 1) : "");
        return `<${tag}>\n<li>${item()}${nested()}</li>\n<li>${item()}</li>\n</${tag}>`;
      },
      () => `<pre><code>${text().replace(/&\w+;/g, "")}\n</code></pre>`,
      () => `<div>${paragraph()}</div>`,
      () =>
        `<table><thead><tr><th>${inline(1)}</th></tr></thead><tbody><tr><td>${inline(1)}</td></tr></tbody></table>`,
    ])();
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(random() * 3) }, () => block(0)).join(pick(["", "\n", "\n\n"])),
  );
}

/** The gate with parse5 itself as the parser: the reference the fast paths are held to. */
function referenceEquivalent(a: string, b: string): boolean {
  return equivalentNodes(parseFragment(a).childNodes, parseFragment(b).childNodes);
}

const shares: string[] = [];

afterAll(() => {
  // Reported, not asserted: the targets live in bench/markdown.mjs.
  console.info(`Stored as Markdown:\n${shares.join("\n")}`);
});

function checkCorpus(name: string, corpus: ReadonlyArray<readonly [string, string]>) {
  describe(name, () => {
    const results = corpus.map(([, html]) => htmlToBody(html));

    it("round-trips every fragment (lossless, no exception)", () => {
      const lossy = corpus.filter(([, html], i) => {
        const { body, format } = results[i]!;
        return !referenceEquivalent(markdownBodies.toHtml(body, format, "chapter.md"), html);
      });
      expect(lossy.map(([label]) => label)).toEqual([]);
    });

    it("reads rendered Markdown from its tokens exactly as from its parsed HTML", () => {
      // The pull step's shortcut (rendered.ts) must agree with rendering and parsing for real.
      const differ = corpus.filter((_, i) => {
        const { body, format } = results[i]!;
        if (format !== "markdown") return false;
        const parsed = parseFragment(markdownToHtml(body)).childNodes;
        return !equivalentNodes(parseRendered(body), parsed) || !equivalentNodes(parsed, parseRendered(body));
      });
      expect(differ.map(([label]) => label)).toEqual([]);
    });

    it("converts every fragment to the same body with the gate's shortcuts off, one or both", () => {
      // The fast HTML parser and the token shortcut are pure speed-ups: removing them is safe.
      for (const shortcuts of [
        { fastHtml: false, rendered: true },
        { fastHtml: true, rendered: false },
        { fastHtml: false, rendered: false },
      ]) {
        const differ = corpus.filter(([, html], i) => {
          const slow = htmlToBody(html, shortcuts);
          return slow.body !== results[i]!.body || slow.format !== results[i]!.format;
        });
        expect({ shortcuts, differ: differ.map(([label]) => label) }).toEqual({ shortcuts, differ: [] });
      }
    });

    it("is a fixed point: the HTML pushed from a pulled Markdown file pulls back to the same file", () => {
      const moved = corpus.filter((_, i) => {
        const { body, format } = results[i]!;
        return format === "markdown" && htmlToBody(markdownToHtml(body)).body !== body;
      });
      expect(moved.map(([label]) => label)).toEqual([]);
      const markdown = results.filter((result) => result.format === "markdown").length;
      shares.push(
        `  ${name}: ${markdown}/${corpus.length} (${((100 * markdown) / corpus.length).toFixed(1)}%)`,
      );
    });
  });
}

checkCorpus(
  "the CommonMark spec's HTML outputs",
  specCorpus.map((html, i) => [`output ${i}: ${JSON.stringify(html.slice(0, 60))}`, html] as const),
);
checkCorpus("rich-text editors' HTML", editorCorpus);
checkCorpus(
  "generated fragments",
  generatedCorpus(1500, 20251101).map((html, i) => [`fragment ${i}: ${JSON.stringify(html)}`, html] as const),
);

describe("the corpora", () => {
  it("hold enough fragments", () => {
    expect(specCorpus.length).toBeGreaterThan(550);
    expect(editorCorpus.length).toBeGreaterThanOrEqual(40);
  });

  it("hold the token shortcut equal to rendering and parsing on every CommonMark example's Markdown", () => {
    // Not only the Markdown the converter writes: every construct of the spec, by parse5 itself.
    const differ = spec.tests
      .map((test) => test.markdown.replace(/→/g, "\t"))
      .filter((markdown) => {
        const parsed = parseFragment(markdownToHtml(markdown)).childNodes;
        const shortcut = parseRendered(markdown);
        return !equivalentNodes(shortcut, parsed) || !equivalentNodes(parsed, shortcut);
      });
    expect(differ).toEqual([]);
  });

  it("hold the token shortcut equal to rendering and parsing where HTML blocks stand between Markdown blocks", () => {
    // The shortcut reads a top-level HTML block by itself only when it closes what it opens.
    const blocks = ["<p>&nbsp;</p>", '<iframe src="/v"></iframe>', "<div>\n\n*a*\n\n</div>", "<div>open"];
    blocks.push("  <span>x</span> tail", "<!-- c -->", "<table><tr><td>x</td></tr></table>", "</div>");
    const markdown = [
      "para *a*",
      "# head",
      "- item",
      "```\ncode\n```",
      "> quote",
      "---",
      "a | b\n--|--\n1 | 2",
    ];
    const { random, pick } = seededRandom(35);
    const cases = Array.from({ length: 400 }, () =>
      Array.from({ length: 1 + Math.floor(random() * 5) }, () =>
        random() < 0.5 ? pick(blocks) : pick(markdown),
      ).join(pick(["\n\n", "\n"])),
    );
    const differ = cases.filter((text) => {
      const parsed = parseFragment(markdownToHtml(text)).childNodes;
      const shortcut = parseRendered(text);
      return !equivalentNodes(shortcut, parsed) || !equivalentNodes(parsed, shortcut);
    });
    expect(differ).toEqual([]);
  });

  it("exercise the token shortcut: many bodies hold no raw HTML", () => {
    const plain = specCorpus
      .map((html) => htmlToBody(html))
      .filter(({ body, format }) => format === "markdown" && !/html_/.test(tokenTypes(body)));
    expect(plain.length).toBeGreaterThan(300);
  });
});

function tokenTypes(markdown: string): string {
  return markdownIt
    .parse(markdown, {})
    .flatMap((token) => [token.type, ...(token.children ?? []).map((child) => child.type)])
    .join(" ");
}
