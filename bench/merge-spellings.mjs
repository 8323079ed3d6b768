// node bench/merge-spellings.mjs (after npm run build): how often a local edit spelled by hand
// merges with a site edit elsewhere, over every Markdown chapter of both corpora. Local: the
// chapter's body with its first word edited and every hand spelling that applies substituted
// (`_em_`, `* ` bullets, a two-space hard break, setext headings, tab-indented lists, literal
// non-breaking spaces), each kept only where the body still renders the same; the site: the last
// word edited in its HTML. Before: the merge had to convert back to itself; after: it is judged
// by what it renders (src/tree/bodies/rendered-merge.ts). "Right": the merge renders as both
// edits make the chapter. It reports, asserts nothing.
import { mergeBody } from "../dist/tree/bodies/merge.js";
import { mergeMarkdown } from "../dist/tree/bodies/rendered-merge.js";
import { equivalentHtml, htmlToBody, markdownToHtml } from "../dist/tree/markdown/index.js";
import { editorCorpus, specCorpus } from "./corpora.mjs";
import { edit, siteSide, words } from "./merge-edits.mjs";

/** Each hand spelling: how it rewrites the converter's own. */
const SPELLINGS = [
  ["_em_", (md) => md.replace(/(?<![*\\\w])\*(?![\s*])([^*\n]*?[^\s*\\])\*(?![*\w])/g, "_$1_")],
  ["* bullets", (md) => md.replace(/^(\s*)- /gm, "$1* ")],
  ["two-space hard break", (md) => md.replace(/\\\n/g, "  \n")],
  ["setext heading", (md) => md.replace(/^# (.+)$/gm, "$1\n===").replace(/^## (.+)$/gm, "$1\n---")],
  [
    "tab-indented list",
    (md) => md.replace(/^(?: {2})+(?=(?:[-*+]|\d{1,9}[.)]) )/gm, (m) => "\t".repeat(m.length / 2)),
  ],
  ["literal non-breaking space", (md) => md.replace(/&nbsp;/g, "\u00a0")],
];

/** The body with every hand spelling substituted that leaves its rendering as it is. */
function respelled(markdown) {
  const want = markdownToHtml(markdown);
  let text = markdown;
  const used = [];
  for (const [name, respell] of SPELLINGS) {
    const next = respell(text);
    if (next !== text && equivalentHtml(markdownToHtml(next), want)) {
      text = next;
      used.push(name);
    }
  }
  return { text, used };
}

/** The old rule: a clean merge that converts back to exactly itself. */
function mergeBefore(base, local, remote) {
  const result = mergeBody(base, local, remote);
  if (result.kind !== "clean") return undefined;
  const back = htmlToBody(markdownToHtml(result.text));
  return back.format === "markdown" && back.body === result.text ? result.text : undefined;
}

function mergeAfter(base, local, remote) {
  const result = mergeMarkdown(base, local, remote);
  return result.kind === "clean" ? result.text : undefined;
}

/**
 * One chapter's outcome, or undefined when it has no Markdown, two words or (`spell`) spelling
 * to try; without `spell` the local edit keeps the converter's spelling.
 */
function measure(html, spell) {
  const chapter = { html, ...htmlToBody(html) };
  if (chapter.format !== "markdown") return undefined;
  const all = words(chapter.body);
  if (all.length < 2) return undefined;
  const [mine, theirs] = [all[0], all.at(-1)];
  const remote = siteSide(chapter, theirs);
  const edited = edit(chapter.body, mine, "Mine");
  const { text: local, used } = spell ? respelled(edited) : { text: edited, used: ["none"] };
  if (remote === undefined || used.length === 0) return undefined;
  const expected = markdownToHtml(edit(edit(chapter.body, theirs, "Theirs"), mine, "Mine"));
  const judge = (merged) => ({
    merged: merged !== undefined,
    right: merged !== undefined && equivalentHtml(markdownToHtml(merged), expected),
  });
  return {
    used,
    before: judge(mergeBefore(chapter.body, local, remote)),
    after: judge(mergeAfter(chapter.body, local, remote)),
  };
}

const percent = (part, whole) => `${((100 * part) / Math.max(whole, 1)).toFixed(1)}%`;
const count = (list, when, key) => list.filter((o) => o[when][key]).length;

function report(title, spell) {
  const results = [
    ["spec", specCorpus],
    ["editor", editorCorpus],
  ].map(([name, corpus]) => ({
    name,
    all: corpus.length,
    outcomes: corpus.map((html) => measure(html, spell)).filter(Boolean),
  }));
  const tried = results.flatMap((r) => r.outcomes);
  const all = results.reduce((n, r) => n + r.all, 0);
  console.log(`${title}: ${tried.length} chapters it applies to, of ${all}`);
  for (const when of ["before", "after"]) {
    const each = results
      .map((r) => `${r.name} ${count(r.outcomes, when, "merged")}/${r.outcomes.length}`)
      .join(", ");
    console.log(
      `  ${when === "before" ? "before (converts back to itself)" : "after (judged by what it renders)"}: ` +
        `${percent(count(tried, when, "merged"), tried.length)} merge (${each}); ` +
        `${count(tried, when, "right")} of ${count(tried, when, "merged")} merges render right`,
    );
  }
  return tried;
}

const tried = report("merge (c) hand spellings here, an edit at the bottom on the site", true);
const bySpelling = SPELLINGS.map(([name]) => {
  const using = tried.filter((o) => o.used.includes(name));
  return `${name} ${count(using, "before", "merged")}→${count(using, "after", "merged")}/${using.length}`;
});
console.log(`  by spelling (before→after, of chapters using it): ${bySpelling.join(", ")}`);
report("merge (d) the same edits in the converter's own spelling", false);
