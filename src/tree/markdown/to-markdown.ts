import type { DefaultTreeAdapterTypes } from "parse5";
import { BlockConverter, otherMarker } from "./blocks.js";
import { isBlockElement } from "./gate.js";
import { NO_MARKDOWN, rawBlock } from "./html-blocks.js";
import type { InlineStyle } from "./inline.js";

export type { InlineStyle } from "./inline.js";

// HTML to Markdown, one top-level block at a time (the unit of DESIGN 5's fallback): blocks.ts
// writes block elements, inline.ts their content, escape.ts the text; html-blocks.ts what stays HTML.

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

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

function isBlankText(node: ChildNode): boolean {
  return node.nodeName === "#text" && WHITESPACE_ONLY.test((node as DefaultTreeAdapterTypes.TextNode).value);
}

/** The Markdown for a top-level block, or undefined when it has none (not even as an HTML block). */
export function blockMarkdown(block: TopBlock, style: InlineStyle): string | undefined {
  try {
    if (block.tag === undefined) return rawBlock(block.nodes);
    return new BlockConverter(style).block(block.nodes[0] as Element, block.otherMarker);
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
