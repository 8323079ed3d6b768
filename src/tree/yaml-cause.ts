import { Lexer } from "yaml";

/** Where a YAML syntax error's cause is in the text: 1-based line and column. */
export interface Cause {
  line: number;
  column: number;
  /** What is wrong there, when the parser's words would not say it. */
  message?: string;
}

/** The lexer's markers that stand for no text of the source (document, scalar, flow end). */
const MARKERS = new Set(["\x02", "\x18", "\x1f"]);

/** The lexer's tokens with the offset each starts at in the text. */
function tokens(text: string): Array<{ token: string; offset: number }> {
  const out: Array<{ token: string; offset: number }> = [];
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    if (MARKERS.has(token)) continue;
    out.push({ token, offset });
    offset += token.length;
  }
  return out;
}

function causeAt(text: string, offset: number): Cause {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

/**
 * The parser reports some errors where it gave up, lines below what caused them: a quote not
 * closed (at the end of the file), a `[` or `{` not closed (at the next key), a key indented
 * more than the one above it (at the key above). This finds the line that caused them: the
 * opening quote or bracket, the indented key. Undefined for every other error.
 */
export function yamlErrorCause(
  text: string,
  error: { code?: string; message: string; pos?: [number, number] },
): Cause | undefined {
  const at = error.pos?.[0];
  if (at === undefined) return undefined;
  const quote = /^Missing closing (["'])quote/.exec(error.message)?.[1];
  if (error.code === "MISSING_CHAR" && quote) {
    const opening = tokens(text)
      .filter((t) => t.offset <= at && t.token.startsWith(quote))
      .at(-1);
    return opening && { ...causeAt(text, opening.offset), message: `the ${quote} here is never closed` };
  }
  if (error.code === "BAD_INDENT" && /^Flow (sequence|map)/.test(error.message)) {
    const open: number[] = [];
    for (const { token, offset } of tokens(text)) {
      if (offset >= at) break;
      if (token === "[" || token === "{") open.push(offset);
      else if (token === "]" || token === "}") open.pop();
    }
    const bracket = open.at(-1);
    if (bracket === undefined) return undefined;
    const closing = text[bracket] === "[" ? "]" : "}";
    return {
      ...causeAt(text, bracket),
      message: `the ${text[bracket]} here is never closed by a ${closing}`,
    };
  }
  if (error.code === "BLOCK_AS_IMPLICIT_KEY" || error.code === "MULTILINE_IMPLICIT_KEY") {
    const lines = text.split("\n");
    const from = causeAt(text, at).line;
    const indent = (line: string) => line.length - line.trimStart().length;
    const base = indent(lines[from - 1] ?? "");
    for (let i = from; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
      if (indent(line) <= base) return undefined;
      return {
        line: i + 1,
        column: indent(line) + 1,
        message: "this line is indented more than the key above it (start each key where the others start)",
      };
    }
  }
  return undefined;
}
