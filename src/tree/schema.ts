import { grouped } from "../util/words.js";
import { FileProblem } from "./yaml-text.js";

/**
 * The one definition of the fields of coursesync.yaml, course.yaml and a chapter's front
 * matter: their keys in order, types, allowed values and limits. Parsing takes its known keys
 * and type checks from it, push, watch, status and check judge values by it, and the JSON
 * Schemas editors validate with are generated from it (json-schema.ts).
 */

/** Sizes the site is unlikely to accept, from `limits:` in coursesync.yaml. */
export interface Limits {
  /** Longest title of a course or chapter, in characters. @default 1000 */
  title_chars: number;
  /** Longest course excerpt, in characters. @default 10000 */
  excerpt_chars: number;
  /** Largest chapter body, in bytes of the HTML sent (UTF-8). @default 5000000 */
  body_bytes: number;
}

// A title is a line in a listing: 1,000 characters is several times any real one, and only a
// paste gone wrong reaches it. An excerpt is a paragraph or two: 10,000 leaves room for many.
// A chapter body of 5 MB of HTML is an embedded image or file, and web servers commonly refuse
// request bodies from 1 MB (nginx's default) to 10 MB.
/** The limits when coursesync.yaml sets none. */
export const DEFAULT_LIMITS: Readonly<Limits> = {
  title_chars: 1_000,
  excerpt_chars: 10_000,
  body_bytes: 5_000_000,
};

/** The keys `limits:` takes. */
export const LIMIT_KEYS = Object.keys(DEFAULT_LIMITS) as ReadonlyArray<keyof Limits>;

/** What one field holds. `nullable`: pull may write null there (the site sent none). */
export type FieldType =
  | { type: "id" }
  | { type: "text"; required?: true; nullable?: true; limit?: "title_chars" | "excerpt_chars" }
  | { type: "boolean"; nullable?: true }
  | { type: "datetime" }
  | { type: "enum"; values: readonly (string | null)[] }
  | { type: "integer"; min?: number; max?: number; required?: true }
  | { type: "number"; min: number; max: number; nullable?: true }
  | { type: "mirror" }
  | { type: "sites" }
  | { type: "patterns" }
  | { type: "limits" }
  | { type: "preview" };

/** One field: what it holds, and what it means (shown by editors). */
export type FieldDef = FieldType & { description: string };

/** The statuses a course.yaml may set, in the order of the API's codes (draft = 0, published = 1). */
export const STATUS_VALUES = ["draft", "published"] as const;

/** The fields of course.yaml, in the order pull writes them. */
export const COURSE_FIELDS = {
  id: {
    type: "id",
    description: "The course's id on the site. Leave it out for a new course: push writes it.",
  },
  title: { type: "text", required: true, limit: "title_chars", description: "The course's title." },
  status: {
    type: "enum",
    values: STATUS_VALUES,
    description:
      "draft or published (a new course without it is a draft). Another status the site reported is kept but cannot be set.",
  },
  excerpt: {
    type: "text",
    nullable: true,
    limit: "excerpt_chars",
    description: "A short summary of the course.",
  },
  free: { type: "boolean", nullable: true, description: "Whether the course is free." },
  questions_enabled: { type: "boolean", nullable: true, description: "Whether students may ask questions." },
  scheduled_at: {
    type: "datetime",
    description: "When the course is published, e.g. 2026-03-01T09:00:00+01:00.",
  },
  published_at: {
    type: "datetime",
    description: "When the course was published, e.g. 2026-03-01T09:00:00+01:00.",
  },
} as const satisfies Record<string, FieldDef>;

/** The front matter fields of a chapter file, in the order pull writes them. */
export const CHAPTER_FIELDS = {
  id: {
    type: "id",
    description: "The chapter's id on the site. Leave it out for a new chapter: push writes it.",
  },
  title: { type: "text", required: true, limit: "title_chars", description: "The chapter's title." },
  ordinal: {
    type: "integer",
    required: true,
    description: "The chapter's place in its course; the file name's number prefix says the same.",
  },
  format: {
    type: "enum",
    values: ["markdown", "html", "json", null],
    description:
      "How the body is kept: Markdown (left out), the site's HTML verbatim (html), or HTML that UTF-8 cannot hold as one JSON string (json).",
  },
  content: {
    type: "mirror",
    description:
      "The site's content when it is not text (null, a number), mirrored as it is. Remove the line to write a body.",
  },
} as const satisfies Record<string, FieldDef>;

/** The fields of coursesync.yaml. */
export const CONFIG_FIELDS = {
  site: { type: "text", description: "The default site: one of the names under sites." },
  ids: {
    type: "text",
    description:
      "The site whose ids the files carry (default: the default site). Changing the default site never changes it; coursesync site move-ids does.",
  },
  sites: {
    type: "sites",
    description: "The sites this tree syncs with, by name, each with the url of its API.",
  },
  body: {
    type: "enum",
    values: ["markdown", "html"],
    description: "How chapter bodies are kept: markdown (where lossless) or html (the site's HTML verbatim).",
  },
  concurrency: { type: "integer", min: 1, max: 64, description: "Requests in flight at once (default 4)." },
  requests_per_second: {
    type: "number",
    min: 0.1,
    max: 10_000,
    nullable: true,
    description: "A cap on requests started per second; unset, only the server's 429s slow coursesync down.",
  },
  ignore: {
    type: "patterns",
    description: "gitignore-style patterns of files to leave alone, on top of editor junk.",
  },
  limits: { type: "limits", description: "What push refuses to send; each key optional." },
  preview: {
    type: "preview",
    description:
      "How coursesync preview shows chapters: the site's stylesheet and address; each key optional.",
  },
} as const satisfies Record<string, FieldDef>;

/** What each `preview:` key means. */
export const PREVIEW_DESCRIPTIONS = {
  stylesheet:
    "A stylesheet that styles chapter content as the site does: a file of the tree (a path relative to the tree's root) or an http(s) URL.",
  site_url:
    "The site's own address (http or https): relative links and images in chapter HTML resolve against it, as on the site.",
} as const;

/** What each `limits:` key means. */
export const LIMIT_DESCRIPTIONS: Record<keyof Limits, string> = {
  title_chars: "A course's or chapter's title, in characters.",
  excerpt_chars: "A course's excerpt, in characters.",
  body_bytes: "A chapter body, in bytes of the HTML sent (UTF-8).",
};

/** How a value push sends is checked beyond its type. */
type FieldRule =
  | { type: "text"; limit?: "title_chars" | "excerpt_chars" }
  | { type: "datetime" }
  | { type: "body" };

/** The text fields of a record file, with their rules: those of type text or datetime. */
function textRules(fields: Record<string, FieldDef>): Record<string, FieldRule> {
  const rules: Record<string, FieldRule> = {};
  for (const [key, def] of Object.entries(fields)) {
    if (def.type === "text") rules[key] = def.limit ? { type: "text", limit: def.limit } : { type: "text" };
    else if (def.type === "datetime") rules[key] = { type: "datetime" };
  }
  return rules;
}

/** The text fields of course.yaml and of a chapter file (and its body), and their rules. */
export const FIELD_RULES: Record<"course" | "chapter", Record<string, FieldRule>> = {
  course: textRules(COURSE_FIELDS),
  chapter: { ...textRules(CHAPTER_FIELDS), body: { type: "body" } },
};

/**
 * A course status the API cannot take: any text but draft and published, unless it is the
 * site's own (`base`, as the last sync saw it), which is kept but never set.
 */
export function statusProblem(
  file: string,
  status: unknown,
  base: unknown,
  line: number | undefined,
): FileProblem | undefined {
  if (status === base || (STATUS_VALUES as readonly unknown[]).includes(status)) return undefined;
  return new FileProblem(
    file,
    line,
    `status must be draft or published, not ${JSON.stringify(status)}`,
    typeof base === "string" && !(STATUS_VALUES as readonly string[]).includes(base)
      ? `The site reported "${base}", which can be kept but not set.`
      : undefined,
    { rule: "status" },
  );
}

/** A date-time in the form the site writes its own (`created_at`). */
const DATETIME_EXAMPLE = "2026-03-01T09:00:00+01:00";

/** The form of a date-time the site takes (see `dateTimeProblem` for the calendar's rules). */
export const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/**
 * What is wrong with a date-time value, or undefined when it is one: ISO 8601 with seconds,
 * optional fractional seconds, and a numeric UTC offset or Z. Empty means "not set".
 */
export function dateTimeProblem(text: string): string | undefined {
  if (text === "") return undefined;
  const match = DATETIME.exec(text);
  if (!match) {
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return "is a date without a time and UTC offset";
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) return "has no UTC offset";
    return "is not a date and time in the form the site uses";
  }
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = [1, 2, 3, 4, 5, 6, 9, 10].map(
    (i) => Number(match[i] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return "is not a day of the calendar";
  if (hour > 23 || minute > 59 || second > 59) return "is not a time of day";
  if (offsetHour > 23 || offsetMinute > 59) return "has an offset that is not one";
  return undefined;
}

/** The characters no text sent may hold: C0 controls but tab, LF and CR, and DEL. */
export const REFUSED_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * Where a text holds a character the site cannot store as text: a C0 control other than
 * tab, LF and CR, or DEL. None has a meaning in a title or in HTML (the HTML parser reports
 * each as an error), none shows in an editor, and NUL ends strings in C and in PostgreSQL.
 */
export function refusedCharAt(text: string): number | undefined {
  const at = text.search(REFUSED_CHAR);
  return at < 0 ? undefined : at;
}

function charName(char: string): string {
  const code = char.charCodeAt(0);
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return code === 0 ? `${hex} (NUL)` : code === 0x7f ? `${hex} (DEL)` : hex;
}

/** One value a file sets, where it stands, and (for a body) what is sent for it. */
export interface FieldValue {
  text: string;
  /** The line of its key, or for a body the line it starts on. */
  line: number | undefined;
  /** The HTML sent for a body (a Markdown body's rendering), when it differs from the text. */
  sent?: string;
}

const number = grouped;

function sizeProblem(field: string, rule: FieldRule, value: FieldValue, limits: Limits) {
  if (rule.type === "body") {
    const bytes = Buffer.byteLength(value.sent ?? value.text, "utf8");
    if (bytes <= limits.body_bytes) return undefined;
    return {
      problem: `the body is ${number(bytes)} bytes as HTML, over the limit of ${number(limits.body_bytes)}`,
      hint: "Move large embedded images or files out of the body and link to them, or raise limits.body_bytes in coursesync.yaml if your site takes larger bodies.",
    };
  }
  if (rule.type !== "text" || !rule.limit) return undefined;
  const chars = [...value.text].length;
  if (chars <= limits[rule.limit]) return undefined;
  return {
    problem: `${field} is ${number(chars)} characters long, over the limit of ${number(limits[rule.limit])}`,
    hint: `Shorten it, or raise limits.${rule.limit} in coursesync.yaml if your site takes longer ones.`,
  };
}

/** The line of the character at `at` in a body that starts on `line`. */
function lineWithin(text: string, at: number, line: number | undefined): number | undefined {
  if (line === undefined) return undefined;
  let n = line;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** A refused character in a value (or only in the HTML sent for it), with its line. */
function charProblem(
  file: string,
  field: string,
  rule: FieldRule,
  value: FieldValue,
): FileProblem | undefined {
  const inText = refusedCharAt(value.text);
  const inSent = inText === undefined && value.sent !== undefined ? refusedCharAt(value.sent) : undefined;
  const char =
    inText !== undefined ? value.text[inText] : inSent !== undefined ? value.sent?.[inSent] : undefined;
  if (char === undefined) return undefined;
  const isBody = rule.type === "body";
  const inBody = isBody && inText !== undefined;
  return new FileProblem(
    file,
    inBody ? lineWithin(value.text, inText, value.line) : value.line,
    `${isBody ? "the body" : field} holds the control character ${charName(char)}, which the site cannot store as text`,
    "Remove it (an editor may show it as a box or ^@; a quoted YAML escape such as \\0 or \\x01 makes one too). Only tab and line breaks are allowed.",
    { rule: "control-char", column: inBody ? inText - value.text.lastIndexOf("\n", inText - 1) : undefined },
  );
}

/** A date-time value not in the form the site takes, with the form and an example. */
function dateProblem(file: string, field: string, value: FieldValue): FileProblem | undefined {
  const problem = dateTimeProblem(value.text);
  if (problem === undefined) return undefined;
  return new FileProblem(
    file,
    value.line,
    `${field} ${JSON.stringify(value.text)} ${problem}: write it like ${DATETIME_EXAMPLE}`,
    "An ISO 8601 date and time with seconds and a UTC offset (+01:00, -05:00, or Z for UTC), or nothing after the colon for none.",
    { rule: "datetime" },
  );
}

/** Every problem of one value a file sets: a refused character, its size, its date form. */
export function fieldProblems(
  file: string,
  kind: "course" | "chapter",
  field: string,
  value: FieldValue,
  limits: Limits,
): FileProblem[] {
  const rule: FieldRule | undefined = FIELD_RULES[kind][field];
  if (!rule) return [];
  const char = charProblem(file, field, rule, value);
  const size = sizeProblem(field, rule, value, limits);
  // A value holding a control character is no date either: that one problem says so.
  const date = rule.type === "datetime" && !char ? dateProblem(file, field, value) : undefined;
  return [
    char,
    size && new FileProblem(file, value.line, size.problem, size.hint, { rule: "size" }),
    date,
  ].filter((problem): problem is FileProblem => problem !== undefined);
}
