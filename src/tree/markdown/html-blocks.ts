import htmlBlockNames from "markdown-it/lib/common/html_blocks.mjs";
import { HTML_OPEN_CLOSE_TAG_RE } from "markdown-it/lib/common/html_re.mjs";
import type Token from "markdown-it/lib/token.mjs";
import type { DefaultTreeAdapterTypes } from "parse5";
import { serializeNodes } from "./raw-html.js";
import { markdownIt } from "./render.js";

// HTML blocks inside Markdown: what CommonMark passes through untouched, and the lines of a
// paragraph it would read as the start of one.

type ChildNode = DefaultTreeAdapterTypes.ChildNode;

/** Thrown where a node has no Markdown form; the nearest enclosing block is then kept as HTML. */
class NoMarkdown {}
export const NO_MARKDOWN = new NoMarkdown();

/**
 * Nodes written as HTML that Markdown passes through untouched: it must parse as HTML blocks
 * only (CommonMark's rules: it starts with a tag that opens one, and no blank line ends it
 * early), which markdown-it itself is asked to confirm.
 */
export function rawBlock(nodes: readonly ChildNode[]): string {
  // A block opened by <pre>, <script>, <style> or <textarea> runs to its end tag, blank lines
  // and all: its code reads better with them kept as they are.
  const first = nodes[0];
  if (first !== undefined && "tagName" in first && TYPE_1_BLOCKS.has(first.tagName)) {
    const raw = keptWhole(serializeNodes(nodes, true));
    if (raw !== undefined) return raw;
  }
  const raw = keptWhole(serializeNodes(nodes));
  if (raw === undefined) throw NO_MARKDOWN;
  return raw;
}

const TYPE_1_BLOCKS: ReadonlySet<string> = new Set(["pre", "script", "style", "textarea"]);

function keptWhole(html: string): string | undefined {
  const raw = trimAsciiSpace(html);
  if (raw === "" || raw[0] !== "<") return undefined;
  // Most kept blocks open with a block tag and hold no blank line: one HTML block, by the rules.
  if (BLOCK_TAG_START.test(raw) && !/\n[ \t]*\n/.test(raw)) return raw;
  let kept = "";
  for (const token of blockTokens(`${raw}\n`)) {
    if (token.type !== "html_block") return undefined;
    kept += token.content;
  }
  return kept === `${raw}\n` ? raw : undefined;
}

// The text without HTML's ASCII whitespace at either end (a scan: a regular expression tried
// its end anchor at every run of whitespace).
function trimAsciiSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isAsciiSpace(text.charCodeAt(start))) start++;
  while (end > start && isAsciiSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

// Tab, line feed, form feed, carriage return, space.
function isAsciiSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 12 || code === 13;
}

// The block structure markdown-it reads in some text (no inline parsing: it is not needed here).
function blockTokens(source: string): Token[] {
  const tokens: Token[] = [];
  markdownIt.block.parse(source, markdownIt, {}, tokens);
  return tokens;
}

// CommonMark's (and markdown-it's) starts of an HTML block: kinds 1 to 6 may interrupt a
// paragraph; kind 7, a lone complete tag on its line, starts one only outside a paragraph.
const BLOCK_TAG_START = new RegExp(`^</?(${htmlBlockNames.join("|")})(?=(\\s|/?>|$))`, "i");
const HTML_BLOCK_STARTS = [
  /^<(script|pre|style|textarea)(?=(\s|>|$))/i,
  /^<!--/,
  /^<\?/,
  /^<![A-Za-z]/,
  /^<!\[CDATA\[/,
  BLOCK_TAG_START,
];
const LONE_TAG = new RegExp(`${HTML_OPEN_CLOSE_TAG_RE.source}\\s*$`);

/** Whether markdown-it would read some line of a paragraph's text as the start of an HTML block. */
export function opensHtmlBlock(paragraph: string): boolean {
  if (!paragraph.includes("<")) return false;
  const lines = paragraph.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith("<")) continue;
    if (HTML_BLOCK_STARTS.some((start) => start.test(line)) || (i === 0 && LONE_TAG.test(line))) return true;
  }
  return false;
}
