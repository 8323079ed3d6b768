// The edits the merge figures make (bench/merge-corpus.mjs, bench/merge-spellings.mjs): an edit
// appends letters to a word of text, never inside a tag, an entity or a link destination.
import { htmlToBody, markdownToHtml } from "../dist/tree/markdown/index.js";

const NOT_TEXT = /<[^>]*>|&#?\w+;|\]\([^)]*\)/g;
const WORD = /\p{L}[\p{L}\p{N}]*/gu;

/** The words an author could edit in text[from, to), with their offsets. */
export function words(text, from = 0, to = text.length) {
  const blanked = text.replace(NOT_TEXT, (match) => " ".repeat(match.length));
  return [...blanked.slice(from, to).matchAll(WORD)].map((m) => ({ at: from + m.index, word: m[0] }));
}

export function edit(text, { at, word }, tag) {
  return text.slice(0, at) + word + tag + text.slice(at + word.length);
}

/** The same word in the HTML: the same occurrence among the text words, when both count alike. */
export function inHtml(chapter, target) {
  const same = (text) => words(text).filter((w) => w.word === target.word);
  const inBody = same(chapter.body);
  const inSite = same(chapter.html);
  return inBody.length === inSite.length ? inSite[inBody.findIndex((w) => w.at === target.at)] : undefined;
}

/** The site's side after its edit, as a pull converts it; undefined when its format flipped. */
export function siteSide(chapter, target) {
  const spot = inHtml(chapter, target);
  // Where the word cannot be placed in the HTML, the site's HTML is the edited body rendered.
  const html = spot
    ? edit(chapter.html, spot, "Theirs")
    : markdownToHtml(edit(chapter.body, target, "Theirs"));
  const { body, format } = htmlToBody(html);
  return format === chapter.format ? body : undefined;
}
