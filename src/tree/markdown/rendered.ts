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
  const root = element("#root", null);
  const open: Element[] = [root];
  const add = (node: ChildNode) => {
    const parent = open[open.length - 1]!;
    node.parentNode = parent;
    parent.childNodes.push(node);
  };
  const addText = (value: string) => {
    const siblings = open[open.length - 1]!.childNodes;
    const last = siblings[siblings.length - 1];
    if (last?.nodeName === "#text") (last as DefaultTreeAdapterTypes.TextNode).value += value;
    else add({ nodeName: "#text", value, parentNode: null });
  };
  const walk = (list: readonly Token[]): boolean => {
    for (const token of list) {
      if (token.hidden) continue;
      if (token.nesting === 1) {
        const node = element(token.tag, token.attrs);
        add(node);
        open.push(node);
        continue;
      }
      if (token.nesting === -1) {
        if (open.pop()?.tagName !== token.tag) return false;
        continue;
      }
      switch (token.type) {
        case "inline":
          if (token.children === null || !walk(token.children)) return false;
          break;
        case "text":
          addText(token.content);
          break;
        case "softbreak":
          addText("\n");
          break;
        case "hardbreak":
          add(element("br", null));
          addText("\n");
          break;
        case "code_inline":
          add(withText(element("code", token.attrs), token.content));
          break;
        case "code_block":
        case "fence": {
          // The renderer puts a code block's attributes on <pre>, a fence's language on <code>.
          if (token.type === "fence" && token.attrs !== null) return false;
          const fence = token.type === "fence";
          const pre = element("pre", fence ? null : token.attrs);
          const code = withText(element("code", fence ? fenceAttrs(token) : null), token.content);
          code.parentNode = pre;
          pre.childNodes.push(code);
          add(pre);
          break;
        }
        case "hr":
          add(element("hr", token.attrs));
          break;
        case "html_block": {
          // At the top only, where every block the renderer writes before it is a block element
          // (so the line end it writes after one is forgiven whitespace): the block's HTML is
          // written as it is, so its nodes are those it parses to when it closes what it opens.
          const nodes = open.length === 1 ? parseClosed?.(token.content)?.childNodes : undefined;
          if (nodes === undefined) return false;
          for (const node of nodes) {
            if (node.nodeName === "#text") addText((node as DefaultTreeAdapterTypes.TextNode).value);
            else add(node);
          }
          break;
        }
        case "image": {
          // As the renderer does: the description's text becomes the alt attribute.
          const alt = markdownIt.renderer.renderInlineAsText(token.children ?? [], markdownIt.options, env);
          add(
            element(
              "img",
              (token.attrs ?? []).map(([name, value]) => [name, name === "alt" ? alt : value]),
            ),
          );
          break;
        }
        default:
          // Raw HTML, or anything else: only a real parse tells what it makes.
          return false;
      }
    }
    return true;
  };
  return walk(tokens) && open.length === 1 ? root.childNodes : undefined;
}

// The renderer's fence: the first word of the info string becomes the code's language class.
function fenceAttrs(token: Token): Array<[string, string]> | null {
  const info = token.info ? markdownIt.utils.unescapeAll(token.info).trim() : "";
  return info === "" ? null : [["class", `${markdownIt.options.langPrefix}${info.split(/(\s+)/g)[0]}`]];
}

function element(tag: string, attrs: Array<[string, string]> | null): Element {
  return {
    nodeName: tag,
    tagName: tag,
    // A value may be a number (a list's start): the renderer writes it out as text.
    attrs: (attrs ?? []).map(([name, value]) => ({ name, value: String(value) })),
    namespaceURI: html.NS.HTML,
    childNodes: [],
    parentNode: null,
  };
}

function withText(node: Element, value: string): Element {
  if (value !== "") node.childNodes.push({ nodeName: "#text", value, parentNode: node });
  return node;
}
