// Escaping: text and link parts written so that Markdown reads them back exactly.

/** Inline output under way: the text so far and where it stands. */
export interface InlineState {
  out: string;
  /** At the start of a line of the block's content, where block syntax could begin. */
  lineStart: boolean;
  /** Inside link text or an image description, where `]` closes. */
  inLink: boolean;
  /** Inside a table cell, where `|` splits cells even in code. */
  inTable: boolean;
  /** The next text starts with the line end a hard break has already written. */
  skipLineEnd: boolean;
  /** The character before `out` and the one after the items being written (" " at a block edge). */
  lead: string;
  trail: string;
}

const ENTITY_LIKE = /&(?=#?[A-Za-z0-9]+;)/g;

/** A link destination with the characters Markdown would read as syntax escaped. */
export function destination(url: string): string {
  return url.replace(/[()\\]/g, "\\$&").replace(ENTITY_LIKE, "\\&");
}

/** A link title in quotes (with its leading space), or nothing when there is none. */
export function linkTitle(title: string | undefined): string {
  if (title === undefined) return "";
  return ` "${title.replace(/["\\]/g, "\\$&").replace(ENTITY_LIKE, "\\&").replace(/\n/g, "&#10;")}"`;
}

/** The longest run of `char` in `text`: a code fence must be longer. */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Append markup that needs no escaping. */
export function write(state: InlineState, markup: string): void {
  if (markup === "") return;
  state.out += markup;
  state.lineStart = markup.endsWith("\n");
  state.skipLineEnd = false;
}

// Block syntax at the start of a line: a heading, quote, list item, or setext underline.
const LINE_START = /^(?:[#>]|[-+](?=[ \t]|$)|=+[ \t]*$|-+[ \t]*$)/;
const ORDERED_MARKER = /^[0-9]{1,9}(?=[.)](?:[ \t]|$))/;
const WORD = /[\p{L}\p{N}]/u;
// Characters that may need escaping; everything between them is copied as it is.
const SPECIAL = /[\n*`[|~\]_\\<&!\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u000b\f]/g;
const PUNCTUATION = /[!-/:-@[-`{-~]/;

/**
 * Text as Markdown that reads back to exactly that text: syntax characters escaped, and the
 * whitespace Markdown would drop at the start and end of a line written as character references.
 * `more`: something follows the text on the same line.
 */
export function writeText(state: InlineState, text: string, more = false): void {
  const n = text.length;
  let i = state.skipLineEnd && text.startsWith("\n") ? 1 : 0;
  let lineStart = state.lineStart;
  let out = "";
  while (i < n) {
    if (lineStart) {
      lineStart = false;
      const escaped = escapeLineStart(text, i);
      if (escaped !== undefined) {
        out += escaped.out;
        i = escaped.next;
        continue;
      }
    }
    SPECIAL.lastIndex = i;
    const match = SPECIAL.exec(text);
    const at = match === null ? n : match.index;
    out += text.slice(i, at);
    if (at === n) break;
    const c = text[at]!;
    i = at + 1;
    if (c === "\n") {
      // Spaces before a line end would be dropped (or read as a hard break).
      const last = out.at(-1);
      if (last === " " || last === "\t") out = `${out.slice(0, -1)}${last === " " ? "&#32;" : "&#9;"}`;
      out += "\n";
      lineStart = true;
    } else {
      out += escapeSpecial(c, text, at, state.inLink, more);
    }
  }
  state.out += out;
  state.lineStart = lineStart;
  state.skipLineEnd = false;
}

/**
 * At the start of a line: leading whitespace as a character reference, or block syntax
 * escaped; the markup and the index after what it stands for, or undefined when nothing needs it.
 */
function escapeLineStart(text: string, i: number): { out: string; next: number } | undefined {
  const c = text[i]!;
  if (c === " " || c === "\t" || c === "\n") {
    // Leading whitespace would be dropped, and a line end here would leave an empty line.
    return { out: c === " " ? "&#32;" : c === "\t" ? "&#9;" : "&#10;", next: i + 1 };
  }
  const lineEnd = text.indexOf("\n", i);
  const line = text.slice(i, lineEnd === -1 ? text.length : lineEnd);
  if (LINE_START.test(line)) return { out: `\\${c}`, next: i + 1 };
  const number = ORDERED_MARKER.exec(line);
  if (number !== null) {
    const end = i + number[0].length;
    return { out: `${number[0]}\\${text[end]}`, next: end + 1 };
  }
  return undefined;
}

/** One special character (not a line end) of `text`, at `at`, as Markdown that reads back to it. */
function escapeSpecial(c: string, text: string, at: number, inLink: boolean, more: boolean): string {
  const n = text.length;
  switch (c) {
    case "]":
      return inLink ? "\\]" : c;
    case "_": {
      // Between two letters or digits an underscore cannot open or close emphasis.
      const intraword = at > 0 && at < n - 1 && WORD.test(text[at - 1]!) && WORD.test(text[at + 1]!);
      return intraword ? c : "\\_";
    }
    case "\\": {
      const next = text[at + 1];
      return next === undefined || next === "\n" || PUNCTUATION.test(next) ? "\\\\" : c;
    }
    case "<": {
      const next = text[at + 1];
      return next === undefined || /[A-Za-z/!?]/.test(next) ? "\\<" : c;
    }
    case "&":
      return /^&#?[A-Za-z0-9]+;/.test(text.slice(at, at + 40)) ? "\\&" : c;
    case "!":
      // `!` right before a link makes an image.
      return at === n - 1 && more ? "\\!" : c;
    case "*":
    case "`":
    case "[":
    case "|":
    case "~":
      return `\\${c}`;
    default:
      // Unicode whitespace: Markdown trims it at the ends of a paragraph or heading.
      return c === "\u00a0" ? "&nbsp;" : `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`;
  }
}
