import { stringifyYamlFields } from "./yaml-text.js";

// A chapter file's shape and its text as the sync writes it (chapter-file.ts reads it back).

/**
 * The body format of a chapter file: Markdown (the default), the site's HTML verbatim, or —
 * only for HTML that UTF-8 cannot hold (a lone surrogate) — that HTML as one JSON string.
 */
export type BodyFormat = "markdown" | "html" | "json";

/**
 * A chapter file as the author sees it: front matter fields plus the body text. Title and
 * ordinal are as written (a value of another type, mirrored from the site, is kept and its
 * problem deferred); `content` holds the site's content when it is not text (null, a number),
 * shown in the front matter instead of a body.
 */
export interface ChapterFile {
  id: number | undefined;
  title: unknown;
  ordinal: unknown;
  format: BodyFormat;
  body: string;
  content?: { literal: unknown } | undefined;
}

/** Serialize a chapter file: front matter in fixed key order, LF, a trailing newline. */
export function serializeChapterFile(chapter: ChapterFile): string {
  const fields: Array<[string, unknown]> = [];
  if (chapter.id !== undefined) fields.push(["id", chapter.id]);
  fields.push(["title", chapter.title], ["ordinal", chapter.ordinal]);
  if (chapter.format !== "markdown") fields.push(["format", chapter.format]);
  if (chapter.content) fields.push(["content", chapter.content.literal]);
  return `---\n${stringifyYamlFields(fields)}---\n${chapter.body}\n`;
}
