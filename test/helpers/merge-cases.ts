// The merges issue 28 asks about: Markdown spelled by hand against site edits elsewhere, and
// inline markup changed on both sides in one stretch. Shared by the unit and integration tests.
import { htmlToBody } from "../../src/tree/markdown/index.js";

// A chapter as a rich-text editor saves it (one line), with the six constructs people spell by hand.
export const BASE = [
  "<h1>Getting started</h1>",
  "<p>Install the <em>latest</em> tools first.</p>",
  "<ul><li>one</li><li>two<ul><li>two and a half</li></ul></li></ul>",
  "<p>Keep the line<br>broken here.</p>",
  "<p>Measure 10\u00a0cm of it.</p>",
  "<p>Last paragraph here.</p>",
].join("");
export const BASE_MD = htmlToBody(BASE).body;
export const SITE = BASE.replace("Last paragraph here.", "Last paragraph, edited on the site.");

export type Spelling = [name: string, canonical: string, written: string];

// Each: the author's edit, written in an ordinary spelling the converter never writes.
export const spellings: Spelling[] = [
  ["_em_", "Install the *latest* tools first.", "Install the _newest_ tools first."],
  ["* bullets", "- one\n- two", "* one, edited\n* two"],
  ["a two-space hard break", "Keep the line<br>broken here.", "Keep the long line  \nbroken here."],
  ["a setext heading", "# Getting started", "Getting started fast\n==="],
  ["a tab-indented list", "- one\n- two\n  - two and a half", "- one\n- two\n\t- two and three quarters"],
  ["a literal non-breaking space", "Measure 10&nbsp;cm of it.", "Measure 12\u00a0cm of it."],
];

export const LINE = "<p>The quick brown fox jumps over the lazy dog.</p>";
export const LINE_MD = "The quick brown fox jumps over the lazy dog.";

export type Inline = [name: string, local: string, site: string, base?: string];
export type Composing = [name: string, local: string, site: string, merged: string, base?: string];

// Both sides changed the markup of one stretch: a word merge would interleave it.
export const overlapping: Inline[] = [
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
export const composing: Composing[] = [
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
  [
    "a link's target changed here, the first word of its text edited on the site",
    "The [quick brown fox](/wolf) jumps over the lazy dog.",
    '<p>The <a href="/fox">slow brown fox</a> jumps over the lazy dog.</p>',
    '<p>The <a href="/wolf">slow brown fox</a> jumps over the lazy dog.</p>',
    '<p>The <a href="/fox">quick brown fox</a> jumps over the lazy dog.</p>',
  ],
];
