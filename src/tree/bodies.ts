import type { BodyFormat } from "./chapter-file.js";

/**
 * The body step: the one seam between a chapter's HTML `content` on the site and the body of
 * its file. For now every body is the HTML verbatim (`format: html`); Markdown arrives here.
 */
export interface BodyCodec {
  /** The file body and its format for a chapter's HTML. */
  fromHtml(html: string): { body: string; format: BodyFormat };
  /** The HTML a file body stands for. */
  toHtml(body: string, format: BodyFormat, file: string): string;
}

/** Keeps chapter HTML verbatim in the file. */
export const htmlBodies: BodyCodec = {
  fromHtml: (html) => ({ body: html, format: "html" }),
  toHtml(body, format, file) {
    if (format !== "html") {
      throw new Error(
        `${file}: Markdown bodies are not supported yet; add \`format: html\` to the front matter`,
      );
    }
    return body;
  },
};
