import { type DefaultTreeAdapterTypes, html } from "parse5";
import { contentOf, EXACT_ELEMENTS, isBlockElement, parseRendered, significant } from "../markdown/gate.js";
import { conflictOfWhole, isWord, type MergeLabels, type MergeResult, mergeBody, tokens } from "./merge.js";
import { inAuthorsSpelling } from "./respell.js";
import { type Alignment, alignment, mergeSequences } from "./three-way.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

// A Markdown merge is judged by what it renders (docs/pull.md, the list of what pull does): the sides'
// renderings are merged as token sequences, and the Markdown merge counts only when it renders
// to that. A token's first character says what it is: a text piece (#), a comment (!), an
// element's opening (<name, an @attribute each, then >) and its closing (/name).

/** An element's tokens: its opening's first and last (the `>`), and its closing. */
type ElementTokens = readonly [open: number, opened: number, close: number];

/** A rendering as the gate reads it, in tokens, with where each element's tokens are. */
interface Flat {
  tokens: string[];
  elements: ElementTokens[];
}

function pushOpening(element: Element, out: Flat): void {
  const ns = element.namespaceURI === html.NS.HTML ? "" : `${element.namespaceURI} `;
  out.tokens.push(`<${ns}${element.tagName}`);
  const attrs = element.attrs.map(
    (attr) => `@${attr.namespace ?? ""}:${attr.name}=${JSON.stringify(attr.value)}`,
  );
  for (const attr of attrs.sort()) out.tokens.push(attr);
  out.tokens.push(">");
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
      const open = out.tokens.length;
      pushOpening(element, out);
      const opened = out.tokens.length - 1;
      const inner = exact || element.namespaceURI !== html.NS.HTML || EXACT_ELEMENTS.has(element.tagName);
      flatten(contentOf(element), isBlockElement(element), inner, out);
      out.tokens.push(`/${element.tagName}`);
      out.elements.push([open, opened, out.tokens.length - 1]);
    }
  }
}

function rendering(markdown: string): Flat {
  const flat: Flat = { tokens: [], elements: [] };
  flatten(parseRendered(markdown), true, false, flat);
  return flat;
}

/**
 * Changes are independent with a word, a line end or a tag of the base between them (the
 * Markdown merge keeps changes on different lines apart, code included); a change of markup
 * is judged on its own (`markupSpans`).
 */
function isAnchor(token: string): boolean {
  if (token[0] === "#") return isWord(token) || token.endsWith("\n");
  return token[0] === "<" || token[0] === "/" || token[0] === ">";
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
 * element of the side whose opening (name or attributes) or closing is not the base's, and each
 * element of the base whose opening or closing the side changed or took out.
 */
function markupSpans(side: Flat, base: Flat, aligned: Alignment): Array<readonly [number, number]> {
  const spans: Array<readonly [number, number]> = [];
  const changed = (test: (i: number) => boolean, [open, opened, close]: ElementTokens) => {
    for (let i = open; i <= opened; i++) if (test(i)) return true;
    return test(close);
  };
  for (const element of side.elements) {
    if (changed((i) => !aligned.kept[i], element))
      spans.push([aligned.at[element[0]]!, aligned.at[element[2]]!]);
  }
  for (const element of base.elements) {
    if (changed((i) => aligned.deleted[i]!, element)) spans.push([element[0], element[2]]);
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
  return merged.kind !== "clean" || judge(merged.text) ? merged : undefined;
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
  return byLines.kind !== "clean" ? byLines : conflictOfWhole(local, remote, labels);
}
