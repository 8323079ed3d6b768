import { mergeLines } from "../tree/bodies/merge.js";
import { mergeMarkdown as mergeRendered } from "../tree/bodies/rendered-merge.js";
import type { BodyCodec } from "../tree/bodies.js";
import type { BodyFormat } from "../tree/chapter-file.js";
import { contentKey } from "./entities.js";

/** A chapter file's body as its author wrote it: what a Markdown merge works on. */
export interface LocalBody {
  format: BodyFormat;
  text: string;
}

/** Reconcile's hook for merging a text field edited on both sides. */
export type MergeText = (field: string, base: unknown, local: unknown, remote: unknown) => unknown;

/**
 * The merge of one chapter's content when both sides edited it, in the form people edit
 * (DESIGN 4): a Markdown body merges three ways on Markdown — base, the Markdown the last sync
 * wrote (the same converter over its HTML gives it back), remote, the site's new HTML
 * converted, local, the file — by lines, then by words inside a line both changed. The merge
 * counts only when it renders to what the two sides' changes make of the base's HTML, whatever
 * Markdown spelling the author used (`rendersAsMerged`); the file then holds the merge as it is,
 * the author's spelling kept (the codec's `keep`). Anything else (raw-HTML bodies, a side that is not Markdown) merges by
 * lines on the HTML, as before. Undefined: no clean merge (a conflict).
 */
export function contentMerger(
  bodies: BodyCodec,
  baseTexts: ReadonlyMap<string, string>,
  localBody: LocalBody | undefined,
): MergeText {
  return (field, base, local, remote) => {
    if (field !== "content" || typeof local !== "string" || typeof remote !== "string") return undefined;
    const baseHtml = typeof base === "string" ? base : baseTexts.get(contentKey(base) ?? "");
    if (baseHtml === undefined) return undefined;
    if (localBody?.format === "markdown" && bodies.mode === "markdown") {
      return mergeMarkdown(bodies, baseHtml, localBody.text, remote);
    }
    return mergeLines(baseHtml, local, remote);
  };
}

function mergeMarkdown(bodies: BodyCodec, baseHtml: string, local: string, remoteHtml: string) {
  const base = bodies.fromHtml(baseHtml);
  const remote = bodies.fromHtml(remoteHtml);
  if (base.format !== "markdown" || remote.format !== "markdown") return undefined;
  const merged = mergeRendered(base.body, local, remote.body);
  if (merged.kind !== "clean") return undefined;
  const html = bodies.toHtml(merged.text, "markdown", "");
  // The file written for this HTML is the merge itself, in the author's spelling.
  bodies.keep?.(html, merged.text);
  return html;
}
