import { Document, isMap, isScalar, LineCounter, parseDocument, type Scalar } from "yaml";

/** A problem in a file the user wrote: names the file, the line when known, and what to do. */
export class FileProblem extends Error {
  override readonly name = "FileProblem";
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly problem: string,
    readonly hint?: string,
  ) {
    super(`${file}${line === undefined ? "" : `:${line}`}: ${problem}`);
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
    super(problem.file, problem.line, problem.problem, problem.hint);
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
}

/**
 * Parse YAML text as one mapping with the YAML 1.2 core schema, so datetimes stay strings
 * byte for byte. `firstLine` is the file line the text starts on, for error positions.
 */
export function parseYamlMapping(text: string, file: string, firstLine = 1): ParsedMapping {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { schema: "core", lineCounter, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line;
    throw new FileProblem(
      file,
      line === undefined ? undefined : line + firstLine - 1,
      `YAML does not parse: ${error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}`,
      "Fix the YAML syntax (quote values that hold ': ' or start with a special character).",
    );
  }
  const values: Record<string, unknown> = {};
  const lines: Record<string, number> = {};
  if (doc.contents === null) return { values, lines };
  if (!isMap(doc.contents)) {
    throw new FileProblem(file, firstLine, "expected a mapping of keys to values");
  }
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? (pair.key as Scalar).value : undefined;
    if (typeof key !== "string") {
      const pos = pair.key && isScalar(pair.key) ? (pair.key as Scalar).range?.[0] : undefined;
      throw new FileProblem(
        file,
        pos === undefined ? undefined : lineCounter.linePos(pos).line + firstLine - 1,
        "every key must be a plain string",
      );
    }
    const start = (pair.key as Scalar).range?.[0];
    lines[key] = start === undefined ? firstLine : lineCounter.linePos(start).line + firstLine - 1;
    const node = doc.get(key, true);
    values[key] = node === undefined || node === null ? null : (node as { toJSON(): unknown }).toJSON();
  }
  return { values, lines };
}

/**
 * Serialize an ordered list of fields as YAML: keys in the given order, no line folding, LF,
 * strings quoted only where YAML needs it (lone surrogates come out escaped, never replaced).
 */
export function stringifyYamlFields(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const doc = new Document(Object.fromEntries(fields), { schema: "core" });
  return doc.toString({ lineWidth: 0, minContentWidth: 0 });
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
  if (error) {
    throw new FileProblem(
      file,
      error.linePos?.[0]?.line,
      `YAML does not parse: ${error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}`,
    );
  }
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
    throw new FileProblem(file, line, `id must be a positive whole number, not ${JSON.stringify(id)}`);
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
    );
  }
  if (typeof title !== "string" || title.trim() === "") {
    throw new FileProblem(file, line ?? missingLine, "title is missing or blank", hint);
  }
  return title;
}

/** Every key of a record file must be one it holds: the first that is not, named with its line. */
export function checkKnownKeys(
  parsed: ParsedMapping,
  known: readonly string[],
  file: string,
  problem: (key: string) => string,
  hint: string,
): void {
  for (const key of Object.keys(parsed.values)) {
    if (!known.includes(key)) throw new FileProblem(file, parsed.lines[key], problem(key), hint);
  }
}

/** A record file's parse, strict or not: strict, the first value of another type than the API's is an error. */
export function strictly<T>(parsed: { deferred: readonly FieldProblem[] }, value: T, strict = false): T {
  if (strict && parsed.deferred[0]) throw parsed.deferred[0];
  return value;
}
