import { type DefaultTreeAdapterTypes, html } from "parse5";
import { EXACT_ELEMENTS, isBlockElement } from "./gate.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

/** Elements that never have content or an end tag. */
const VOID_ELEMENTS: ReadonlySet<string> = new Set([
  "area",
  "base",
  "basefont",
  "bgsound",
  "br",
  "col",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

/** Elements whose content the HTML parser reads as raw text: no tags, no character references. */
export const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set([
  "iframe",
  "noembed",
  "noframes",
  "noscript",
  "plaintext",
  "script",
  "style",
  "xmp",
]);

// CommonMark's inline HTML: what a tag and an attribute name may look like to pass through.
const TAG_NAME = /^[A-Za-z][A-Za-z0-9-]*$/;
const ATTRIBUTE_NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]*$/;

function attributeName(attr: { name: string; prefix?: string | undefined }): string {
  return attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name;
}

/** True when the element's tags can stand inline in Markdown (CommonMark's tag grammar). */
export function hasInlineTags(element: Element): boolean {
  return (
    TAG_NAME.test(element.tagName) && element.attrs.every((attr) => ATTRIBUTE_NAME.test(attributeName(attr)))
  );
}

/** The start tag of an element; values quoted, and a line end as `&#10;` so no line goes blank. */
export function startTag(element: Element): string {
  let tag = `<${element.tagName}`;
  for (const attr of element.attrs) {
    const value = attr.value.replace(/[&"\u00a0\n]/g, (c) => ATTRIBUTE_ESCAPES[c]!);
    tag += ` ${attributeName(attr)}="${value}"`;
  }
  return `${tag}>`;
}

/** The end tag of an element, or nothing for a void one. */
export function endTag(element: Element): string {
  return element.namespaceURI === html.NS.HTML && VOID_ELEMENTS.has(element.tagName)
    ? ""
    : `</${element.tagName}>`;
}

const ATTRIBUTE_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  '"': "&quot;",
  "\u00a0": "&nbsp;",
  "\n": "&#10;",
};
const TEXT_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\u00a0": "&nbsp;" };
const WHITESPACE_ONLY = /^[\t\n\f\r ]*$/;
// A line Markdown reads as blank.
const BLANK = /^[ \t]*$/;

/**
 * Serializes parsed nodes back to HTML that reparses to the same tree and that Markdown keeps
 * whole as an HTML block. Unless `blankLines` allows them, no line in it is blank (a blank line
 * ends most HTML blocks): a line end that would leave one is written `&#10;` at the end of the
 * line before. Whitespace the gate forgives between blocks is written as one line end, so the
 * result does not depend on how the source was indented.
 */
export function serializeNodes(nodes: readonly ChildNode[], blankLines = false): string {
  const writer = new HtmlWriter(blankLines);
  writer.children(nodes, true, false);
  return writer.finish();
}

class HtmlWriter {
  private text = "";
  // A line end not written yet, and the spaces after it: written as is before anything else on
  // the next line, or as `&#10;` if another line end comes first (the line would be blank).
  private lineEnd = false;
  private spaces = "";

  constructor(private readonly blankLines: boolean) {}

  finish(): string {
    this.flush();
    return this.text;
  }

  children(nodes: readonly ChildNode[], inBlock: boolean, exact: boolean): void {
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (node.nodeName === "#text") {
        const value = (node as DefaultTreeAdapterTypes.TextNode).value;
        const forgiven =
          !exact &&
          WHITESPACE_ONLY.test(value) &&
          ((i === 0 ? inBlock : isBlockElement(nodes[i - 1])) ||
            (i === nodes.length - 1 ? inBlock : isBlockElement(nodes[i + 1])));
        if (forgiven) {
          if (value.includes("\n")) this.lines("\n");
        } else {
          this.lines(value.replace(/[&<>\u00a0]/g, (c) => TEXT_ESCAPES[c]!));
        }
      } else if (node.nodeName === "#comment") {
        // A comment reads no character reference either.
        this.verbatim(`<!--${(node as DefaultTreeAdapterTypes.CommentNode).data}-->`);
      } else if ("tagName" in node) {
        this.element(node, exact);
      }
    }
  }

  private element(element: Element, exactParent: boolean): void {
    this.markup(startTag(element));
    const end = endTag(element);
    if (end === "") return;
    const content =
      element.tagName === "template" && "content" in element
        ? (element as DefaultTreeAdapterTypes.Template).content.childNodes
        : element.childNodes;
    const html5 = element.namespaceURI === html.NS.HTML;
    if (html5 && RAW_TEXT_ELEMENTS.has(element.tagName)) {
      // No character reference is read here, so the text goes out as it is.
      for (const node of content) {
        if (node.nodeName === "#text") this.verbatim((node as DefaultTreeAdapterTypes.TextNode).value);
      }
    } else {
      const first = content[0];
      // The parser drops one line end right after these start tags: write it twice to keep one.
      if (
        html5 &&
        (element.tagName === "pre" || element.tagName === "textarea" || element.tagName === "listing") &&
        first?.nodeName === "#text" &&
        (first as DefaultTreeAdapterTypes.TextNode).value.startsWith("\n")
      ) {
        this.lines("\n");
      }
      this.children(
        content,
        isBlockElement(element),
        exactParent || !html5 || EXACT_ELEMENTS.has(element.tagName),
      );
    }
    this.markup(end);
  }

  private markup(tag: string): void {
    this.flush();
    this.text += tag;
  }

  private verbatim(value: string): void {
    this.flush();
    this.text += value;
  }

  private flush(): void {
    if (this.lineEnd) this.text += `\n${this.spaces}`;
    this.lineEnd = false;
    this.spaces = "";
  }

  private lines(value: string): void {
    if (this.blankLines) {
      this.verbatim(value);
      return;
    }
    const segments = value.split("\n");
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      if (i > 0) {
        if (this.lineEnd) this.text += `&#10;${this.spaces}`;
        else this.flush();
        this.lineEnd = true;
        this.spaces = "";
      }
      if (this.lineEnd && BLANK.test(segment)) {
        this.spaces += segment;
      } else if (segment !== "") {
        this.flush();
        this.text += segment;
      }
    }
  }
}
