import { type DefaultTreeAdapterTypes, html } from "parse5";
import { contentOf, EXACT_ELEMENTS, isBlockElement, parseRendered, significant } from "../markdown/gate.js";
import { conflictOfWhole, isWord, type MergeLabels, type MergeResult, mergeBody, tokens } from "./merge.js";
import { inAuthorsSpelling } from "./respell.js";
import { type Alignment, alignment, mergeSequences } from "./three-way.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

// A Markdown merge is judged by what it renders (README, "Edited on both sides"): the sides'
// renderings are merged as token sequences, and the Markdown merge counts only when it renders
// to that. A token's first character says what it is: a text piece (#), a comment (!), the
// opening and closing of an inline element (< /) or of a block element ([ ]).

/** A rendering as the gate reads it, in tokens, with each element's opening and closing token. */
interface Flat {
  tokens: string[];
  elements: Array<readonly [open: number, close: number]>;
}

function openToken(element: Element, block: boolean): string {
  const attrs = element.attrs
    .map((attr) => `${attr.namespace ?? ""}:${attr.name}=${JSON.stringify(attr.value)}`)
    .sort()
    .join(" ");
  const ns = element.namespaceURI === html.NS.HTML ? "" : `${element.namespaceURI} `;
  return `${block ? "[" : "<"}${ns}${element.tagName} ${attrs}`;
}

/**
 * Nodes into tokens the way the gate compares them: what it forgives (whitespace at a text edge
 * that touches a block boundary, outside preformatted elements) is left out, so two renderings
 * the gate finds equal give the same tokens once runs of text are joined.
 */
function flatten(nodes: readonly ChildNode[], inBlock: boolean, exact: boolean, out: Flat): void {
  for (const item of significant(nodes, inBlock, exact)) {
    if (typeof item === "string") {
      for (const piece of tokens(item)) out.tokens.push(`#${piece}`);
    } else if (item.nodeName === "#comment") {
      out.tokens.push(`!${(item as DefaultTreeAdapterTypes.CommentNode).data}`);
    } else {
      const element = item as Element;
      const block = isBlockElement(element);
      const open = out.tokens.length;
      out.tokens.push(openToken(element, block));
      const inner = exact || element.namespaceURI !== html.NS.HTML || EXACT_ELEMENTS.has(element.tagName);
      flatten(contentOf(element), block, inner, out);
      out.tokens.push(`${block ? "]" : "/"}${element.tagName}`);
      out.elements.push([open, out.tokens.length - 1]);
    }
  }
}

function rendering(markdown: string): Flat {
  const flat: Flat = { tokens: [], elements: [] };
  flatten(parseRendered(markdown), true, false, flat);
  return flat;
}

/** Changes are independent with a word or a block boundary of the base between them. */
function isAnchor(token: string): boolean {
  return token[0] === "[" || token[0] === "]" || (token[0] === "#" && isWord(token));
}

/** Runs of text joined: how a tree's texts read, however they were cut. */
function joined(list: readonly string[]): string[] {
  const out: string[] = [];
  for (const token of list) {
    const last = out.length - 1;
    if (token[0] === "#" && last >= 0 && out[last]![0] === "#") out[last] += token.slice(1);
    else out.push(token);
  }
  return out;
}

/**
 * The stretches of the base (first and last base index) whose markup a side changed: each
 * element of the side whose opening or closing is not the base's, and each element of the base
 * whose opening or closing the side took out.
 */
function markupSpans(side: Flat, base: Flat, aligned: Alignment): Array<readonly [number, number]> {
  const spans: Array<readonly [number, number]> = [];
  for (const [open, close] of side.elements) {
    if (!aligned.kept[open] || !aligned.kept[close]) spans.push([aligned.at[open]!, aligned.at[close]!]);
  }
  for (const [open, close] of base.elements) {
    if (aligned.deleted[open] || aligned.deleted[close]) spans.push([open, close]);
  }
  return spans;
}

function overlaps(
  xs: ReadonlyArray<readonly [number, number]>,
  ys: ReadonlyArray<readonly [number, number]>,
) {
  return xs.some(([a, b]) => ys.some(([c, d]) => a <= d && c <= b));
}

/**
 * What the two sides' changes make of the base's rendering, or undefined when there is no one
 * answer: changes that touch (no word or block boundary between them), or markup changed on
 * both sides within one element (one side's emphasis across the other's, say), which would
 * render to markup neither side had.
 */
function expectedTokens(base: Flat, local: Flat, remote: Flat): string[] | undefined {
  const regions = mergeSequences(base.tokens, local.tokens, remote.tokens, isAnchor);
  if (regions.some((region) => region.kind === "conflict")) return undefined;
  const mine = alignment(base.tokens, local.tokens);
  const theirs = alignment(base.tokens, remote.tokens);
  if (mine === undefined || theirs === undefined) return undefined;
  if (overlaps(markupSpans(local, base, mine), markupSpans(remote, base, theirs))) return undefined;
  const out: string[] = [];
  for (const region of regions) if (region.kind === "ok") for (const token of region.items) out.push(token);
  return out;
}

/**
 * Whether a merged Markdown body renders to what the two sides' changes make of the base's
 * rendering (DOM-level, as the equivalence gate compares), whatever Markdown spelling each side
 * used.
 */
export function rendersAsMerged(base: string, local: string, remote: string, merged: string): boolean {
  try {
    const expected = expectedTokens(rendering(base), rendering(local), rendering(remote));
    if (expected === undefined) return false;
    const [want, got] = [joined(expected), joined(rendering(merged).tokens)];
    return want.length === got.length && want.every((token, i) => token === got[i]);
  } catch (error) {
    // Nesting deeper than the stack allows cannot be judged: not a clean merge.
    if (error instanceof RangeError) return false;
    throw error;
  }
}

type Judge = (merged: string) => boolean;

/** A word merge of three Markdown texts; undefined when it is clean but the judge refuses it. */
function judgedMerge(texts: readonly [string, string, string], judge: Judge, labels?: MergeLabels) {
  const merged = mergeBody(...texts, labels ? { labels } : {});
  return merged.kind === "conflict" || judge(merged.text) ? merged : undefined;
}

/**
 * Three-way merge of Markdown bodies: by lines, then words (`mergeBody`), and clean only when
 * the merge renders to what the sides' changes make of the base's rendering (`rendersAsMerged`).
 * When that fails, once more with the blocks the author only spelled differently spelled their
 * way in the base and the site's side too (`inAuthorsSpelling`). A merge refused is a conflict
 * with markers around the lines both sides changed, or, when no line was, around the whole of
 * what differs.
 */
export function mergeMarkdown(
  base: string,
  local: string,
  remote: string,
  labels?: MergeLabels,
): MergeResult {
  // One side's body as it is, unchanged: nothing to judge.
  if (local === base || remote === base || local === remote) return mergeBody(base, local, remote);
  const judge: Judge = (merged) => rendersAsMerged(base, local, remote, merged);
  const plain = judgedMerge([base, local, remote], judge, labels);
  if (plain?.kind === "clean") return plain;
  const spelled = inAuthorsSpelling(base, local, remote);
  if (spelled !== undefined) {
    const again = judgedMerge([spelled.base, local, spelled.remote], judge, labels);
    if (again?.kind === "clean") return again;
  }
  if (plain !== undefined) return plain;
  const byLines = mergeBody(base, local, remote, { words: false, ...(labels ? { labels } : {}) });
  return byLines.kind === "conflict" ? byLines : conflictOfWhole(local, remote, labels);
}
