import type Token from "markdown-it/lib/token.mjs";
import { type DefaultTreeAdapterTypes, html } from "parse5";
import { markdownIt } from "./render.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

/**
 * The parsed HTML that `markdownToHtml(markdown)` stands for, as the gate reads it (`parse` is
 * the gate's HTML parser).
 *
 * Markdown without raw HTML renders to well-nested tags around escaped text, so its parse is
 * the tree of its tokens, up to the line ends the renderer puts between blocks (whitespace the
 * gate forgives): that tree is built straight from the tokens, which saves rendering and
 * parsing again (`npm run bench -- markdown` shows how much). Markdown holding raw HTML, or a
 * token this does not know, is rendered and parsed as usual. A test holds both ways equal on
 * every corpus.
 */
export function renderedNodes(
  markdown: string,
  parse: (html: string) => ChildNode[],
  parseClosed?: ClosedParser,
): ChildNode[] {
  const env = {};
  const tokens = markdownIt.parse(markdown, env);
  return (
    treeOf(tokens, env, parseClosed) ?? parse(markdownIt.renderer.render(tokens, markdownIt.options, env))
  );
}

/**
 * Parses HTML that closes every element it opens, or gives undefined: its nodes are then those
 * the same HTML makes between closed elements of a longer input (`fastParseClosed`).
 */
export type ClosedParser = (html: string) => { childNodes: ChildNode[] } | undefined;

function treeOf(tokens: readonly Token[], env: object, parseClosed?: ClosedParser): ChildNode[] | undefined {
  const tree = new Tree();
  const walk = (list: readonly Token[]): boolean => {
    for (const token of list) {
      if (token.hidden) continue;
      if (token.nesting === 1) {
        tree.openElement(element(token.tag, token.attrs));
        continue;
      }
      if (token.nesting === -1) {
        if (tree.open.pop()?.tagName !== token.tag) return false;
        continue;
      }
      if (token.type === "inline") {
        if (token.children === null || !walk(token.children)) return false;
      } else if (!leaf(tree, token, env, parseClosed)) {
        return false;
      }
    }
    return true;
  };
  return walk(tokens) && tree.open.length === 1 ? tree.root.childNodes : undefined;
}

/** The tree being built: its root and the elements open in it. */
class Tree {
  readonly root = element("#root", null);
  readonly open: Element[] = [this.root];

  add(node: ChildNode): void {
    const parent = this.open[this.open.length - 1]!;
    node.parentNode = parent;
    parent.childNodes.push(node);
  }

  addText(value: string): void {
    const siblings = this.open[this.open.length - 1]!.childNodes;
    const last = siblings[siblings.length - 1];
    if (last?.nodeName === "#text") (last as DefaultTreeAdapterTypes.TextNode).value += value;
    else this.add({ nodeName: "#text", value, parentNode: null });
  }

  openElement(node: Element): void {
    this.add(node);
    this.open.push(node);
  }
}

// A token that neither opens nor closes an element, added to the tree; false when only a real
// parse tells what it makes (raw HTML, or anything else).
function leaf(tree: Tree, token: Token, env: object, parseClosed: ClosedParser | undefined): boolean {
  switch (token.type) {
    case "text":
      tree.addText(token.content);
      return true;
    case "softbreak":
      tree.addText("\n");
      return true;
    case "hardbreak":
      tree.add(element("br", null));
      tree.addText("\n");
      return true;
    case "code_inline":
      tree.add(withText(element("code", token.attrs), token.content));
      return true;
    case "code_block":
    case "fence": {
      // The renderer puts a code block's attributes on <pre>, a fence's language on <code>.
      if (token.type === "fence" && token.attrs !== null) return false;
      const fence = token.type === "fence";
      const pre = element("pre", fence ? null : token.attrs);
      const code = withText(element("code", fence ? fenceAttrs(token) : null), token.content);
      code.parentNode = pre;
      pre.childNodes.push(code);
      tree.add(pre);
      return true;
    }
    case "hr":
      tree.add(element("hr", token.attrs));
      return true;
    case "html_block":
      return htmlBlock(tree, token, parseClosed);
    case "image": {
      // As the renderer does: the description's text becomes the alt attribute.
      const alt = markdownIt.renderer.renderInlineAsText(token.children ?? [], markdownIt.options, env);
      const attrs = (token.attrs ?? []).map(([name, value]): [string, string] => [
        name,
        name === "alt" ? alt : value,
      ]);
      tree.add(element("img", attrs));
      return true;
    }
    default:
      return false;
  }
}

/**
 * A top-level HTML block, where every block the renderer writes before it is a block element
 * (so the line end it writes after one is forgiven whitespace): the renderer writes the block's
 * HTML as it is, so its nodes are those it parses to by itself when it closes what it opens.
 */
function htmlBlock(tree: Tree, token: Token, parseClosed: ClosedParser | undefined): boolean {
  const nodes = tree.open.length === 1 ? parseClosed?.(token.content)?.childNodes : undefined;
  if (nodes === undefined) return false;
  for (const node of nodes) {
    if (node.nodeName === "#text") tree.addText((node as DefaultTreeAdapterTypes.TextNode).value);
    else tree.add(node);
  }
  return true;
}

// The renderer's fence: the first word of the info string becomes the code's language class.
function fenceAttrs(token: Token): Array<[string, string]> | null {
  const info = token.info ? markdownIt.utils.unescapeAll(token.info).trim() : "";
  if (info === "") return null;
  // The renderer's `info.split(/(\s+)/g)[0]`: up to the first whitespace.
  const space = info.search(/\s/);
  return [["class", `${markdownIt.options.langPrefix}${space === -1 ? info : info.slice(0, space)}`]];
}

function element(tag: string, attrs: Array<[string, string]> | null): Element {
  return {
    nodeName: tag,
    tagName: tag,
    // A value may be a number (a list's start): the renderer writes it out as text.
    attrs: attrs === null ? [] : attrs.map(([name, value]) => ({ name, value: String(value) })),
    namespaceURI: html.NS.HTML,
    childNodes: [],
    parentNode: null,
  };
}

function withText(node: Element, value: string): Element {
  if (value !== "") node.childNodes.push({ nodeName: "#text", value, parentNode: node });
  return node;
}
