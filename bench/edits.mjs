// How the merge figures edit a chapter: a word of text gets letters appended (never inside a
// tag, an entity or a link destination), at the same occurrence in the body and in the HTML.

const NOT_TEXT = /<[^>]*>|&#?\w+;|\]\([^)]*\)/g;
const WORD = /\p{L}[\p{L}\p{N}]*/gu;

/** The words an author could edit in text[from, to), with their offsets. */
export function words(text, from = 0, to = text.length) {
  const blanked = text.replace(NOT_TEXT, (match) => " ".repeat(match.length));
  return [...blanked.slice(from, to).matchAll(WORD)].map((m) => ({ at: from + m.index, word: m[0] }));
}

/** The text with `tag` appended to the word at its offset. */
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
