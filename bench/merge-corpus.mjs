// node bench/merge-corpus.mjs (after npm run build): how often chapter bodies merge, over every
// chapter of both corpora (bench/corpora.mjs), each as pull would see it: base = the body the
// converter wrote, local = that body edited, remote = the site's HTML edited and converted again.
// Markdown bodies merge by lines then words, raw-HTML bodies by lines. It reports, asserts nothing:
// (a) one edit at the top (local: the first word) and one at the bottom (site: the last word);
// (b) two edits in different sentences of one paragraph (local: the first sentence, site: the last).
// An edit appends letters to a word of text (bench/merge-edits.mjs).
import { mergeBody } from "../dist/tree/bodies/merge.js";
import { htmlToBody } from "../dist/tree/markdown/index.js";
import { editorCorpus, specCorpus } from "./corpora.mjs";
import { edit, siteSide, words } from "./merge-edits.mjs";

const SENTENCE_END = /[.!?]["'”’)\]*_]*\s+(?=\S)/g;
const BLOCK_PREFIX = /^(?:\s*(?:[>*+-]|\d+[.)])\s+)*/;

/** Whether the edits merge cleanly, keeping both. */
function merges(chapter, mine, theirs) {
  const remote = siteSide(chapter, theirs);
  if (remote === undefined) return false;
  const local = edit(chapter.body, mine, "Mine");
  const result = mergeBody(chapter.body, local, remote, { words: chapter.format === "markdown" });
  return (
    result.kind === "clean" &&
    [`${mine.word}Mine`, `${theirs.word}Theirs`].every((w) => result.text.includes(w))
  );
}

/** (a): the first and the last word; undefined for a chapter with fewer than two. */
function topAndBottom(chapter) {
  const all = words(chapter.body);
  return all.length < 2 ? undefined : merges(chapter, all[0], all.at(-1));
}

/** The first paragraph line (outside code) with a word in its first and in its last sentence. */
function twoSentences(body) {
  let offset = 0;
  let inCode = false;
  for (const line of body.split("\n")) {
    const [lineStart, lineEnd] = [offset, offset + line.length];
    offset = lineEnd + 1;
    if (/^\s*(```|~~~)/.test(line)) inCode = !inCode;
    if (inCode || /^\s*[#|]/.test(line)) continue;
    const textStart = lineStart + line.match(BLOCK_PREFIX)[0].length;
    const ends = [...body.slice(textStart, lineEnd).matchAll(SENTENCE_END)];
    const last = ends.at(-1);
    if (last === undefined) continue;
    const mine = words(body, textStart, textStart + ends[0].index)[0];
    const theirs = words(body, textStart + last.index + last[0].length, lineEnd)[0];
    if (mine && theirs) return [mine, theirs];
  }
  return undefined;
}

/** (b): undefined for a chapter with no such paragraph. */
function inOneParagraph(chapter) {
  const pair = twoSentences(chapter.body);
  return pair && merges(chapter, ...pair);
}

function tally(corpora, measure) {
  const counts = corpora.map(([name, chapters]) => {
    const outcomes = chapters.map(measure).filter((outcome) => outcome !== undefined);
    return { name, merged: outcomes.filter(Boolean).length, tried: outcomes.length, all: chapters.length };
  });
  const sum = (key) => counts.reduce((total, c) => total + c[key], 0);
  const each = counts.map((c) => `${c.name} ${c.merged}/${c.tried}`).join(", ");
  const share = ((100 * sum("merged")) / sum("tried")).toFixed(1);
  return `${share}% (${sum("merged")} of ${sum("tried")} chapters it applies to, of ${sum("all")}; ${each})`;
}

const toChapter = (html) => ({ html, ...htmlToBody(html) });
const corpora = [
  ["spec", specCorpus.map(toChapter)],
  ["editor", editorCorpus.map(toChapter)],
];
console.log(
  `merge (a) an edit at the top here and at the bottom on the site: ${tally(corpora, topAndBottom)}`,
);
console.log(`merge (b) edits in two sentences of one paragraph: ${tally(corpora, inOneParagraph)}`);
