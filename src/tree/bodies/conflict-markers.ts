import { markdownIt } from "../markdown/render.js";

/**
 * How a text's code is told from its prose: a Markdown body (fenced and indented code, raw
 * `<pre>` blocks), a raw-HTML body (`<pre>` elements), or none (YAML: front matter,
 * course.yaml), where every line counts.
 */
export type CodeSyntax = "markdown" | "html" | "none";

/** Lines [start, end) (0-based) that are code: a marker-like line there is content. */
export interface LineSpan {
  start: number;
  end: number;
}

/**
 * Seven characters, or more: git writes longer markers where it merged two whole files (a
 * rename conflict) or a conflict within a conflict. A block's three markers are of one size.
 */
const OPENING = /^(<{7,})(?: |\r?$)/;
const separator = (size: number) => new RegExp(`^={${size}}\\r?$`);
const closing = (size: number) => new RegExp(`^>{${size}}(?: |\\r?$)`);
/** Something that could start code; a text without any has none (and skips the parse). */
const MAYBE_CODE = /^ {0,3}(?:`{3}|~{3})|<pre|^(?: {4}|\t)/im;
const PRE_OPEN = /<pre(?=[\s>/]|$)/gi;
const PRE_CLOSE = /<\/pre\s*>/gi;

/** The file line (0-based) of each character offset, by the offsets where lines start. */
function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The lines of each `<pre>` element of HTML text, from its start tag to its end tag (unclosed: to the end). */
function preSpans(html: string): LineSpan[] {
  const starts = [0];
  for (let i = html.indexOf("\n"); i >= 0; i = html.indexOf("\n", i + 1)) starts.push(i + 1);
  const spans: LineSpan[] = [];
  PRE_OPEN.lastIndex = 0;
  for (let open = PRE_OPEN.exec(html); open; open = PRE_OPEN.exec(html)) {
    PRE_CLOSE.lastIndex = open.index;
    const close = PRE_CLOSE.exec(html);
    const end = close ? lineAt(starts, close.index) + 1 : starts.length;
    spans.push({ start: lineAt(starts, open.index), end });
    if (!close) break;
    PRE_OPEN.lastIndex = close.index + close[0].length;
  }
  return spans;
}

/** Code of a Markdown text as markdown-it (the renderer push uses) reads it. */
function markdownSpans(markdown: string): LineSpan[] {
  const spans: LineSpan[] = [];
  for (const token of markdownIt.parse(markdown, {})) {
    const [start, end] = token.map ?? [];
    if (start === undefined || end === undefined) continue;
    if (token.type === "fence" || token.type === "code_block") spans.push({ start, end });
    else if (token.type === "html_block") {
      for (const pre of preSpans(token.content))
        spans.push({ start: start + pre.start, end: start + pre.end });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** The code blocks of a text, in order: where marker-like lines are content, not a merge. */
export function codeSpans(text: string, syntax: CodeSyntax): LineSpan[] {
  if (syntax === "none" || !MAYBE_CODE.test(text)) return [];
  return syntax === "html" ? preSpans(text) : markdownSpans(text);
}

/**
 * Whether lines [from, to) cut into a code span: they overlap it without holding all of it
 * (an empty range cuts a span it lies strictly inside). Markers written around such lines
 * would stand inside the code.
 */
export function cutsCode(spans: readonly LineSpan[], from: number, to: number): LineSpan | undefined {
  return spans.find((span) =>
    from === to
      ? span.start < from && from < span.end
      : from < span.end && to > span.start && (from > span.start || to < span.end),
  );
}

/** A full block of conflict markers: its opening line (0-based) and its markers' size (7 or more). */
export interface MarkerBlock {
  line: number;
  size: number;
}

/**
 * Each full marker block among lines: an opening `<<<<<<<`, then a `=======`, then a closing
 * `>>>>>>>` of the same size, in order, each at the start of a line outside code.
 */
function markerBlocks(lines: readonly string[], spans: readonly LineSpan[], offset: number): MarkerBlock[] {
  const found: MarkerBlock[] = [];
  let opening: { line: number; size: number; separator: RegExp; closing: RegExp } | undefined;
  let separated = false;
  let next = 0;
  lines.forEach((line, i) => {
    while (next < spans.length && spans[next]!.end + offset <= i) next++;
    const span = spans[next];
    if (span && span.start + offset <= i) return;
    if (opening === undefined) {
      const size = OPENING.exec(line)?.[1]?.length;
      if (size !== undefined) opening = { line: i, size, separator: separator(size), closing: closing(size) };
    } else if (!separated) separated = opening.separator.test(line);
    else if (opening.closing.test(line)) {
      found.push({ line: opening.line, size: opening.size });
      opening = undefined;
      separated = false;
    }
  });
  return found;
}

/** Whether the text could hold a full marker block at all (the cheap test before any parse). */
function mayHoldBlock(text: string): boolean {
  const open = text.search(/^<{7}/m);
  if (open < 0) return false;
  const at = text.slice(open).search(/^={7,}\r?$/m);
  return at >= 0 && /^>{7}/m.test(text.slice(open + at));
}

/** The number of lines a YAML front matter takes at the top of a chapter file (0: none). */
function frontMatterLines(lines: readonly string[]): number {
  if (!/^(?:\uFEFF)?---[ \t]*\r?$/.test(lines[0] ?? "")) return 0;
  const close = lines.findIndex((line, i) => i > 0 && /^---[ \t]*\r?$/.test(line));
  return close < 0 ? lines.length : close + 1;
}

/**
 * Each full marker block of a text: a body in the given syntax, or (`chapter: true`) a chapter
 * file, whose front matter counts whole and whose body is read in the syntax.
 */
export function markerBlocksOf(
  text: string,
  syntax: CodeSyntax,
  options: { chapter?: boolean } = {},
): MarkerBlock[] {
  if (!mayHoldBlock(text)) return [];
  const lines = text.split("\n");
  const head = options.chapter ? frontMatterLines(lines) : 0;
  const spans = codeSpans(lines.slice(head).join("\n"), syntax);
  return markerBlocks(lines, spans, head);
}

/** The 0-based opening line of each full marker block of a text (see `markerBlocksOf`). */
export function markerBlockLines(
  text: string,
  syntax: CodeSyntax,
  options: { chapter?: boolean } = {},
): number[] {
  return markerBlocksOf(text, syntax, options).map((block) => block.line);
}

/**
 * The first line (1-based) of leftover conflict markers: a full block (`<<<<<<<`, `=======`,
 * `>>>>>>>`) outside code, the only kind git or a coursesync merge writes. A git lesson's code
 * block showing markers is content.
 */
export function conflictMarkerLine(
  text: string,
  syntax: CodeSyntax = "none",
  options: { chapter?: boolean } = {},
): number | undefined {
  const first = markerBlockLines(text, syntax, options)[0];
  return first === undefined ? undefined : first + 1;
}

/** Whether a text holds leftover conflict markers (see `conflictMarkerLine`). */
export function hasConflictMarkers(text: string, syntax: CodeSyntax = "none"): boolean {
  return conflictMarkerLine(text, syntax) !== undefined;
}
