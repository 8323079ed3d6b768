import { Document, isMap, isScalar, LineCounter, parseDocument, type Scalar } from "yaml";
import { yamlErrorCause } from "./yaml-cause.js";

/**
 * What kind of problem a file has: a stable id that `coursesync check --json` reports and
 * scripts may match on (see the list in docs/check.md).
 */
export type Rule =
  | "yaml-syntax"
  | "front-matter"
  | "unknown-key"
  | "type"
  | "required"
  | "status"
  | "datetime"
  | "control-char"
  | "size"
  | "content"
  | "id"
  | "removed-id"
  | "unknown-id"
  | "duplicate-id"
  | "conflict-markers"
  | "outside-course"
  | "ordinal-prefix"
  | "ignored-extension"
  | "encoding"
  | "layout";

/** Where in a file a problem is and what kind it is, beyond its line. */
export interface ProblemDetail {
  rule?: Rule;
  /** The column (1-based) on `line`, when known. */
  column?: number | undefined;
}

/** A problem in a file the user wrote: names the file, the line when known, and what to do. */
export class FileProblem extends Error {
  override readonly name = "FileProblem";
  /** The kind of problem; "layout" unless the maker says otherwise. */
  readonly rule: Rule;
  readonly column: number | undefined;
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly problem: string,
    readonly hint?: string,
    detail: ProblemDetail = {},
  ) {
    super(`${file}${line === undefined ? "" : `:${line}`}: ${problem}`);
    this.rule = detail.rule ?? "layout";
    this.column = line === undefined ? undefined : detail.column;
  }
}

/**
 * A problem with one field's value (its type), found by parsing. It counts only where the
 * value differs from the last sync's: what the site itself sent is mirrored as it is.
 */
export class FieldProblem extends FileProblem {
  constructor(
    problem: FileProblem,
    readonly field: string,
    readonly value: unknown,
  ) {
    super(problem.file, problem.line, problem.problem, problem.hint, problem);
  }
}

/** Run a check of one field's value; its FileProblem becomes a FieldProblem in `into`. */
export function deferCheck(into: FieldProblem[], field: string, value: unknown, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error;
    into.push(new FieldProblem(error, field, value));
  }
}

/** The file line each key of a record file stands on (`body`: the line a chapter body starts on). */
export type FieldLines = Record<string, number>;

/** The fields of a YAML mapping with the line each key stands on. */
export interface ParsedMapping {
  values: Record<string, unknown>;
  lines: FieldLines;
  /** The column each key starts at. */
  columns: FieldLines;
}

/** A YAML parser error as a FileProblem at its line and column (shifted by `firstLine`). */
function syntaxProblem(
  error: {
    code?: string;
    message: string;
    pos?: [number, number];
    linePos?: [{ line: number; col: number }, ...unknown[]];
  },
  file: string,
  firstLine: number,
  hint?: string,
  text?: string,
): FileProblem {
  const at = error.linePos?.[0];
  if (error.code === "DUPLICATE_KEY" && at !== undefined && text !== undefined) {
    // The hint on quoting helps no one here: say which key it is.
    const key = /^\s*([^:#]+?)\s*:/.exec(text.split("\n")[at.line - 1] ?? "")?.[1];
    return new FileProblem(
      file,
      at.line + firstLine - 1,
      `${key === undefined ? "a key" : `the key "${key}"`} is set more than once`,
      "Keep one line for each key.",
      { rule: "yaml-syntax", column: at.col },
    );
  }
  // Where the parser gave up can be lines below the cause (a quote left open): name the cause.
  const cause = text === undefined ? undefined : yamlErrorCause(text, error);
  const line = cause?.line ?? at?.line;
  return new FileProblem(
    file,
    line === undefined ? undefined : line + firstLine - 1,
    `YAML does not parse: ${cause?.message ?? error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}`,
    hint,
    { rule: "yaml-syntax", column: cause?.column ?? at?.col },
  );
}

const SYNTAX_HINT = "Fix the YAML syntax (quote values that hold ': ' or start with a special character).";

/**
 * Parse YAML text as one mapping with the YAML 1.2 core schema, so datetimes stay strings
 * byte for byte. `firstLine` is the file line the text starts on, for error positions. Every
 * problem is collected: the mapping is undefined when the text does not parse as one.
 */
export function readYamlMapping(
  text: string,
  file: string,
  firstLine = 1,
): { mapping: ParsedMapping | undefined; problems: FileProblem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { schema: "core", lineCounter, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      mapping: undefined,
      // One problem a line: a bad indent is two errors of the parser at the same cause.
      problems: doc.errors
        .map((error) => syntaxProblem(error, file, firstLine, SYNTAX_HINT, text))
        .filter(
          (problem, i, all) =>
            problem.line === undefined || all.findIndex((p) => p.line === problem.line) === i,
        ),
    };
  }
  const values: Record<string, unknown> = {};
  const lines: Record<string, number> = {};
  const columns: Record<string, number> = {};
  if (doc.contents === null) return { mapping: { values, lines, columns }, problems: [] };
  if (!isMap(doc.contents)) {
    const problem = new FileProblem(file, firstLine, "expected a mapping of keys to values", undefined, {
      rule: "yaml-syntax",
    });
    return { mapping: undefined, problems: [problem] };
  }
  const problems: FileProblem[] = [];
  const where = (pos: number | undefined) => {
    if (pos === undefined) return { line: undefined, column: undefined };
    const { line, col } = lineCounter.linePos(pos);
    return { line: line + firstLine - 1, column: col };
  };
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? (pair.key as Scalar).value : undefined;
    const at = where(isScalar(pair.key) ? (pair.key as Scalar).range?.[0] : undefined);
    if (typeof key !== "string") {
      problems.push(
        new FileProblem(file, at.line, "every key must be a plain string", undefined, {
          rule: "unknown-key",
          column: at.column,
        }),
      );
      continue;
    }
    lines[key] = at.line ?? firstLine;
    columns[key] = at.column ?? 1;
    const node = doc.get(key, true);
    values[key] = node === undefined || node === null ? null : (node as { toJSON(): unknown }).toJSON();
  }
  return { mapping: { values, lines, columns }, problems };
}

/**
 * Serialize an ordered list of fields as YAML: keys in the given order, no line folding, LF,
 * strings quoted only where YAML needs it (lone surrogates come out escaped, never replaced).
 */
export function stringifyYamlFields(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const plain = plainYamlFields(fields);
  if (plain !== undefined) return plain;
  const doc = new Document(Object.fromEntries(fields), { schema: "core" });
  return doc.toString({ lineWidth: 0, minContentWidth: 0 });
}

/** A key the YAML library writes as it is. */
const PLAIN_KEY = /^[a-z_][a-z0-9_]*$/;
/** Text the YAML library writes unquoted: a letter first, no indicator, no space at the end. */
const PLAIN_TEXT = /^[A-Za-z](?:[A-Za-z0-9 ,.()'!?&/+-]*[A-Za-z0-9,.()'!?&/+-])?$/;
/** Characters the library escapes in double quotes whatever else the text holds. */
const FORCE_DOUBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** One line the library cannot write plain (its own test, for text without a line break). */
const NOT_PLAIN = /^[\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|:[ \t]|[\t ]#|[\t :]$/;
/** Plain text the core schema reads as something else (its tags' tests): the library quotes it. */
const CORE_TYPED =
  /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+)?$/;
/** What the library writes as a short escape in double quotes, for \uXXXX in JSON. */
const SHORT_ESCAPES: Record<string, string> = {
  "0000": "\\0",
  "0007": "\\a",
  "000b": "\\v",
  "001b": "\\e",
  "0085": "\\N",
  "00a0": "\\_",
  "2028": "\\L",
  "2029": "\\P",
};

/**
 * A text of one line as the library writes it as a value of a top-level key (no folding,
 * core schema): plain where it can be, else quoted as it quotes it; undefined for a text it
 * writes otherwise (a line break, a document marker at the start).
 */
function oneLineYaml(value: string): string | undefined {
  // Such text the core schema reads as something else (true, false, null) is quoted below.
  if (PLAIN_TEXT.test(value) && !CORE_TYPED.test(value)) return value;
  if (value.includes("\n")) return undefined;
  if (FORCE_DOUBLE.test(value)) return doubleQuoted(value);
  if (!NOT_PLAIN.test(value)) {
    // A plain text that starts like a document marker is written as a block.
    if (value.startsWith("---") || value.startsWith("...")) return undefined;
    if (!CORE_TYPED.test(value)) return value;
  }
  // Single quotes for a text with double quotes and no single one, as the library chooses.
  if (value.includes('"') && !value.includes("'")) return `'${value}'`;
  return doubleQuoted(value);
}

/** A text without line breaks in the library's double quotes: JSON's, with YAML's short escapes. */
function doubleQuoted(value: string): string {
  return JSON.stringify(value).replace(/\\(?:u([0-9a-f]{4})|.)/g, (written, code: string | undefined) => {
    if (code === undefined) return written;
    return SHORT_ESCAPES[code] ?? (code.startsWith("00") ? `\\x${code.slice(2)}` : written);
  });
}

/**
 * The fields as the YAML library writes them, written here when every one is of the common
 * kinds (a whole number, a boolean, null, text of one line): a document per file cost a pull
 * of 2,000 chapters a third of a second, and a page of 25 courses 30-50 ms of the main thread.
 * Undefined when any field is of another kind (the library writes those); the unit tests hold
 * both ways to the same bytes.
 */
function plainYamlFields(fields: ReadonlyArray<readonly [string, unknown]>): string | undefined {
  if (fields.length === 0) return undefined;
  let text = "";
  const keys = new Set<string>();
  for (const [key, value] of fields) {
    if (!PLAIN_KEY.test(key) || key === "__proto__" || keys.has(key)) return undefined;
    keys.add(key);
    if (value === null || typeof value === "boolean") text += `${key}: ${value}\n`;
    else if (typeof value === "number" && Number.isSafeInteger(value) && !Object.is(value, -0))
      text += `${key}: ${value}\n`;
    else if (typeof value === "string") {
      const written = oneLineYaml(value);
      if (written === undefined) return undefined;
      text += `${key}: ${written}\n`;
    } else return undefined;
  }
  return text;
}

/** A parsed YAML document as plain data, with a way to find the line of any path in it. */
export interface ParsedYaml {
  value: unknown;
  lineOf(path: ReadonlyArray<string | number>): number | undefined;
}

/** Parse a whole YAML document (core schema) for configuration files, keeping line lookups. */
export function parseYamlDocument(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const source = (text.startsWith("\uFEFF") ? text.slice(1) : text).replace(/\r\n/g, "\n");
  const doc = parseDocument(source, { schema: "core", lineCounter, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) throw syntaxProblem(error, file, 1, undefined, source);
  return {
    value: doc.toJS(),
    lineOf(path) {
      for (let depth = path.length; depth > 0; depth--) {
        const node = doc.getIn(path.slice(0, depth), true) as
          | { range?: [number, number, number] }
          | undefined;
        const start = node?.range?.[0];
        if (start !== undefined) return lineCounter.linePos(start).line;
      }
      return undefined;
    },
  };
}

/** A record file's `id`: a positive whole number, or none (a record still to create). */
export function checkedId(id: unknown, file: string, line: number | undefined): number | undefined {
  if (id === undefined || id === null) return undefined;
  if (!(Number.isInteger(id) && (id as number) > 0)) {
    throw new FileProblem(
      file,
      line,
      `id must be a positive whole number, not ${JSON.stringify(id)}`,
      undefined,
      {
        rule: "id",
      },
    );
  }
  return id as number;
}

/**
 * A record file's `title`: text that is not blank. A bare number or yes/no is YAML for
 * something else, so it is named as such with the quoting that fixes it.
 */
export function checkedTitle(
  title: unknown,
  file: string,
  line: number | undefined,
  missingLine: number,
  hint: string,
): string {
  if (typeof title === "number" || typeof title === "boolean") {
    throw new FileProblem(
      file,
      line,
      `title must be text, not the ${typeof title} ${title}`,
      `Quote it: title: "${title}"`,
      { rule: "type" },
    );
  }
  if (typeof title !== "string" || title.trim() === "") {
    throw new FileProblem(file, line ?? missingLine, "title is missing or blank", hint, { rule: "required" });
  }
  return title;
}

/** Every key of a record file must be one it holds: each that is not, named with its line. */
export function unknownKeys(
  parsed: ParsedMapping,
  known: readonly string[],
  file: string,
  problem: (key: string) => string,
  hint: string,
): FileProblem[] {
  return Object.keys(parsed.values)
    .filter((key) => !known.includes(key))
    .map(
      (key) =>
        new FileProblem(file, parsed.lines[key], problem(key), hint, {
          rule: "unknown-key",
          column: parsed.columns[key],
        }),
    );
}

/**
 * A record file's values, or its first problem thrown; strict, a value of another type than
 * the API's is a problem too.
 */
export function strictly<T>(
  read: { problems: readonly FileProblem[]; deferred: readonly FieldProblem[] },
  value: T | undefined,
  strict = false,
): T {
  const problem = read.problems[0] ?? (strict ? read.deferred[0] : undefined);
  if (problem || value === undefined) throw problem;
  return value;
}
