import { type BodyCodec, exactBody } from "./bodies.js";
import { equivalentHtml, markdownBodies } from "./markdown/index.js";

/**
 * The body codec for coursesync.yaml's `body` setting. Both read every format a file may have
 * (Markdown, HTML, JSON); they differ in how they write: `markdown` converts where the round
 * trip is proven lossless, `html` keeps the site's HTML verbatim.
 */
export function bodyCodec(mode: "markdown" | "html"): BodyCodec {
  return {
    mode,
    standard: true,
    fromHtml:
      mode === "html" ? (html) => exactBody(html) ?? { body: html, format: "html" } : markdownBodies.fromHtml,
    toHtml: markdownBodies.toHtml,
    equivalent: equivalentHtml,
  };
}

/** Keeps chapter HTML verbatim in new files (`body: html`). */
export const htmlBodies: BodyCodec = bodyCodec("html");

/** Markdown where proven lossless (the default, `body: markdown`). */
export const markdownCodec: BodyCodec = bodyCodec("markdown");

/**
 * The same codec with each conversion remembered for the run: a pull renders a chapter for
 * its file and again for the snapshot's hash, and conversion is the costly step.
 */
export function memoized(codec: BodyCodec): BodyCodec & {
  /** Hand over conversions made elsewhere (worker threads), keyed by the HTML. */
  prime(results: Iterable<readonly [string, ReturnType<BodyCodec["fromHtml"]>]>): void;
  /** Whether this HTML was converted already in this run. */
  known(html: string): boolean;
} {
  const seen = new Map<string, ReturnType<BodyCodec["fromHtml"]>>();
  return {
    ...codec,
    prime(results) {
      for (const [html, result] of results) seen.set(html, result);
    },
    known: (html) => seen.has(html),
    keep(html, body) {
      seen.set(html, { body, format: "markdown" });
    },
    fromHtml(html) {
      let result = seen.get(html);
      if (!result) {
        result = codec.fromHtml(html);
        seen.set(html, result);
      }
      return result;
    },
  };
}

/**
 * The codec with the bodies merges keep (`keep`) remembered for the run, and nothing else: a
 * push converts few chapters, and keeps no other conversion.
 */
export function keepingMerges(codec: BodyCodec): BodyCodec {
  const kept = new Map<string, string>();
  return {
    ...codec,
    keep(html, body) {
      kept.set(html, body);
    },
    fromHtml(html) {
      const body = kept.get(html);
      return body === undefined ? codec.fromHtml(html) : { body, format: "markdown" };
    },
  };
}
