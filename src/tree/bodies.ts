import type { BodyFormat } from "./chapter-file.js";
import { FileProblem } from "./yaml-text.js";

/**
 * The body step: the one seam between a chapter's HTML `content` on the site and the body of
 * its file: Markdown where the conversion is proven lossless (`format: markdown`), otherwise the
 * HTML as it is (`format: html`), or JSON for HTML that UTF-8 cannot hold (`format: json`).
 */
export interface BodyCodec {
  /** How new bodies are written: Markdown where proven lossless, or always the HTML. */
  readonly mode: "markdown" | "html";
  /**
   * Made by `bodyCodec` (codecs.ts): its conversions follow from `mode` alone, so another
   * thread can make them with its own codec of that mode.
   */
  readonly standard?: boolean;
  /** The file body and its format for a chapter's HTML. */
  fromHtml(html: string): { body: string; format: BodyFormat };
  /** The HTML a file body stands for; throws FileProblem when it cannot be read. */
  toHtml(body: string, format: BodyFormat, file: string): string;
  /**
   * Whether two HTML texts say the same (DESIGN 5's gate), for bodies written as Markdown:
   * their HTML is never byte-equal to the site's, only equivalent.
   */
  equivalent?(a: string, b: string): boolean;
  /**
   * Take `body` (Markdown) as the file body of this HTML for the rest of the run: a merged
   * chapter's file keeps its author's spelling, not the converter's, for the HTML it renders to.
   */
  keep?(html: string, body: string): void;
}

/**
 * HTML holding a lone surrogate (a JSON string can, UTF-8 cannot) is kept exact as one JSON
 * string (`format: json`) instead of being silently replaced by U+FFFD on write.
 */
export function exactBody(html: string): { body: string; format: BodyFormat } | undefined {
  return html.isWellFormed() ? undefined : { body: JSON.stringify(html), format: "json" };
}

/** Read a `format: json` body back. */
export function readJsonBody(body: string, file: string): string {
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === "string") return value;
  } catch {
    // reported below
  }
  throw new FileProblem(
    file,
    undefined,
    "the body of a `format: json` chapter must be one JSON string",
    "This format keeps HTML that UTF-8 cannot hold exact; edit it as a JSON string, or pull again.",
    { rule: "type" },
  );
}
