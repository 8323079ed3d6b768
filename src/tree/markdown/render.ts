import MarkdownIt from "markdown-it";

/**
 * The one Markdown renderer, for both directions: raw HTML passes through (DESIGN 5 keeps what
 * Markdown cannot say as HTML inside it), and nothing is added that the author did not write:
 * no autolinked URLs or e-mail addresses, no smart quotes or dashes.
 */
export const markdownIt = new MarkdownIt({ html: true, linkify: false, typographer: false });

/** The HTML a Markdown chapter body stands for (markdown-it: html on, linkify and typographer off). */
export function markdownToHtml(markdown: string): string {
  return markdownIt.render(markdown);
}
