import { type DefaultTreeAdapterTypes, html, parseFragment } from "parse5";
import { fastParseClosed, fastParseFragment } from "./fast-html.js";
import { markdownToHtml } from "./render.js";
import { renderedNodes } from "./rendered.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

/**
 * Elements that start and end a block in the rendered page: whitespace at a text edge that
 * touches one of them is not rendered, so it is the only whitespace the gate forgives.
 */
const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "col",
  "colgroup",
  "dd",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "html",
  "legend",
  "li",
  "listing",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "plaintext",
  "pre",
  "search",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
  "xmp",
]);

// Whitespace inside these is content (preformatted, or raw text a program reads): never forgiven.
export const EXACT_ELEMENTS: ReadonlySet<string> = new Set([
  "iframe",
  "listing",
  "noembed",
  "noframes",
  "noscript",
  "plaintext",
  "pre",
  "script",
  "style",
  "textarea",
  "title",
  "xmp",
]);

// HTML's ASCII whitespace: tab, line feed, form feed, carriage return, space.
function isAsciiSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 12 || code === 13;
}

/**
 * The gate's two shortcuts, each a pure speed-up: with either off the gate reads the same trees
 * the slow way (a test holds the conversions equal; `bench/markdown.mjs` shows what each saves).
 */
export interface Shortcuts {
  /** Parse plainly well-formed HTML with the hand-written parser (`fast-html.ts`), else parse5. Default on. */
  readonly fastHtml: boolean;
  /** Build rendered Markdown's tree from its tokens (`rendered.ts`), not by rendering and parsing. Default on. */
  readonly rendered: boolean;
}

/** Both shortcuts on: what the tool runs with. */
export const SHORTCUTS: Shortcuts = Object.freeze({ fastHtml: true, rendered: true });

/**
 * Parse an HTML fragment the way the gate reads it (as `template` content: nothing dropped):
 * parse5's tree, built by the fast path when the HTML is plainly well formed.
 */
export function parseHtml(
  source: string,
  shortcuts: Shortcuts = SHORTCUTS,
): DefaultTreeAdapterTypes.DocumentFragment {
  return (shortcuts.fastHtml ? fastParseFragment(source) : undefined) ?? parseFragment(source);
}

/** The parsed HTML that `markdownToHtml(markdown)` stands for, as the gate reads it. */
export function parseRendered(markdown: string, shortcuts: Shortcuts = SHORTCUTS): ChildNode[] {
  const parse = (rendered: string) => parseHtml(rendered, shortcuts).childNodes;
  if (!shortcuts.rendered) return parse(markdownToHtml(markdown));
  return renderedNodes(markdown, parse, shortcuts.fastHtml ? fastParseClosed : undefined);
}

/** DESIGN 5's equivalence gate: both sides parsed as HTML fragments and compared. */
export function equivalentHtml(a: string, b: string): boolean {
  return equivalentNodes(parseHtml(a).childNodes, parseHtml(b).childNodes);
}

/**
 * The gate on parsed nodes: two runs of sibling nodes, each read as the whole content of a
 * block (so the runs' outer edges touch a block boundary).
 */
export function equivalentNodes(a: readonly ChildNode[], b: readonly ChildNode[]): boolean {
  return sameContent(a, b, true, false);
}

/** True for an HTML element that starts and ends a block. */
export function isBlockElement(node: ChildNode | undefined): boolean {
  // An element's nodeName is its tag name; a text's or comment's starts with "#".
  return (
    node !== undefined && BLOCK_ELEMENTS.has(node.nodeName) && (node as Element).namespaceURI === html.NS.HTML
  );
}

/** A node as the gate sees it: an element, a comment, or a text with forgiven whitespace taken off. */
export type Item = Element | DefaultTreeAdapterTypes.CommentNode | string;

/**
 * The children that count, with forgiven whitespace taken off: a text edge that touches a
 * block boundary (the start or end of a block parent, or a block sibling) loses its ASCII
 * whitespace, and a text node left empty by that is dropped.
 */
export function significant(nodes: readonly ChildNode[], inBlock: boolean, exact: boolean): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const item = itemAt(nodes, i, inBlock, exact);
    if (item !== undefined) items.push(item);
  }
  return items;
}

// The node at `i` as the gate sees it, or undefined when it does not count.
function itemAt(nodes: readonly ChildNode[], i: number, inBlock: boolean, exact: boolean): Item | undefined {
  const node = nodes[i]!;
  if (node.nodeName === "#text") {
    const text = (node as DefaultTreeAdapterTypes.TextNode).value;
    if (exact) return text;
    let start = 0;
    let end = text.length;
    if (i === 0 ? inBlock : isBlockElement(nodes[i - 1])) {
      while (start < end && isAsciiSpace(text.charCodeAt(start))) start++;
    }
    if (i === nodes.length - 1 ? inBlock : isBlockElement(nodes[i + 1])) {
      while (end > start && isAsciiSpace(text.charCodeAt(end - 1))) end--;
    }
    if (start === end) return undefined;
    return start > 0 || end < text.length ? text.slice(start, end) : text;
  }
  // A doctype cannot sit in a fragment; nothing else is left.
  return node.nodeName === "#comment" || "tagName" in node ? (node as Item) : undefined;
}

// Walks both child lists side by side, skipping what does not count, without building lists.
function sameContent(
  xs: readonly ChildNode[],
  ys: readonly ChildNode[],
  inBlock: boolean,
  exact: boolean,
): boolean {
  let i = 0;
  let j = 0;
  for (;;) {
    let x: Item | undefined;
    while (i < xs.length && x === undefined) x = itemAt(xs, i++, inBlock, exact);
    let y: Item | undefined;
    while (j < ys.length && y === undefined) y = itemAt(ys, j++, inBlock, exact);
    if (x === undefined || y === undefined) return x === y;
    if (!sameItem(x, y, exact)) return false;
  }
}

// `exact` is inherited: a text inside <pre><code> is as exact as one directly in <pre>.
function sameItem(a: Item, b: Item, exactParent: boolean): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (a.nodeName === "#comment" || b.nodeName === "#comment") {
    return a.nodeName === b.nodeName && "data" in a && "data" in b && a.data === b.data;
  }
  const x = a as Element;
  const y = b as Element;
  if (x.tagName !== y.tagName || x.namespaceURI !== y.namespaceURI || !sameAttributes(x, y)) return false;
  const exact = exactParent || x.namespaceURI !== html.NS.HTML || EXACT_ELEMENTS.has(x.tagName);
  return sameContent(contentOf(x), contentOf(y), isBlockElement(x), exact);
}

/** An element's children (a template's content). */
export function contentOf(element: Element): ChildNode[] {
  return element.tagName === "template" && "content" in element
    ? (element as DefaultTreeAdapterTypes.Template).content.childNodes
    : element.childNodes;
}

function sameAttributes(a: Element, b: Element): boolean {
  const xs = a.attrs;
  const ys = b.attrs;
  if (xs.length !== ys.length) return false;
  if (xs.length === 0) return true;
  if (xs.length === 1) {
    const x = xs[0]!;
    const y = ys[0]!;
    return x.name === y.name && x.value === y.value && x.namespace === y.namespace;
  }
  // Each of b's attributes has its value in a (an element has few: a scan, no map).
  for (const y of ys) {
    const namespace = y.namespace ?? "";
    let i = xs.length - 1;
    // The last of a's attributes by that name and namespace, as a map of them would keep.
    while (i >= 0 && (xs[i]!.name !== y.name || (xs[i]!.namespace ?? "") !== namespace)) i--;
    if (i < 0 || xs[i]!.value !== y.value) return false;
  }
  return true;
}
