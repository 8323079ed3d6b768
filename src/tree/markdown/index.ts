import type { DefaultTreeAdapterTypes } from "parse5";
import { type BodyCodec, exactBody, readJsonBody } from "../bodies.js";
import { equivalentHtml, equivalentNodes, parseHtml } from "./gate.js";
import { markdownToHtml } from "./render.js";
import { renderedNodes } from "./rendered.js";
import { blockHtml, blockMarkdown, type InlineStyle, type TopBlock, topBlocks } from "./to-markdown.js";

export { equivalentHtml } from "./gate.js";
export { markdownToHtml } from "./render.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;

const MARKDOWN_INLINE: InlineStyle = { htmlTags: false };
const HTML_INLINE: InlineStyle = { htmlTags: true };

/** True when the Markdown renders to HTML the gate finds equal to the parsed original. */
function survives(markdown: string, original: readonly ChildNode[]): boolean {
  return equivalentNodes(original, renderedNodes(markdown));
}

/**
 * A chapter's HTML as a file body, proven or kept exact (DESIGN 5): Markdown when it renders
 * back to the same HTML; else Markdown with each top-level block that does not survive kept as
 * an HTML block inside it (first with its inline markup as HTML tags, then whole), checked
 * again; else the HTML verbatim.
 */
export function htmlToBody(html: string): { body: string; format: "markdown" | "html" } {
  try {
    return convert(html);
  } catch (error) {
    // Nesting deeper than the stack allows cannot be proven: such a chapter stays exact.
    if (error instanceof RangeError) return { body: html, format: "html" };
    throw error;
  }
}

function convert(html: string): { body: string; format: "markdown" | "html" } {
  const original = parseHtml(html).childNodes;
  const blocks = topBlocks(original);
  const parts = blocks.map((block) => blockMarkdown(block, MARKDOWN_INLINE));
  if (parts.every((part) => part !== undefined)) {
    const markdown = parts.join("\n\n");
    if (survives(markdown, original)) return { body: markdown, format: "markdown" };
  }
  const kept: string[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const part = survivingBlock(blocks[i]!, parts[i]);
    if (part === undefined) return { body: html, format: "html" };
    kept.push(part);
  }
  const markdown = kept.join("\n\n");
  return survives(markdown, original)
    ? { body: markdown, format: "markdown" }
    : { body: html, format: "html" };
}

// The first form of a block that survives on its own: its Markdown, its Markdown with HTML
// inline tags, or the block as an HTML block.
function survivingBlock(block: TopBlock, markdown: string | undefined): string | undefined {
  if (markdown !== undefined && survives(markdown, block.nodes)) return markdown;
  const tagged = blockMarkdown(block, HTML_INLINE);
  if (tagged !== undefined && tagged !== markdown && survives(tagged, block.nodes)) return tagged;
  const raw = blockHtml(block);
  return raw !== undefined && survives(raw, block.nodes) ? raw : undefined;
}

/**
 * Chapter bodies as Markdown where that is proven lossless, else the HTML verbatim; HTML that
 * is not well-formed UTF-16 (a lone surrogate) stays exact as JSON.
 */
export const markdownBodies: BodyCodec = {
  mode: "markdown",
  fromHtml: (html) => exactBody(html) ?? htmlToBody(html),
  toHtml(body, format, file) {
    if (format === "json") return readJsonBody(body, file);
    return format === "html" ? body : markdownToHtml(body);
  },
  equivalent: equivalentHtml,
};
