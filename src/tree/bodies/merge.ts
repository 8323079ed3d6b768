import { type CodeSyntax, markerBlockLines } from "./conflict-markers.js";
import { append, type MergeLabels, markConflicts, type Piece } from "./hunks.js";
import { mergeSequences, type Region } from "./three-way.js";

export type { MergeLabels } from "./hunks.js";

/**
 * What a body merge gives: the merged text, or the text with git-style markers at each
 * conflict, or (`unmarked`) conflicts whose markers could not be placed where a reader of the
 * text sees them (a code fence one side leaves open swallows what follows it): those must be
 * shown another way.
 */
export type MergeResult =
  | { kind: "clean"; text: string }
  | { kind: "conflict"; text: string; conflicts: number }
  | { kind: "unmarked"; conflicts: number };

/** How to merge a body. */
export interface MergeOptions {
  /**
   * Merge by words inside line hunks both sides changed (default true); false merges by lines
   * only, as raw-HTML bodies (`format: html`) do.
   */
  words?: boolean;
  /** Marker labels; default `local` and `site`. */
  labels?: MergeLabels;
  /**
   * How the body's code is told, so that no marker is written inside it (default: Markdown
   * for a word merge, HTML for a merge by lines).
   */
  code?: CodeSyntax;
}

const DEFAULT_LABELS: MergeLabels = { local: "local", remote: "site" };

/** The tokens a text is cut into for a word merge; together they cover it all, in order. */
const TOKEN = new RegExp(
  [
    /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u, // CJK writes no spaces: a character each
    /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*/u, // a word, with its accents and inner apostrophes
    /\p{Extended_Pictographic}(?:[\u{1F3FB}-\u{1F3FF}\uFE0F\u20E3]|\u200D\p{Extended_Pictographic})*/u, // emoji
    /\p{Regional_Indicator}{1,2}/u, // a flag
    /[^\S\r\n]+/u, // spaces and tabs
    /\r?\n/u,
    /./su, // any other character: punctuation, Markdown syntax
  ]
    .map((part) => part.source)
    .join("|"),
  "gsu",
);
/** A token that says something: edits on both sides merge only with one of these between them. */
const WORD = /[\p{L}\p{N}\p{Extended_Pictographic}\p{Regional_Indicator}]/u;
/** An opening or closing code fence, also inside block quotes and list items. */
const FENCE = /^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})/;

/** A text cut into words, spaces, line ends and single other characters (together: all of it). */
export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** Whether a token says something (a word, a number, an emoji), not only space or punctuation. */
export function isWord(token: string): boolean {
  return WORD.test(token);
}

/** For each line, whether it is a code fence or inside one (an unclosed fence runs to the end). */
function fencedLines(lines: readonly string[]): boolean[] {
  let open: string | undefined;
  return lines.map((line) => {
    const fence = FENCE.exec(line)?.[1];
    if (open === undefined) {
      open = fence;
      return fence !== undefined;
    }
    // A closing fence: the opening's character, at least as many, nothing after it.
    const closes = fence !== undefined && fence[0] === open[0] && fence.length >= open.length;
    if (closes && line.trimEnd().endsWith(fence)) open = undefined;
    return true;
  });
}

/** Lines of a merged region's text, in which every line ends with "\n". */
function linesOf(text: string): string[] | undefined {
  if (text === "") return [];
  return text.endsWith("\n") ? text.slice(0, -1).split("\n") : undefined;
}

/**
 * Three-way merge of one conflicting line hunk by words; undefined when the word changes touch.
 * Every line is given its line break, so a line deleted on one side is a deletion of its words
 * and its break, and the merged text splits back into lines exactly.
 */
function mergeWords(base: string[], local: string[], remote: string[]): string[] | undefined {
  const cut = (lines: string[]) => tokens(lines.map((line) => `${line}\n`).join(""));
  const regions = mergeSequences(cut(base), cut(local), cut(remote), isWord);
  if (regions.some((region) => region.kind === "conflict")) return undefined;
  return linesOf(regions.flatMap((region) => (region.kind === "ok" ? region.items : [])).join(""));
}

type LineConflict = Extract<Region<string>, { kind: "conflict" }>;

/**
 * Word merges of the line hunks both sides changed, except around code fences: code is merged by
 * lines only (whitespace matters there, and two edits to one line of code rarely compose).
 */
function wordMerger(base: string[], local: string[], remote: string[]) {
  const fenced = { base: fencedLines(base), local: fencedLines(local), remote: fencedLines(remote) };
  const inCode = (marks: boolean[], start: number, length: number) =>
    marks.slice(start, start + length).some(Boolean);
  return (hunk: LineConflict): string[] | undefined =>
    inCode(fenced.base, hunk.baseStart, hunk.base.length) ||
    inCode(fenced.local, hunk.localStart, hunk.local.length) ||
    inCode(fenced.remote, hunk.remoteStart, hunk.remote.length)
      ? undefined
      : mergeWords(hunk.base, hunk.local, hunk.remote);
}

/** When one side did not change (or both changed alike), its other side; else undefined. */
function oneSided(base: string, local: string, remote: string): string | undefined {
  if (local === remote || remote === base) return local;
  return local === base ? remote : undefined;
}

/** Three-way merge of a chapter body by lines, then by words inside lines both sides changed. */
export function mergeBody(
  base: string,
  local: string,
  remote: string,
  options: MergeOptions = {},
): MergeResult {
  const simple = oneSided(base, local, remote);
  if (simple !== undefined) return { kind: "clean", text: simple };
  // Split on "\n" alone: a trailing newline is a last empty line, and "\r" stays in its line.
  const [b, l, r] = [base.split("\n"), local.split("\n"), remote.split("\n")] as const;
  const byWords = options.words === false ? undefined : wordMerger(b, l, r);
  const pieces: Piece[] = [];
  let conflicted = false;
  for (const region of mergeSequences(b, l, r)) {
    if (region.kind === "ok") {
      append(pieces, region.items);
      continue;
    }
    const merged = byWords?.(region);
    if (merged) append(pieces, merged);
    else {
      pieces.push({ local: region.local, remote: region.remote });
      conflicted = true;
    }
  }
  if (!conflicted) return { kind: "clean", text: (pieces as string[]).join("\n") };
  const syntax = options.code ?? (options.words === false ? "html" : "markdown");
  return markedResult(pieces, syntax, options.labels ?? DEFAULT_LABELS, local);
}

/** Pieces with their conflicts marked; `unmarked` when a marker block written would not be seen as one. */
function markedResult(
  pieces: readonly Piece[],
  syntax: CodeSyntax,
  labels: MergeLabels,
  local: string,
): MergeResult {
  const write = { labels, eol: local.includes("\r\n") ? "\r" : "" };
  const { lines, conflicts } = markConflicts(pieces, syntax, write);
  const text = lines.join("\n");
  // Every marker block written must be seen as one, or the conflict could be pushed unseen.
  if (markerBlockLines(text, syntax).length !== conflicts) return { kind: "unmarked", conflicts };
  return { kind: "conflict", text, conflicts };
}

/** Both sides as one conflict: markers around all the lines they differ in (no merge at all). */
export function conflictOfWhole(
  local: string,
  remote: string,
  labels: MergeLabels = DEFAULT_LABELS,
): MergeResult {
  return markedResult([{ local: local.split("\n"), remote: remote.split("\n") }], "markdown", labels, local);
}

/** Three-way merge by lines only: the merged text, or undefined when the sides overlap. */
export function mergeLines(base: string, local: string, remote: string): string | undefined {
  const result = mergeBody(base, local, remote, { words: false });
  return result.kind === "clean" ? result.text : undefined;
}
