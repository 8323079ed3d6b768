import slugify from "slugify";

/** Longest slug kept in a file or folder name; longer titles are cut at a word boundary. */
export const MAX_SLUG_LENGTH = 60;

// Names Windows will not open whatever the extension; a folder so named gets its id appended.
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/;

/**
 * A name that is safe as one path segment on every platform: lowercase ASCII letters, digits
 * and single dashes, no leading dot, never empty, never reserved. `fallback` is used when
 * nothing of the text survives (emoji, CJK without transliteration).
 */
export function safeSlug(text: string, fallback: string): string {
  let slug = asciiSlug(text) ?? librarySlug(text);
  if (slug.length > MAX_SLUG_LENGTH) {
    const cut = slug.slice(0, MAX_SLUG_LENGTH + 1);
    const dash = cut.lastIndexOf("-");
    slug = (dash > MAX_SLUG_LENGTH / 2 ? cut.slice(0, dash) : cut.slice(0, MAX_SLUG_LENGTH)).replace(
      /-$/,
      "",
    );
  }
  if (slug === "" || RESERVED.test(slug)) return slug === "" ? fallback : `${slug}-${fallback}`;
  return slug;
}

/** Text asciiSlug writes as slugify would: a word break or a dropped sign between the words. */
const SIMPLE_TITLE = /^[A-Za-z0-9 /\\_.:!'(),?"*+~@#;=[\]{}^`-]*$/;
/** What slugify drops from such text (strict). */
const DROPPED = /[!'(),?"*+~@#;=[\]{}^`]+/g;
/** What becomes one dash: spaces, dashes and the separators safeSlug turns into spaces. */
const BREAKS = /[ /\\_.:-]+/g;

/**
 * The slug of a text of letters, digits, spaces and punctuation slugify only drops, made
 * without it: its char-by-char pass cost a pull of 2,000 chapters 50 ms of the main thread.
 * Undefined for any other text (slugify maps `$ % & < > |` to words and transliterates the
 * rest); the unit tests hold both ways to the same names.
 */
function asciiSlug(text: string): string | undefined {
  if (!SIMPLE_TITLE.test(text)) return undefined;
  // slugify drops the punctuation, and reads a dash (its separator) and the separators
  // replaced below as spaces.
  return text.replace(DROPPED, "").replace(BREAKS, "-").replace(/^-|-$/g, "").toLowerCase();
}

/** The slug slugify makes of a text, trimmed to what a path segment takes. */
function librarySlug(text: string): string {
  // slugify transliterates accents, Cyrillic, Greek and symbols from its char map; separators
  // it would drop silently become word breaks first.
  return slugify(text.replace(/[/\\_.:]+/g, " "), { lower: true, strict: true, trim: true })
    .replace(/[^a-z0-9-]/g, "")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
}

/** A title as the text a name is made from: a title that is not text (null, a number) names nothing. */
function titleText(title: unknown): string {
  return typeof title === "string" ? title : "";
}

/** The folder name a course asks for: the server's slug when it sent one, else its title's. */
export function courseFolderBase(course: { id: number | undefined; title: unknown; slug?: unknown }): string {
  const fallback = course.id === undefined ? "course" : `course-${course.id}`;
  const source =
    typeof course.slug === "string" && course.slug.trim() !== "" ? course.slug : titleText(course.title);
  return safeSlug(source, fallback);
}

/** An ordinal as a number for names: the site's own when it is one, a numeric text's, else 0. */
export function ordinalNumber(ordinal: unknown): number {
  const value = typeof ordinal === "number" ? ordinal : typeof ordinal === "string" ? Number(ordinal) : 0;
  return Number.isFinite(value) ? value : 0;
}

/** The number prefix of a chapter file: the ordinal, zero-padded to `width` digits. */
export function ordinalPrefix(ordinal: unknown, width: number): string {
  // The API promises whole numbers; anything else still gets a plain numeric prefix.
  const whole = Math.trunc(ordinalNumber(ordinal));
  const digits = String(Math.abs(whole)).padStart(width, "0");
  return whole < 0 ? `n${digits}` : digits;
}

/** The digits every chapter prefix in a course uses: at least 2, more for 100+ chapters. */
export function ordinalWidth(ordinals: readonly number[]): number {
  // A loop, not Math.max(...): a course can hold more chapters than a call takes arguments.
  let width = 2;
  for (const o of ordinals)
    width = Math.max(width, String(Math.abs(Number.isFinite(o) ? Math.trunc(o) : 0)).length);
  return width;
}

/** The file name a chapter asks for, before collisions: `NN-<slug>.md`. */
export function chapterFileBase(
  chapter: { id: number | undefined; title: unknown; ordinal: unknown },
  width: number,
) {
  const fallback = chapter.id === undefined ? "chapter" : `chapter-${chapter.id}`;
  return `${ordinalPrefix(chapter.ordinal, width)}-${safeSlug(titleText(chapter.title), fallback)}`;
}

/** One entity asking for a name: its id, the name it asks for, and the name it has now. */
export interface NameRequest {
  id: number;
  wanted: string;
  current?: string | undefined;
}

/**
 * Give each entity a unique name, keeping names stable: an entity that already holds the name
 * it asks for keeps it; the others take theirs in id order, and a taken name gets `-<id>`.
 * Names compare case-insensitively, for case-insensitive file systems.
 */
export function assignNames(requests: readonly NameRequest[]): Map<number, string> {
  const taken = new Set<string>();
  const result = new Map<number, string>();
  const sorted = [...requests].sort((a, b) => a.id - b.id);
  for (const request of sorted) {
    if (
      request.current !== undefined &&
      request.current === request.wanted &&
      !taken.has(request.wanted.toLowerCase())
    ) {
      taken.add(request.wanted.toLowerCase());
      result.set(request.id, request.wanted);
    }
  }
  for (const request of sorted) {
    if (result.has(request.id)) continue;
    // A name that collides keeps a stable suffixed form only if it already had it.
    let name = request.wanted;
    if (taken.has(name.toLowerCase())) name = `${request.wanted}-${request.id}`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${request.wanted}-${request.id}-${n}`;
    taken.add(name.toLowerCase());
    result.set(request.id, name);
  }
  return result;
}
