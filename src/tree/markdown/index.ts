import type { DefaultTreeAdapterTypes } from "parse5";
import { type BodyCodec, exactBody, readJsonBody } from "../bodies.js";
import {
  equivalentHtml,
  equivalentNodes,
  parseHtml,
  parseRendered,
  SHORTCUTS,
  type Shortcuts,
} from "./gate.js";
import { markdownToHtml } from "./render.js";
import { blockHtml, blockMarkdown, type InlineStyle, type TopBlock, topBlocks } from "./to-markdown.js";

export { equivalentHtml, SHORTCUTS, type Shortcuts } from "./gate.js";
export { markdownToHtml } from "./render.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;

const MARKDOWN_INLINE: InlineStyle = { htmlTags: false };
const HTML_INLINE: InlineStyle = { htmlTags: true };

/** True when the Markdown renders to HTML the gate finds equal to the parsed original. */
function survives(markdown: string, original: readonly ChildNode[], shortcuts: Shortcuts): boolean {
  return equivalentNodes(original, parseRendered(markdown, shortcuts));
}

/**
 * A chapter's HTML as a file body, proven or kept exact (DESIGN 5): Markdown when it renders
 * back to the same HTML; else Markdown with each top-level block that does not survive kept as
 * an HTML block inside it (first with its inline markup as HTML tags, then whole), checked
 * again; else the HTML verbatim. The gate's shortcuts change only the speed.
 */
export function htmlToBody(
  html: string,
  shortcuts: Shortcuts = SHORTCUTS,
): { body: string; format: "markdown" | "html" } {
  try {
    return convert(html, shortcuts);
  } catch (error) {
    // Nesting deeper than the stack allows cannot be proven: such a chapter stays exact.
    if (error instanceof RangeError) return { body: html, format: "html" };
    throw error;
  }
}

function convert(html: string, shortcuts: Shortcuts): { body: string; format: "markdown" | "html" } {
  const original = parseHtml(html, shortcuts).childNodes;
  const forms = topBlocks(original).map((block) => new BlockForms(block));
  // First each block in the most Markdown form it has, checked once as a whole: what nearly
  // every chapter needs.
  const first: string[] = [];
  for (const form of forms) {
    const part = form.markdown ?? form.tagged ?? form.raw;
    // A block with no form at all, not even as an HTML block: the chapter stays HTML.
    if (part === undefined) return { body: html, format: "html" };
    first.push(part);
  }
  const markdown = first.join("\n\n");
  if (survives(markdown, original, shortcuts)) return { body: markdown, format: "markdown" };
  // Else each block in the first form that survives on its own, and the whole checked again.
  const kept: string[] = [];
  for (const form of forms) {
    const part = form.surviving(shortcuts);
    if (part === undefined) return { body: html, format: "html" };
    kept.push(part);
  }
  const checked = kept.join("\n\n");
  return survives(checked, original, shortcuts)
    ? { body: checked, format: "markdown" }
    : { body: html, format: "html" };
}

/**
 * The forms of one top-level block, each made when first asked for: its Markdown, its Markdown
 * with inline markup as HTML tags, and the block as an HTML block (undefined where there is none).
 */
class BlockForms {
  private made: { markdown?: string | undefined; tagged?: string | undefined; raw?: string | undefined } = {};

  constructor(private readonly block: TopBlock) {}

  get markdown(): string | undefined {
    if (!("markdown" in this.made)) this.made.markdown = blockMarkdown(this.block, MARKDOWN_INLINE);
    return this.made.markdown;
  }

  get tagged(): string | undefined {
    if (!("tagged" in this.made)) {
      const tagged = blockMarkdown(this.block, HTML_INLINE);
      this.made.tagged = tagged === this.markdown ? undefined : tagged;
    }
    return this.made.tagged;
  }

  get raw(): string | undefined {
    if (!("raw" in this.made)) this.made.raw = blockHtml(this.block);
    return this.made.raw;
  }

  /** The first form that survives on its own. */
  surviving(shortcuts: Shortcuts): string | undefined {
    const nodes = this.block.nodes;
    for (const form of [this.markdown, this.tagged, this.raw]) {
      if (form !== undefined && survives(form, nodes, shortcuts)) return form;
    }
    return undefined;
  }
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
