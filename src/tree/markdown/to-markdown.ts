import htmlBlockNames from "markdown-it/lib/common/html_blocks.mjs";
import { HTML_OPEN_CLOSE_TAG_RE } from "markdown-it/lib/common/html_re.mjs";
import type Token from "markdown-it/lib/token.mjs";
import { type DefaultTreeAdapterTypes, html } from "parse5";
import { contentOf, type Item, isBlockElement, significant } from "./gate.js";
import { endTag, hasInlineTags, RAW_TEXT_ELEMENTS, serializeNodes, startTag } from "./raw-html.js";
import { markdownIt } from "./render.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;
type CommentNode = DefaultTreeAdapterTypes.CommentNode;

/**
 * One top-level block of a chapter, the unit DESIGN 5's fallback keeps as HTML when its
 * Markdown does not survive: a block element, or a run of inline nodes and comments between
 * blocks (which Markdown can only hold as HTML).
 */
export interface TopBlock {
  nodes: ChildNode[];
  /** The element's tag for a block element, undefined for a run. */
  tag: string | undefined;
  /** A list right after a list of its kind takes the other marker, or the two would merge. */
  otherMarker: boolean;
}

/** How inline markup is written. */
export interface InlineStyle {
  /**
   * Write emphasis, code, links and images as HTML tags around Markdown text, not as `*`, `` ` ``
   * or `[]()`: a block's second try when delimiter rules make its Markdown read differently.
   */
  htmlTags: boolean;
}

// Thrown where a node has no Markdown form; the nearest enclosing block is then kept as HTML.
class NoMarkdown {}
const NO_MARKDOWN = new NoMarkdown();

const WHITESPACE_ONLY = /^[\t\n\f\r ]*$/;

/** Split a parsed chapter into its top-level blocks, dropping the whitespace between them. */
export function topBlocks(nodes: readonly ChildNode[]): TopBlock[] {
  const blocks: TopBlock[] = [];
  let run: ChildNode[] = [];
  const endRun = () => {
    while (run.length > 0 && isBlankText(run[run.length - 1]!)) run.pop();
    if (run.length > 0) blocks.push({ nodes: run, tag: undefined, otherMarker: false });
    run = [];
  };
  for (const node of nodes) {
    if (isBlockElement(node)) {
      endRun();
      const tag = (node as Element).tagName;
      blocks.push({ nodes: [node], tag, otherMarker: otherMarker(blocks.at(-1), tag) });
    } else if (run.length > 0 || !isBlankText(node)) {
      run.push(node);
    }
  }
  endRun();
  return blocks;
}

function otherMarker(
  previous: { tag: string | undefined; otherMarker: boolean } | undefined,
  tag: string,
): boolean {
  return (tag === "ul" || tag === "ol") && previous?.tag === tag && !previous.otherMarker;
}

function isBlankText(node: ChildNode): boolean {
  return node.nodeName === "#text" && WHITESPACE_ONLY.test((node as DefaultTreeAdapterTypes.TextNode).value);
}

/** The Markdown for a top-level block, or undefined when it has none (not even as an HTML block). */
export function blockMarkdown(block: TopBlock, style: InlineStyle): string | undefined {
  try {
    if (block.tag === undefined) return rawBlock(block.nodes);
    return new Converter(style).block(block.nodes[0] as Element, block.otherMarker);
  } catch (error) {
    if (error === NO_MARKDOWN) return undefined;
    throw error;
  }
}

/** A top-level block kept whole as an HTML block inside the Markdown, or undefined if it cannot be. */
export function blockHtml(block: TopBlock): string | undefined {
  try {
    return rawBlock(block.nodes);
  } catch (error) {
    if (error === NO_MARKDOWN) return undefined;
    throw error;
  }
}

/**
 * Nodes written as HTML that Markdown passes through untouched: it must parse as HTML blocks
 * only (CommonMark's rules: it starts with a tag that opens one, and no blank line ends it
 * early), which markdown-it itself is asked to confirm.
 */
function rawBlock(nodes: readonly ChildNode[]): string {
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
  const raw = html.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "");
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

// Whether markdown-it would read some line of a paragraph's text as the start of an HTML block.
function opensHtmlBlock(paragraph: string): boolean {
  if (!paragraph.includes("<")) return false;
  const lines = paragraph.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith("<")) continue;
    if (HTML_BLOCK_STARTS.some((start) => start.test(line)) || (i === 0 && LONE_TAG.test(line))) return true;
  }
  return false;
}

/** Prefix every line: `first` on the first, `rest` on the others (`blank` on empty ones). */
function indent(text: string, first: string, rest: string, blank: string): string {
  const lines = text.split("\n");
  let out = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i > 0) out += "\n";
    if (line === "") out += i === 0 ? first.trimEnd() : blank;
    else out += (i === 0 ? first : rest) + line;
  }
  return out;
}

const HEADINGS: Record<string, string> = {
  h1: "#",
  h2: "##",
  h3: "###",
  h4: "####",
  h5: "#####",
  h6: "######",
};
const ALIGN_STYLES: Record<string, string> = {
  "text-align:left": ":---",
  "text-align:center": ":---:",
  "text-align:right": "---:",
};
const CODE_LANGUAGE = /^language-([A-Za-z0-9_+#.-]+)$/;
const START_NUMBER = /^(?:0|[1-9][0-9]{0,8})$/;

/** Inline output under way: the text so far and where it stands. */
interface InlineState {
  out: string;
  /** At the start of a line of the block's content, where block syntax could begin. */
  lineStart: boolean;
  /** Inside link text or an image description, where `]` closes. */
  inLink: boolean;
  /** Inside a table cell, where `|` splits cells even in code. */
  inTable: boolean;
  /** The next text starts with the line end a hard break has already written. */
  skipLineEnd: boolean;
  /** The character before `out` and the one after the items being written (" " at a block edge). */
  lead: string;
  trail: string;
}

class Converter {
  constructor(private readonly style: InlineStyle) {}

  /** One block element as Markdown, or as an HTML block when Markdown cannot say it. */
  block(element: Element, otherMarker: boolean): string {
    try {
      const markdown = this.markdownBlock(element, otherMarker);
      if (markdown !== undefined) return markdown;
    } catch (error) {
      if (error !== NO_MARKDOWN) throw error;
    }
    return rawBlock([element]);
  }

  private markdownBlock(element: Element, otherMarker: boolean): string | undefined {
    const tag = element.tagName;
    if (element.namespaceURI !== html.NS.HTML) return undefined;
    const heading = HEADINGS[tag];
    if (heading !== undefined) return element.attrs.length === 0 ? this.heading(element, heading) : undefined;
    switch (tag) {
      case "p":
        return element.attrs.length === 0 ? this.paragraph(element) : undefined;
      case "blockquote":
        if (element.attrs.length > 0) return undefined;
        return indent(this.blocks(significant(element.childNodes, true, false), "\n\n"), "> ", "> ", ">");
      case "ul":
      case "ol":
        return this.list(element, otherMarker);
      case "pre":
        return this.codeBlock(element);
      case "hr":
        return element.attrs.length === 0 ? "***" : undefined;
      case "table":
        return this.table(element);
      default:
        return undefined;
    }
  }

  /** Block items inside a container, joined by `separator`; inline content there has no Markdown form. */
  private blocks(items: readonly Item[], separator: string): string {
    const parts: string[] = [];
    let previous: { tag: string | undefined; otherMarker: boolean } | undefined;
    for (const item of items) {
      if (typeof item === "string") throw NO_MARKDOWN;
      if (item.nodeName === "#comment") {
        parts.push(rawBlock([item as CommentNode]));
        previous = undefined;
      } else if (isBlockElement(item as Element)) {
        const tag = (item as Element).tagName;
        previous = { tag, otherMarker: otherMarker(previous, tag) };
        parts.push(this.block(item as Element, previous.otherMarker));
      } else {
        throw NO_MARKDOWN;
      }
    }
    return parts.join(separator);
  }

  private paragraph(element: Element): string | undefined {
    const items = significant(element.childNodes, true, false);
    // An empty paragraph, or the `<p>&nbsp;</p>` spacer editors write, reads best as the HTML it is.
    if (items.every((item) => typeof item === "string" && /^\s*$/.test(item))) return undefined;
    const markdown = this.inline(items, { lineStart: true });
    // A line that starts with a tag may start an HTML block instead (a lone `<img …>`, say).
    return opensHtmlBlock(markdown) ? undefined : markdown;
  }

  private heading(element: Element, marker: string): string | undefined {
    const content = this.inline(significant(element.childNodes, true, false), { lineStart: true });
    if (content.includes("\n")) return undefined;
    // A closing run of `#` would be read as the heading's optional closing sequence.
    return content === "" ? marker : `${marker} ${content.replace(/(^|[ \t])(#+)$/, "$1\\$2")}`;
  }

  private list(element: Element, otherMarker: boolean): string | undefined {
    const ordered = element.tagName === "ol";
    let start = 1;
    for (const attr of element.attrs) {
      if (!ordered || attr.name !== "start" || !START_NUMBER.test(attr.value) || attr.value === "1") {
        return undefined;
      }
      start = Number(attr.value);
    }
    const items = significant(element.childNodes, true, false);
    if (items.length === 0) return undefined;
    const lis: Element[] = [];
    for (const item of items) {
      if (typeof item === "string" || item.nodeName !== "li" || (item as Element).attrs.length > 0) {
        return undefined;
      }
      lis.push(item as Element);
    }
    const loose = lis.some((li) =>
      significant(li.childNodes, true, false).some(
        (item) => typeof item !== "string" && item.nodeName === "p",
      ),
    );
    const bullet = otherMarker ? "*" : "-";
    const delimiter = otherMarker ? ")" : ".";
    const out: string[] = [];
    for (let i = 0; i < lis.length; i++) {
      const marker = ordered ? `${start + i}${delimiter}` : bullet;
      const items = significant(lis[i]!.childNodes, true, false);
      const content = loose ? this.blocks(items, "\n\n") : this.tightItem(items);
      out.push(indent(content, `${marker} `, " ".repeat(marker.length + 1), ""));
    }
    return out.join(loose ? "\n\n" : "\n");
  }

  // A tight item: its text, then blocks (nested lists, code…) on the following lines.
  private tightItem(items: readonly Item[]): string {
    let firstBlock = items.findIndex((item) => typeof item !== "string" && isBlockElement(item as Element));
    if (firstBlock === -1) firstBlock = items.length;
    const parts: string[] = [];
    if (firstBlock > 0) parts.push(this.inline(items.slice(0, firstBlock), { lineStart: true }));
    if (firstBlock < items.length) parts.push(this.blocks(items.slice(firstBlock), "\n"));
    return parts.join("\n");
  }

  private codeBlock(pre: Element): string | undefined {
    if (pre.attrs.length > 0 || pre.childNodes.length !== 1) return undefined;
    const code = pre.childNodes[0]!;
    if (code.nodeName !== "code") return undefined;
    const { attrs, childNodes } = code as Element;
    let language = "";
    if (attrs.length > 0) {
      const match =
        attrs.length === 1 && attrs[0]!.name === "class" ? CODE_LANGUAGE.exec(attrs[0]!.value) : null;
      if (match === null) return undefined;
      language = match[1]!;
    }
    let text = "";
    for (const node of childNodes) {
      if (node.nodeName !== "#text") return undefined;
      text += (node as DefaultTreeAdapterTypes.TextNode).value;
    }
    // A fence always ends its code with a line end: code without one has no fenced form.
    if (text !== "" && !text.endsWith("\n")) return undefined;
    const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
    return `${fence}${language}\n${text}${fence}`;
  }

  private table(table: Element): string | undefined {
    if (table.attrs.length > 0) return undefined;
    const sections = significant(table.childNodes, true, false) as Element[];
    const [head, body, ...rest] = sections;
    if (head?.tagName !== "thead" || head.attrs.length > 0 || rest.length > 0) return undefined;
    if (body !== undefined && (body.tagName !== "tbody" || body.attrs.length > 0)) return undefined;
    const headRows = significant(head.childNodes, true, false) as Element[];
    const bodyRows = body === undefined ? [] : (significant(body.childNodes, true, false) as Element[]);
    if (headRows.length !== 1 || (body !== undefined && bodyRows.length === 0)) return undefined;
    const header = this.row(headRows[0]!, "th", undefined);
    if (header === undefined) return undefined;
    const lines = [
      header.line,
      `| ${header.aligns.map((align) => ALIGN_STYLES[align] ?? "---").join(" | ")} |`,
    ];
    for (const row of bodyRows) {
      const cells = this.row(row, "td", header.aligns);
      if (cells === undefined) return undefined;
      lines.push(cells.line);
    }
    return lines.join("\n");
  }

  // A table row as a Markdown line; every cell of a column carries the column's alignment.
  private row(
    row: Item,
    cellTag: string,
    aligns: string[] | undefined,
  ): { line: string; aligns: string[] } | undefined {
    if (typeof row === "string" || row.nodeName !== "tr" || (row as Element).attrs.length > 0) {
      return undefined;
    }
    const cells = significant((row as Element).childNodes, true, false);
    if (cells.length === 0 || (aligns !== undefined && cells.length !== aligns.length)) return undefined;
    const texts: string[] = [];
    const found: string[] = [];
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i]!;
      if (typeof cell === "string" || cell.nodeName !== cellTag) return undefined;
      const { attrs, childNodes } = cell as Element;
      const align = attrs.length === 1 && attrs[0]!.name === "style" ? attrs[0]!.value : "";
      if (attrs.length > (align === "" ? 0 : 1) || (align !== "" && ALIGN_STYLES[align] === undefined)) {
        return undefined;
      }
      if (aligns !== undefined && aligns[i] !== align) return undefined;
      found.push(align);
      const text = this.inline(significant(childNodes, true, false), { inTable: true });
      if (text.includes("\n")) return undefined;
      texts.push(text);
    }
    return { line: `| ${texts.join(" | ")} |`, aligns: found };
  }

  /** Inline items as Markdown text. */
  inline(items: readonly Item[], at: Partial<InlineState>): string {
    const state: InlineState = {
      out: "",
      lineStart: false,
      inLink: false,
      inTable: false,
      skipLineEnd: false,
      lead: " ",
      trail: " ",
      ...at,
    };
    this.inlineItems(items, state);
    return state.out;
  }

  private inlineItems(items: readonly Item[], state: InlineState): void {
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (typeof item === "string") {
        writeText(state, item, i < items.length - 1);
      } else if (item.nodeName === "#comment") {
        const data = (item as CommentNode).data;
        if (/\n[ \t]*\n/.test(data)) throw NO_MARKDOWN;
        write(state, `<!--${data}-->`);
      } else {
        this.inlineElement(item as Element, state, items[i + 1]);
      }
    }
  }

  private inlineElement(element: Element, state: InlineState, next: Item | undefined): void {
    if (element.namespaceURI !== html.NS.HTML) {
      this.tags(element, state, true);
      return;
    }
    if (isBlockElement(element)) throw NO_MARKDOWN;
    const plain = element.attrs.length === 0;
    switch (element.tagName) {
      case "br":
        if (!plain) {
          this.tags(element, state, false);
          return;
        }
        if (typeof next === "string" && next.startsWith("\n")) {
          write(state, "\\\n");
          state.lineStart = true;
          state.skipLineEnd = true;
        } else {
          write(state, "<br>");
        }
        return;
      case "em":
        this.delimited(element, state, next, ["*", "_"]);
        return;
      case "strong":
        this.delimited(element, state, next, ["**", "__"]);
        return;
      case "s":
        this.delimited(element, state, next, ["~~"]);
        return;
      case "code":
        this.codeSpan(element, state);
        return;
      case "a":
        this.link(element, state);
        return;
      case "img":
        this.image(element, state);
        return;
      default:
        this.tags(element, state, false);
        return;
    }
  }

  // The content of an element as it would be written between its delimiters or tags (both
  // punctuation, which is what the content's own delimiters see beyond its ends).
  private content(element: Element, state: InlineState, exact: boolean): string {
    const { out, lead, trail } = state;
    state.out = "";
    state.lineStart = false;
    state.lead = "*";
    state.trail = "*";
    this.inlineItems(significant(contentOf(element), false, exact), state);
    const content = state.out;
    state.out = out;
    state.lead = lead;
    state.trail = trail;
    return content;
  }

  /** The element's own tags around its content in Markdown: what Markdown cannot say, kept. */
  private tags(element: Element, state: InlineState, exact: boolean): void {
    if (!hasInlineTags(element)) throw NO_MARKDOWN;
    const start = startTag(element);
    const end = endTag(element);
    if (element.namespaceURI === html.NS.HTML && RAW_TEXT_ELEMENTS.has(element.tagName)) {
      // Raw text reads no character reference: only text that Markdown leaves alone can stay.
      const text = element.childNodes.map((node) => ("value" in node ? node.value : "")).join("");
      if (/[<>&"\\`*_[\]~|!\n]/.test(text)) throw NO_MARKDOWN;
      write(state, start + text + end);
      return;
    }
    if (end === "") {
      write(state, start);
      return;
    }
    write(state, start);
    const content = this.content(element, state, exact);
    write(state, content + end);
  }

  private delimited(element: Element, state: InlineState, next: Item | undefined, markers: string[]): void {
    if (this.style.htmlTags || element.attrs.length > 0) {
      this.tags(element, state, false);
      return;
    }
    const content = this.content(element, state, false);
    const before = state.out.at(-1) ?? state.lead;
    const after = next === undefined ? state.trail : this.firstCharacter(next, state);
    const first = content[0] ?? "";
    const last = content.at(-1) ?? "";
    // Each delimiter must open and close where it stands (CommonMark's flanking rules), and must
    // not touch the same character, which would merge it into a longer run.
    for (const marker of markers) {
      const char = marker[0]!;
      if (content === "" || [before, first, last, after].includes(char)) continue;
      if (delimits(char, before, first, last, after)) {
        write(state, marker + content + marker);
        return;
      }
    }
    write(state, `${startTag(element)}${content}${endTag(element)}`);
  }

  // The first character the item after an element will write (elements start with punctuation).
  private firstCharacter(item: Item, state: InlineState): string {
    if (typeof item !== "string") return "<";
    const scratch: InlineState = { ...state, out: "", lineStart: false, skipLineEnd: false };
    writeText(scratch, item.slice(0, 2));
    return scratch.out[0] ?? state.trail;
  }

  private codeSpan(element: Element, state: InlineState): void {
    let text = "";
    for (const node of element.childNodes) {
      if (node.nodeName !== "#text") {
        this.tags(element, state, false);
        return;
      }
      text += (node as DefaultTreeAdapterTypes.TextNode).value;
    }
    if (this.style.htmlTags || element.attrs.length > 0 || text === "" || text.includes("\n")) {
      this.tags(element, state, false);
      return;
    }
    if (state.inTable) text = text.replace(/\|/g, "\\|");
    const fence = "`".repeat(longestRun(text, "`") + 1);
    // A code span drops one space at each end when both ends have one.
    const pad = text.startsWith("`") || text.endsWith("`") || /^ .*[^ ].* $/s.test(text);
    write(state, pad ? `${fence} ${text} ${fence}` : fence + text + fence);
  }

  private link(element: Element, state: InlineState): void {
    const href = attribute(element, "href");
    const title = attribute(element, "title");
    const known = (href === undefined ? 0 : 1) + (title === undefined ? 0 : 1);
    if (this.style.htmlTags || href === undefined || known !== element.attrs.length || !linkable(href)) {
      this.tags(element, state, false);
      return;
    }
    const inLink = state.inLink;
    state.inLink = true;
    const text = this.content(element, state, false);
    state.inLink = inLink;
    write(state, `[${text}](${destination(href)}${linkTitle(title)})`);
  }

  private image(element: Element, state: InlineState): void {
    const src = attribute(element, "src");
    const alt = attribute(element, "alt");
    const title = attribute(element, "title");
    const known = (src === undefined ? 0 : 1) + (alt === undefined ? 0 : 1) + (title === undefined ? 0 : 1);
    if (this.style.htmlTags || src === undefined || alt === undefined || known !== element.attrs.length) {
      this.tags(element, state, false);
      return;
    }
    if (!linkable(src)) {
      this.tags(element, state, false);
      return;
    }
    const description = this.inline([alt], { inLink: true, inTable: state.inTable });
    // markdown-it drops escaped characters from an image description: only plain text can stay.
    if (description !== alt) {
      this.tags(element, state, false);
      return;
    }
    write(state, `![${description}](${destination(src)}${linkTitle(title)})`);
  }
}

const WHITESPACE = /^\s?$/u;
const PUNCT = /[\p{P}\p{S}]/u;

/**
 * Whether a run of `char` before `first` opens and one after `last` closes emphasis, by
 * CommonMark's flanking rules; `before` and `after` are the characters outside the runs.
 */
function delimits(char: string, before: string, first: string, last: string, after: string): boolean {
  const space = (c: string) => WHITESPACE.test(c);
  const punct = (c: string) => PUNCT.test(c);
  const leftOpen = !space(first) && (!punct(first) || space(before) || punct(before));
  const rightOpen = !space(before) && (!punct(before) || space(first) || punct(first));
  const leftClose = !space(after) && (!punct(after) || space(last) || punct(last));
  const rightClose = !space(last) && (!punct(last) || space(after) || punct(after));
  // An underscore may not open or close inside a word.
  const underscore = (!rightOpen || punct(before)) && (!leftClose || punct(after));
  return leftOpen && rightClose && (char !== "_" || underscore);
}

function attribute(element: Element, name: string): string | undefined {
  return element.attrs.find((attr) => attr.name === name && attr.namespace === undefined)?.value;
}

// markdown-it rewrites a link it does not find normalized (percent-encoding, punycode) and drops
// unsafe schemes: only a URL it keeps as it is can be a Markdown link.
function linkable(url: string): boolean {
  return markdownIt.validateLink(url) && (PLAIN_URL.test(url) || markdownIt.normalizeLink(url) === url);
}

// A URL of characters normalizing keeps as they are (a shortcut only: the gate has the last word).
const PLAIN_URL = /^(?:[A-Za-z0-9\-._~:/?#@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

const ENTITY_LIKE = /&(?=#?[A-Za-z0-9]+;)/g;

function destination(url: string): string {
  return url.replace(/[()\\]/g, "\\$&").replace(ENTITY_LIKE, "\\&");
}

function linkTitle(title: string | undefined): string {
  if (title === undefined) return "";
  return ` "${title.replace(/["\\]/g, "\\$&").replace(ENTITY_LIKE, "\\&").replace(/\n/g, "&#10;")}"`;
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

function write(state: InlineState, markup: string): void {
  if (markup === "") return;
  state.out += markup;
  state.lineStart = markup.endsWith("\n");
  state.skipLineEnd = false;
}

// Block syntax at the start of a line: a heading, quote, list item, or setext underline.
const LINE_START = /^(?:[#>]|[-+](?=[ \t]|$)|=+[ \t]*$|-+[ \t]*$)/;
const ORDERED_MARKER = /^[0-9]{1,9}(?=[.)](?:[ \t]|$))/;
const WORD = /[\p{L}\p{N}]/u;
// Characters that may need escaping; everything between them is copied as it is.
const SPECIAL = /[\n*`[|~\]_\\<&!\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u000b\f]/g;
const PUNCTUATION = /[!-/:-@[-`{-~]/;

/**
 * Text as Markdown that reads back to exactly that text: syntax characters escaped, and the
 * whitespace Markdown would drop at the start and end of a line written as character references.
 * `more`: something follows the text on the same line.
 */
function writeText(state: InlineState, text: string, more = false): void {
  const n = text.length;
  let i = state.skipLineEnd && text.startsWith("\n") ? 1 : 0;
  let lineStart = state.lineStart;
  let out = "";
  while (i < n) {
    if (lineStart) {
      lineStart = false;
      const c = text[i]!;
      if (c === " " || c === "\t" || c === "\n") {
        // Leading whitespace would be dropped, and a line end here would leave an empty line.
        out += c === " " ? "&#32;" : c === "\t" ? "&#9;" : "&#10;";
        i++;
        continue;
      }
      const lineEnd = text.indexOf("\n", i);
      const line = text.slice(i, lineEnd === -1 ? n : lineEnd);
      if (LINE_START.test(line)) {
        out += `\\${c}`;
        i++;
        continue;
      }
      const number = ORDERED_MARKER.exec(line);
      if (number !== null) {
        const end = i + number[0].length;
        out += `${number[0]}\\${text[end]}`;
        i = end + 1;
        continue;
      }
    }
    SPECIAL.lastIndex = i;
    const match = SPECIAL.exec(text);
    const at = match === null ? n : match.index;
    out += text.slice(i, at);
    if (at === n) break;
    const c = text[at]!;
    i = at + 1;
    switch (c) {
      case "\n": {
        // Spaces before a line end would be dropped (or read as a hard break).
        const last = out.at(-1);
        if (last === " " || last === "\t") out = `${out.slice(0, -1)}${last === " " ? "&#32;" : "&#9;"}`;
        out += "\n";
        lineStart = true;
        break;
      }
      case "]":
        out += state.inLink ? "\\]" : c;
        break;
      case "_": {
        // Between two letters or digits an underscore cannot open or close emphasis.
        const intraword = at > 0 && at < n - 1 && WORD.test(text[at - 1]!) && WORD.test(text[at + 1]!);
        out += intraword ? c : "\\_";
        break;
      }
      case "\\": {
        const next = text[at + 1];
        out += next === undefined || next === "\n" || PUNCTUATION.test(next) ? "\\\\" : c;
        break;
      }
      case "<": {
        const next = text[at + 1];
        out += next === undefined || /[A-Za-z/!?]/.test(next) ? "\\<" : c;
        break;
      }
      case "&":
        out += /^&#?[A-Za-z0-9]+;/.test(text.slice(at, at + 40)) ? "\\&" : c;
        break;
      case "!":
        // `!` right before a link makes an image.
        out += at === n - 1 && more ? "\\!" : c;
        break;
      case "*":
      case "`":
      case "[":
      case "|":
      case "~":
        out += `\\${c}`;
        break;
      default:
        // Unicode whitespace: Markdown trims it at the ends of a paragraph or heading.
        out += c === "\u00a0" ? "&nbsp;" : `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`;
    }
  }
  state.out += out;
  state.lineStart = lineStart;
  state.skipLineEnd = false;
}
