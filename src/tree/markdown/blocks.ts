import { type DefaultTreeAdapterTypes, html } from "parse5";
import { longestRun } from "./escape.js";
import { type Item, isBlockElement, significant } from "./gate.js";
import { NO_MARKDOWN, opensHtmlBlock, rawBlock } from "./html-blocks.js";
import { type InlineStyle, InlineWriter } from "./inline.js";

type Element = DefaultTreeAdapterTypes.Element;
type CommentNode = DefaultTreeAdapterTypes.CommentNode;

/** A list right after a list of its kind takes the other marker, or the two would merge. */
export function otherMarker(
  previous: { tag: string | undefined; otherMarker: boolean } | undefined,
  tag: string,
): boolean {
  return (tag === "ul" || tag === "ol") && previous?.tag === tag && !previous.otherMarker;
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

/** Block elements (headings, paragraphs, quotes, lists, code, tables) as Markdown. */
export class BlockConverter {
  private readonly inliner: InlineWriter;

  constructor(style: InlineStyle) {
    this.inliner = new InlineWriter(style);
  }

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
    const markdown = this.inliner.inline(items, { lineStart: true });
    // A line that starts with a tag may start an HTML block instead (a lone `<img …>`, say).
    return opensHtmlBlock(markdown) ? undefined : markdown;
  }

  private heading(element: Element, marker: string): string | undefined {
    const content = this.inliner.inline(significant(element.childNodes, true, false), { lineStart: true });
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
    if (firstBlock > 0) parts.push(this.inliner.inline(items.slice(0, firstBlock), { lineStart: true }));
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
      const text = this.inliner.inline(significant(childNodes, true, false), { inTable: true });
      if (text.includes("\n")) return undefined;
      texts.push(text);
    }
    return { line: `| ${texts.join(" | ")} |`, aligns: found };
  }
}
