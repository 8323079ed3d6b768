import { type CodeSyntax, codeSpans, cutsCode, type LineSpan } from "./conflict-markers.js";

/** A merged body's line both sides agree on, or a conflict: each side's lines there. */
export type Piece = string | { local: string[]; remote: string[] };

/** The names written after `<<<<<<<` and `>>>>>>>`. */
export interface MergeLabels {
  local: string;
  remote: string;
}

type Side = "local" | "remote";

/** One side's text of the merge (every conflict taken from that side): where its code is. */
interface View {
  spans: LineSpan[];
  /** at[i]: the line of this side's text where piece i starts; at[pieces.length]: its length. */
  at: number[];
}

/** Append lines one by one. */
export function append<T>(out: T[], lines: readonly T[]): void {
  // Not push(...lines): a body's lines can outnumber the arguments a call may take.
  for (const line of lines) out.push(line);
}

function viewOf(pieces: readonly Piece[], side: Side, syntax: CodeSyntax): View {
  const at = [0];
  const lines: string[] = [];
  for (const piece of pieces) {
    if (typeof piece === "string") lines.push(piece);
    else append(lines, piece[side]);
    at.push(lines.length);
  }
  return { spans: codeSpans(lines.join("\n"), syntax), at };
}

/**
 * The pieces [a, b) a conflict at piece i must take so that, in both sides' texts, it holds
 * every code block it touches whole: markers then stand outside the code, never in it.
 */
function widen(views: readonly View[], i: number, count: number): [number, number] {
  let a = i;
  let b = i + 1;
  for (let moved = true; moved; ) {
    moved = false;
    for (const { spans, at } of views) {
      const cut = cutsCode(spans, at[a]!, at[b]!);
      if (!cut) continue;
      const [fromA, fromB] = [a, b];
      while (a > 0 && at[a]! > cut.start) a--;
      while (b < count && at[b]! < cut.end) b++;
      moved ||= a !== fromA || b !== fromB;
    }
  }
  return [a, b];
}

/** The stretches of pieces [a, b) each conflict covers once widened, overlapping ones joined. */
function conflictStretches(pieces: readonly Piece[], views: readonly View[]): [number, number][] {
  const out: [number, number][] = [];
  pieces.forEach((piece, i) => {
    if (typeof piece === "string") return;
    let [a, b] = widen(views, i, pieces.length);
    for (let last = out.at(-1); last && a < last[1]; last = out.at(-1)) {
      a = Math.min(a, last[0]);
      b = Math.max(b, last[1]);
      out.pop();
    }
    out.push([a, b]);
  });
  return out;
}

function sharedHead(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function sharedTail(a: readonly string[], b: readonly string[], head: number): number {
  let n = 0;
  while (n < a.length - head && n < b.length - head && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/**
 * A conflict's lines with markers around just the lines the sides disagree on (no base section);
 * the lines both share at either end stay outside unless that would put a marker inside code.
 */
function marked(pieces: readonly Piece[], [a, b]: [number, number], views: View[], write: Writer): string[] {
  const sides = { local: [] as string[], remote: [] as string[] };
  for (const piece of pieces.slice(a, b)) {
    for (const side of ["local", "remote"] as const) {
      if (typeof piece === "string") sides[side].push(piece);
      else append(sides[side], piece[side]);
    }
  }
  const { local, remote } = sides;
  let head = sharedHead(local, remote);
  let tail = sharedTail(local, remote, head);
  const [ours, theirs] = views as [View, View];
  if (
    cutsCode(ours.spans, ours.at[a]! + head, ours.at[b]! - tail) ||
    cutsCode(theirs.spans, theirs.at[a]! + head, theirs.at[b]! - tail)
  ) {
    head = 0;
    tail = 0;
  }
  return [
    ...local.slice(0, head),
    `<<<<<<< ${write.labels.local}${write.eol}`,
    ...local.slice(head, local.length - tail),
    `=======${write.eol}`,
    ...remote.slice(head, remote.length - tail),
    `>>>>>>> ${write.labels.remote}${write.eol}`,
    ...local.slice(local.length - tail),
  ];
}

/** How markers are written: their labels and the end of line ("\r" in a CRLF text, else ""). */
export interface Writer {
  labels: MergeLabels;
  eol: string;
}

/**
 * The lines of a merge with its conflicts between git-style markers, and how many marker
 * blocks it wrote. A conflict inside a fenced code block or a `<pre>` block takes the whole
 * block on each side, so the markers stand outside the code, where they are seen as markers.
 */
export function markConflicts(
  pieces: readonly Piece[],
  syntax: CodeSyntax,
  write: Writer,
): { lines: string[]; conflicts: number } {
  const views = [viewOf(pieces, "local", syntax), viewOf(pieces, "remote", syntax)];
  const stretches = conflictStretches(pieces, views);
  const lines: string[] = [];
  let done = 0;
  for (const stretch of stretches) {
    for (const piece of pieces.slice(done, stretch[0])) lines.push(piece as string);
    append(lines, marked(pieces, stretch, views, write));
    done = stretch[1];
  }
  for (const piece of pieces.slice(done)) lines.push(piece as string);
  return { lines, conflicts: stretches.length };
}
