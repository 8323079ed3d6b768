import type { WireRecord } from "../../api/wire.js";
import { mergeBody } from "../../tree/bodies/merge.js";
import { mergeMarkdown } from "../../tree/bodies/rendered-merge.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { serializeChapterFile } from "../../tree/chapter-file.js";
import { baseMarkdown } from "../content-merge.js";
import { type BaseBody, baseBodyOf, baseHtmlOf } from "../local/bases.js";
import type { LocalChapter } from "../local/view.js";
import { type ChapterPlan, fieldsEqual } from "../model/entities.js";
import { type ContentReader, readContent } from "../model/spilled.js";
import type { SnapshotEntry } from "../state/snapshot-model.js";

/** What a chapter whose body both sides changed is made of. */
export interface BodyConflict {
  id: number;
  mine: LocalChapter;
  /** The last sync's record and its content's text (and the Markdown written, when git gave it). */
  base: { record: WireRecord; html: string; body?: BaseBody | undefined };
  remote: WireRecord;
  bodies: BodyCodec;
}

/**
 * A body conflict shown where it is (DESIGN 4): the file with git-style markers around just
 * the overlapping part (`<<<<<<< local` / `=======` / `>>>>>>> site`), the non-overlapping parts
 * of both sides merged around them, and the other fields merged (each side's change kept).
 * The merge runs in the form the file is written in: Markdown for a Markdown file, lines of
 * HTML for a raw-HTML one. Undefined when it cannot be shown so (a side that is not in that
 * form): the caller writes the site's version beside the file instead.
 */
export function bodyConflictText(conflict: BodyConflict): string | undefined {
  const { mine, base, remote, bodies } = conflict;
  const body = mine.body;
  if (!body || typeof remote.content !== "string") return undefined;
  let merged: ReturnType<typeof mergeBody>;
  if (body.format === "markdown") {
    const baseMd = baseMarkdown(bodies, base.html, base.body);
    const remoteMd = bodies.fromHtml(remote.content);
    if (baseMd === undefined || remoteMd.format !== "markdown") return undefined;
    merged = mergeMarkdown(baseMd, body.text, remoteMd.body);
  } else if (body.format === "html") {
    merged = mergeBody(base.html, body.text, remote.content, { words: false });
  } else return undefined;
  if (merged.kind !== "conflict") return undefined;
  // Each other field: the local value where it changed here, else the site's.
  const pick = (field: "title" | "ordinal") =>
    fieldsEqual(field, mine.values[field], base.record[field]) ? remote[field] : mine.values[field];
  return serializeChapterFile({
    id: conflict.id,
    title: pick("title"),
    ordinal: pick("ordinal"),
    format: body.format,
    body: merged.text,
  });
}

/**
 * The file with conflict markers for a chapter whose body alone both sides changed, when it can
 * be shown so (see `bodyConflictText`) and the last sync's text is at hand.
 */
export function bodyConflict(
  plan: ChapterPlan,
  at: {
    id: number;
    mine: LocalChapter | undefined;
    entry: SnapshotEntry | undefined;
    remote: WireRecord | undefined;
    baseTexts: ReadonlyMap<string, string>;
    bodies: BodyCodec;
    /** Reads the site's text when it was spilled. */
    reader?: ContentReader | undefined;
  },
): string | undefined {
  const c = plan.conflict;
  const { id, mine, entry, remote } = at;
  if (c?.reason !== "both-changed" || c.fields.join() !== "content" || !mine || !entry || !remote)
    return undefined;
  const hash = String(entry.record.content_sha256);
  const html = baseHtmlOf(at.baseTexts, hash);
  if (html === undefined) return undefined;
  const base = { record: entry.record, html, body: baseBodyOf(at.baseTexts, hash) };
  const text = readContent(remote.content, at.reader);
  const site = text === remote.content ? remote : { ...remote, content: text };
  return bodyConflictText({ id, mine, base, remote: site, bodies: at.bodies });
}
