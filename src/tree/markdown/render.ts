import MarkdownIt from "markdown-it";
import type StateCore from "markdown-it/lib/rules_core/state_core.mjs";

/**
 * The one Markdown renderer, for both directions: raw HTML passes through (DESIGN 5 keeps what
 * Markdown cannot say as HTML inside it), and nothing is added that the author did not write:
 * no autolinked URLs or e-mail addresses, no smart quotes or dashes.
 */
export const markdownIt = new MarkdownIt({ html: true, linkify: false, typographer: false });

// Two of markdown-it's steps done the same but cheaper, for the pull's round-trip check that
// parses every converted chapter (same output: a test compares them with markdown-it's own).

/** markdown-it's normalize rule, which copies the whole text even when it has nothing to replace. */
export function normalize(state: StateCore): void {
  const src = state.src;
  if (src.indexOf("\r") === -1 && src.indexOf("\0") === -1) return;
  state.src = src.replace(/\r\n?|\n/g, "\n").replace(/\0/g, "\uFFFD");
}
markdownIt.core.ruler.at("normalize", normalize);

/** How many link normalizations are remembered before the memo starts over. */
const LINK_MEMO_SIZE = 4096;
const normalizeLink = markdownIt.normalizeLink;
const normalizedLinks = new Map<string, string>();
// A link's normalization (URL parsing, punycode, percent-encoding) is a pure function of its
// text, and a site links the same addresses again and again.
markdownIt.normalizeLink = (url: string): string => {
  let normalized = normalizedLinks.get(url);
  if (normalized === undefined) {
    if (normalizedLinks.size >= LINK_MEMO_SIZE) normalizedLinks.clear();
    normalized = normalizeLink(url);
    normalizedLinks.set(url, normalized);
  }
  return normalized;
};

/** The HTML a Markdown chapter body stands for (markdown-it: html on, linkify and typographer off). */
export function markdownToHtml(markdown: string): string {
  return markdownIt.render(markdown);
}
