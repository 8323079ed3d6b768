import type { BodyFormat, ChapterFile } from "./chapter-text.js";
import { CHAPTER_FIELDS } from "./schema.js";
import {
  checkedId,
  checkedTitle,
  deferCheck,
  type FieldLines,
  type FieldProblem,
  FileProblem,
  readYamlMapping,
  strictly,
  unknownKeys,
} from "./yaml-text.js";

// The file's shape and its writing, apart from reading it (which needs the YAML parser): a
// thread that only writes files loads none of it.
export { type BodyFormat, type ChapterFile, serializeChapterFile } from "./chapter-text.js";

/** The front matter keys, in the order they are written (from the one field definition). */
const CHAPTER_KEYS = Object.keys(CHAPTER_FIELDS);

// The file is split as gray-matter splits it (the front matter ends at the first "\n---"; the
// body starts after that line's break), without loading it and its YAML parser: the YAML is
// parsed by the `yaml` package (core schema) so datetimes and numbers-as-text stay what they
// were, and errors carry file lines.

/**
 * Split a Markdown file into its front matter text (starting on file line 2) and body, with
 * the file line the body starts on.
 */
export function splitFrontMatter(
  text: string,
  file: string,
): { frontMatter: string; body: string; bodyLine: number } {
  let source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (source.startsWith("---\r\n")) source = source.replace(/\r\n/g, "\n");
  if (!source.startsWith("---\n") && source !== "---") {
    throw new FileProblem(
      file,
      1,
      "the file must start with front matter: a line '---', the fields, and another '---'",
      undefined,
      { rule: "front-matter" },
    );
  }
  if (!/\n---[ \t]*(\n|$)/.test(source.slice(3))) {
    throw new FileProblem(
      file,
      1,
      "the front matter is not closed: add a line '---' after the fields",
      undefined,
      { rule: "front-matter" },
    );
  }
  const { matter, content } = splitAtClose(source.slice(3));
  // The body is written with one trailing LF added; take exactly that one back off.
  const body = content.endsWith("\n") ? content.slice(0, -1) : content;
  const before = source.slice(0, source.length - content.length);
  const bodyLine = before.split("\n").length;
  return { frontMatter: matter.replace(/^\n/, ""), body, bodyLine };
}

/** After the opening "---": the front matter up to the first "\n---", and what follows that line's break. */
function splitAtClose(rest: string): { matter: string; content: string } {
  const close = rest.indexOf("\n---");
  if (close === -1) return { matter: rest, content: "" };
  let content = rest.slice(close + 4);
  if (content.startsWith("\r")) content = content.slice(1);
  if (content.startsWith("\n")) content = content.slice(1);
  return { matter: rest.slice(0, close), content };
}

/**
 * Parse and validate a chapter file; with `strict`, every value must also be of the API's type.
 * Throws FileProblem naming the file and line.
 */
export function parseChapterFile(
  text: string,
  file: string,
  options: { strict?: boolean } = {},
): ChapterFile {
  const read = readChapterFile(text, file);
  return strictly(read, read.chapter, options.strict);
}

/** A chapter file as read: its values (when the front matter parses) and every problem found. */
export interface ReadChapterFile {
  /** The values, even when `problems` holds some (for checking every problem at once). */
  chapter: ChapterFile | undefined;
  lines: FieldLines;
  /** Problems of values that count only where the value is not the site's. */
  deferred: FieldProblem[];
  /** Problems that make the file invalid whatever the site has. */
  problems: FileProblem[];
}

/** Run a check that throws a FileProblem; collect it into `problems` instead. */
function collect<T>(problems: FileProblem[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error;
    problems.push(error);
    return undefined;
  }
}

/**
 * Read a chapter file, collecting every problem instead of stopping at the first. A title or
 * ordinal of another type than the API's, and a `content:` line, are kept, each with its
 * problem in `deferred`: it counts only if the value is not the site's.
 */
export function readChapterFile(text: string, file: string): ReadChapterFile {
  const problems: FileProblem[] = [];
  const split = collect(problems, () => splitFrontMatter(text, file));
  if (!split) return { chapter: undefined, lines: {}, deferred: [], problems };
  const { frontMatter, body, bodyLine } = split;
  const read = readYamlMapping(frontMatter, file, 2);
  problems.push(...read.problems);
  const { mapping } = read;
  if (!mapping) return { chapter: undefined, lines: { body: bodyLine }, deferred: [], problems };
  const { values, lines } = mapping;
  problems.push(
    ...unknownKeys(
      mapping,
      CHAPTER_KEYS,
      file,
      (key) => `unknown front matter key "${key}"`,
      `A chapter's front matter holds only ${CHAPTER_KEYS.join(", ")}.`,
    ),
  );
  const { format } = values;
  const id = collect(problems, () => checkedId(values.id, file, lines.id));
  const title = values.title ?? null;
  const ordinal = values.ordinal ?? null;
  const deferred: FieldProblem[] = [];
  deferCheck(deferred, "title", title, () =>
    checkedTitle(title, file, lines.title, 2, "Give the chapter a title."),
  );
  deferCheck(deferred, "ordinal", ordinal, () =>
    "ordinal" in values ? checkOrdinal(ordinal, file, lines.ordinal) : missingOrdinal(file, bodyLine - 1),
  );
  const content = "content" in values ? { literal: values.content } : undefined;
  if (content) {
    if (body !== "") {
      problems.push(
        new FileProblem(
          file,
          lines.content,
          "the file has both a body and a `content:` line",
          "`content:` shows the site's content when it is not text. To send the body, remove the `content:` line; to keep the site's value, remove the body.",
          { rule: "content" },
        ),
      );
    }
    deferCheck(deferred, "content", content, () => {
      throw new FileProblem(
        file,
        lines.content,
        `content: ${JSON.stringify(content.literal)} can only mirror what the site has; a chapter's content is its body`,
        "Remove the `content:` line and write the body below the front matter.",
        { rule: "content" },
      );
    });
  }
  if (format !== undefined && !(CHAPTER_FIELDS.format.values as readonly unknown[]).includes(format)) {
    problems.push(
      new FileProblem(
        file,
        lines.format,
        `format must be "html" or left out, not ${JSON.stringify(format)}`,
        undefined,
        { rule: "type" },
      ),
    );
  }
  const chapter: ChapterFile = {
    id,
    title,
    ordinal,
    format: format === "html" || format === "json" ? (format as BodyFormat) : "markdown",
    body,
    ...(content ? { content } : {}),
  };
  return { chapter, lines: { ...lines, body: bodyLine }, deferred, problems };
}

/**
 * A chapter without an `ordinal:` line, reported on the front matter's closing `---` where it
 * goes; the file name's number prefix (`03-intro.md`) is offered as the value.
 */
function missingOrdinal(file: string, closingLine: number): never {
  const prefix = /^(\d+)-/.exec(file.slice(file.lastIndexOf("/") + 1))?.[1];
  throw new FileProblem(
    file,
    closingLine,
    "ordinal is missing: a chapter needs its place in the course",
    prefix === undefined
      ? "Add a line such as `ordinal: 1` to the front matter."
      : `Add \`ordinal: ${Number(prefix)}\` to the front matter (the file name starts with ${prefix}-).`,
    { rule: "required" },
  );
}

function checkOrdinal(ordinal: unknown, file: string, line: number | undefined): void {
  if (!Number.isInteger(ordinal)) {
    throw new FileProblem(
      file,
      line ?? 2,
      `ordinal must be a whole number, not ${JSON.stringify(ordinal ?? null)}`,
      undefined,
      { rule: "type" },
    );
  }
  if (!Number.isSafeInteger(ordinal)) {
    throw new FileProblem(
      file,
      line,
      `ordinal ${ordinal} is too large to send exactly`,
      `Use a whole number up to ${Number.MAX_SAFE_INTEGER}.`,
      { rule: "type" },
    );
  }
}
