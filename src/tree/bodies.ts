import type { BodyFormat } from "./chapter-file.js";
import { FileProblem } from "./yaml-text.js";

/**
 * The body step: the one seam between a chapter's HTML `content` on the site and the body of
 * its file. For now every body is the HTML verbatim (`format: html`); Markdown arrives here.
 */
export interface BodyCodec {
  /** The file body and its format for a chapter's HTML. */
  fromHtml(html: string): { body: string; format: BodyFormat };
  /** The HTML a file body stands for; throws FileProblem when it cannot be read. */
  toHtml(body: string, format: BodyFormat, file: string): string;
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
  );
}

/** Keeps chapter HTML verbatim in the file. */
export const htmlBodies: BodyCodec = {
  fromHtml: (html) => exactBody(html) ?? { body: html, format: "html" },
  toHtml(body, format, file) {
    if (format === "json") return readJsonBody(body, file);
    if (format !== "html") {
      throw new FileProblem(
        file,
        undefined,
        "Markdown bodies are not supported yet",
        "Add `format: html` to the front matter and write the body as HTML.",
      );
    }
    return body;
  },
};
