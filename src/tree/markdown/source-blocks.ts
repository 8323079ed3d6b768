import { markdownIt } from "./render.js";

/** A top-level block of a Markdown text: its lines [start, end) and the HTML it renders to. */
export interface SourceBlock {
  start: number;
  end: number;
  html: string;
}

/**
 * The top-level blocks of a Markdown text (markdown-it's, from a parse of the whole text, so
 * references resolve), each with its source lines (blank lines after it left out) and its HTML:
 * two blocks spelled differently that render alike have the same HTML.
 */
export function sourceBlocks(markdown: string): SourceBlock[] {
  const env = {};
  const tokens = markdownIt.parse(markdown, env);
  const lines = markdown.split("\n");
  const out: SourceBlock[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const first = tokens[i]!;
    // An opening token's block runs to its closing, the next token back at its level.
    let last = i;
    if (first.nesting === 1) while (last + 1 < tokens.length && tokens[++last]!.level !== first.level);
    const map = first.map;
    if (map) {
      let end = map[1];
      while (end > map[0] && lines[end - 1]!.trim() === "") end--;
      const html = markdownIt.renderer.render(tokens.slice(i, last + 1), markdownIt.options, env);
      out.push({ start: map[0], end, html });
    }
    i = last;
  }
  return out;
}
