import { describe, expect, it } from "vitest";
import { contentMerger } from "../../src/sync/content-merge.js";
import { mergeBody } from "../../src/tree/bodies/merge.js";
import { mergeMarkdown } from "../../src/tree/bodies/rendered-merge.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { equivalentHtml, htmlToBody, markdownToHtml } from "../../src/tree/markdown/index.js";

// A chapter as a rich-text editor saves it (one line), with the six constructs people spell by hand.
const BASE = [
  "<h1>Getting started</h1>",
  "<p>Install the <em>latest</em> tools first.</p>",
  "<ul><li>one</li><li>two<ul><li>two and a half</li></ul></li></ul>",
  "<p>Keep the line<br>broken here.</p>",
  "<p>Measure 10\u00a0cm of it.</p>",
  "<p>Last paragraph here.</p>",
].join("");
const BASE_MD = htmlToBody(BASE).body;
const SITE = BASE.replace("Last paragraph here.", "Last paragraph, edited on the site.");

/** The merge as pull and push run it, for a Markdown file holding `local`. */
function merge(local: string, remote = SITE, base = BASE): string | undefined {
  const mergeText = contentMerger(markdownCodec, new Map(), { format: "markdown", text: local });
  return mergeText("content", base, markdownToHtml(local), remote) as string | undefined;
}

type Spelling = [name: string, canonical: string, written: string];

// Each: the author's edit, written in an ordinary spelling the converter never writes.
const spellings: Spelling[] = [
  ["_em_", "Install the *latest* tools first.", "Install the _newest_ tools first."],
  ["* bullets", "- one\n- two", "* one, edited\n* two"],
  ["a two-space hard break", "Keep the line<br>broken here.", "Keep the long line  \nbroken here."],
  ["a setext heading", "# Getting started", "Getting started fast\n==="],
  ["a tab-indented list", "- one\n- two\n  - two and a half", "- one\n- two\n\t- two and three quarters"],
  ["a literal non-breaking space", "Measure 10&nbsp;cm of it.", "Measure 12\u00a0cm of it."],
];

describe("a merge is judged by what it renders, not by its Markdown spelling", () => {
  it("starts from a chapter written in the converter's own spellings", () => {
    for (const [, canonical] of spellings) expect(BASE_MD).toContain(canonical);
  });

  it.each(spellings)("%s here, an edit elsewhere on the site: merged", (_name, canonical, written) => {
    const local = BASE_MD.replace(canonical, written);
    const merged = merge(local);
    expect(merged, "a clean merge").toBeTypeOf("string");
    // What both changes make: the author's rendering with the site's edit in it.
    const expected = markdownToHtml(
      local.replace("Last paragraph here.", "Last paragraph, edited on the site."),
    );
    expect(equivalentHtml(merged as string, expected), `${merged}\n!=\n${expected}`).toBe(true);
  });
});

const LINE = "<p>The quick brown fox jumps over the lazy dog.</p>";
const LINE_MD = "The quick brown fox jumps over the lazy dog.";

type Inline = [name: string, local: string, site: string, base?: string];
type Composing = [name: string, local: string, site: string, merged: string, base?: string];

// Both sides changed the markup of one stretch: a word merge would interleave it.
const overlapping: Inline[] = [
  [
    "emphasis across the other side's emphasis",
    "*The quick brown* fox jumps over the lazy dog.",
    "<p>The quick <em>brown fox jumps</em> over the lazy dog.</p>",
  ],
  [
    "strong across the other side's emphasis",
    "The **quick brown** fox jumps over the lazy dog.",
    "<p>The quick <em>brown fox</em> jumps over the lazy dog.</p>",
  ],
  [
    "emphasis around the other side's strong",
    "The *quick brown fox* jumps over the lazy dog.",
    "<p>The quick <strong>brown</strong> fox jumps over the lazy dog.</p>",
  ],
  [
    "a link across the other side's emphasis",
    "The [quick brown](/fox) fox jumps over the lazy dog.",
    "<p>The quick <em>brown fox</em> jumps over the lazy dog.</p>",
  ],
  [
    "a code span across the other side's strong",
    "The `quick brown` fox jumps over the lazy dog.",
    "<p>The quick <strong>brown fox</strong> jumps over the lazy dog.</p>",
  ],
  [
    "emphasis taken off against strong added inside it",
    "The quick brown fox jumps over the lazy dog.",
    "<p>The <em>quick <strong>brown</strong> fox</em> jumps over the lazy dog.</p>",
    "<p>The <em>quick brown fox</em> jumps over the lazy dog.</p>",
  ],
  [
    "a link's target changed against emphasis added in its text",
    "The [quick brown fox](/wolf) jumps over the lazy dog.",
    '<p>The <a href="/fox">quick <em>brown</em> fox</a> jumps over the lazy dog.</p>',
    '<p>The <a href="/fox">quick brown fox</a> jumps over the lazy dog.</p>',
  ],
];

// One side's markup with the other side's changes of text, or markup changed in stretches apart.
const composing: Composing[] = [
  [
    "emphasis here, a word inside it edited on the site",
    "*The quick brown fox* jumps over the lazy dog.",
    "<p>The quick red fox jumps over the lazy dog.</p>",
    "<p><em>The quick red fox</em> jumps over the lazy dog.</p>",
  ],
  [
    "emphasis here, emphasis on other words of the line on the site",
    "*The quick* brown fox jumps over the lazy dog.",
    "<p>The quick brown fox jumps over the <em>lazy dog</em>.</p>",
    "<p><em>The quick</em> brown fox jumps over the <em>lazy dog</em>.</p>",
  ],
  [
    "a link's target changed here, its text edited on the site",
    "The [quick brown fox](/wolf) jumps over the lazy dog.",
    '<p>The <a href="/fox">quick red fox</a> jumps over the lazy dog.</p>',
    '<p>The <a href="/wolf">quick red fox</a> jumps over the lazy dog.</p>',
    '<p>The <a href="/fox">quick brown fox</a> jumps over the lazy dog.</p>',
  ],
];

describe("a merge that interleaves inline markup from both sides is a conflict", () => {
  it("starts from a line both sides can edit", () => {
    expect(htmlToBody(LINE).body).toBe(LINE_MD);
  });

  it.each(overlapping)("%s", (_name, local, site, base = LINE) => {
    // The word merge alone takes both sides: what it renders to is neither side's markup.
    expect(mergeBody(htmlToBody(base).body, local, htmlToBody(site).body).kind).toBe("clean");
    expect(merge(local, site, base)).toBeUndefined();
    // As pull shows it: markers around the line, each side whole between them.
    const result = mergeMarkdown(htmlToBody(base).body, `${local}\n`, `${htmlToBody(site).body}\n`);
    expect(result.kind).toBe("conflict");
    expect(result.text).toContain(`<<<<<<< local\n${local}\n=======\n${htmlToBody(site).body}\n>>>>>>> site`);
  });

  it.each(composing)("but %s merges", (_name, local, site, merged, base = LINE) => {
    const result = merge(local, site, base);
    expect(result, "a clean merge").toBeTypeOf("string");
    expect(equivalentHtml(result as string, merged), result).toBe(true);
  });
});
