import { mergeLines } from "../tree/bodies/merge.js";
import { mergeMarkdown as mergeRendered } from "../tree/bodies/rendered-merge.js";
import type { BodyCodec } from "../tree/bodies.js";
import type { BodyFormat } from "../tree/chapter-file.js";
import { type BaseBody, baseBodyOf, baseHtmlOf } from "./local/bases.js";
import { contentKey } from "./model/entities.js";

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
    const key = typeof base === "string" ? undefined : contentKey(base);
    const baseHtml = typeof base === "string" ? base : baseHtmlOf(baseTexts, key);
    if (baseHtml === undefined) return undefined;
    if (localBody?.format === "markdown" && bodies.mode === "markdown") {
      return mergeMarkdown(
        bodies,
        baseMarkdown(bodies, baseHtml, baseBodyOf(baseTexts, key)),
        localBody.text,
        remote,
      );
    }
    return mergeLines(baseHtml, local, remote);
  };
}

/**
 * The Markdown a merge starts from: the body the last sync wrote when git gave it (the file's
 * own text), else the last synced HTML through the converter (what pull wrote from it).
 */
export function baseMarkdown(
  bodies: BodyCodec,
  baseHtml: string,
  fromGit: BaseBody | undefined,
): string | undefined {
  if (fromGit?.format === "markdown") return fromGit.text;
  const base = bodies.fromHtml(baseHtml);
  return base.format === "markdown" ? base.body : undefined;
}

function mergeMarkdown(bodies: BodyCodec, base: string | undefined, local: string, remoteHtml: string) {
  const remote = bodies.fromHtml(remoteHtml);
  if (base === undefined || remote.format !== "markdown") return undefined;
  const merged = mergeRendered(base, local, remote.body);
  if (merged.kind !== "clean") return undefined;
  const html = bodies.toHtml(merged.text, "markdown", "");
  // The file written for this HTML is the merge itself, in the author's spelling.
  bodies.keep?.(html, merged.text);
  return html;
}
