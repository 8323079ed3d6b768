import { type DefaultTreeAdapterTypes, html } from "parse5";
import { destination, type InlineState, linkTitle, longestRun, write, writeText } from "./escape.js";
import { contentOf, type Item, isBlockElement, significant } from "./gate.js";
import { NO_MARKDOWN } from "./html-blocks.js";
import { endTag, hasInlineTags, RAW_TEXT_ELEMENTS, startTag } from "./raw-html.js";
import { markdownIt } from "./render.js";

type Element = DefaultTreeAdapterTypes.Element;
type CommentNode = DefaultTreeAdapterTypes.CommentNode;

/** How inline markup is written. */
export interface InlineStyle {
  /**
   * Write emphasis, code, links and images as HTML tags around Markdown text, not as `*`, `` ` ``
   * or `[]()`: a block's second try when delimiter rules make its Markdown read differently.
   */
  htmlTags: boolean;
}

/** Inline content (text, emphasis, code, links, images, kept tags) as Markdown text. */
export class InlineWriter {
  constructor(private readonly style: InlineStyle) {}

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
