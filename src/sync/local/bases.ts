import type { BodyCodec } from "../../tree/bodies.js";
import { type BodyFormat, parseChapterFile } from "../../tree/chapter-file.js";
import type { ScanResult } from "../../tree/scan.js";
import { sha256 } from "../../util/hash.js";
import { bodyKey } from "../model/entities.js";
import type { ContentCache } from "../state/content-cache.js";
import type { BlobReader } from "../state/git-objects.js";
import type { Snapshot, SnapshotEntry } from "../state/snapshot-model.js";

// The base of a three-way body merge: the last sync's text of a chapter, by its content hash.
// First the content cache (the site's HTML as synced, in the tree that synced); then git's own
// objects, by the blob id the snapshot records (the file as the sync wrote it, in any clone);
// only then is there no base, and the reason is kept for the conflict that follows.

/** A chapter's body as the last sync wrote it into its file, read back from git. */
export interface BaseBody {
  format: BodyFormat;
  /** The body as the file held it: for a Markdown file, the Markdown a merge works on. */
  text: string;
  /** The HTML it stands for (a Markdown body rendered as push renders it). */
  html: string;
}

/**
 * The last sync's chapter texts by content hash: the site's HTML exactly, where known (the
 * map's own entries); bodies read back from git where only the file's text is; and why the
 * others have no base at all.
 */
export class BaseTexts extends Map<string, string> {
  /** Bodies the last sync wrote, read from git, whose HTML is not the site's byte for byte. */
  readonly bodies = new Map<string, BaseBody>();
  /** Why there is no base for a content hash (told in the conflict it leads to). */
  readonly missing = new Map<string, string>();

  /** These texts and another's, together. */
  joined(other: ReadonlyMap<string, string>): BaseTexts {
    const both = new BaseTexts([...this, ...other]);
    for (const from of [this, other]) {
      if (!(from instanceof BaseTexts)) continue;
      for (const [hash, body] of from.bodies) both.bodies.set(hash, body);
      for (const [hash, why] of from.missing) both.missing.set(hash, why);
    }
    return both;
  }
}

/** The body git gave for a content hash, when the base texts hold one. */
export function baseBodyOf(
  texts: ReadonlyMap<string, string>,
  hash: string | undefined,
): BaseBody | undefined {
  return hash !== undefined && texts instanceof BaseTexts ? texts.bodies.get(hash) : undefined;
}

/** The base HTML of a content hash: the site's own, else what git's body stands for. */
export function baseHtmlOf(texts: ReadonlyMap<string, string>, hash: string | undefined): string | undefined {
  return hash === undefined ? undefined : (texts.get(hash) ?? baseBodyOf(texts, hash)?.html);
}

/** Why a content hash has no base text, when that is known. */
export function whyNoBase(texts: ReadonlyMap<string, string>, hash: unknown): string | undefined {
  return typeof hash === "string" && texts instanceof BaseTexts ? texts.missing.get(hash) : undefined;
}

/** Where base texts come from beyond the content cache. */
export interface BaseSources {
  /** Git's objects, by blob id (none: the cache only). */
  blobs?: BlobReader | undefined;
  /** How a Markdown body read from git becomes HTML. */
  bodies: BodyCodec;
}

/**
 * The snapshot's chapter texts a local view needs to compare edited bodies with (and to merge
 * bodies edited on both sides): from the content cache, else from git by the entry's blob id.
 */
export async function baseTextsFor(
  scan: ScanResult,
  snapshot: Snapshot | undefined,
  cache: ContentCache,
  sources?: BaseSources,
): Promise<BaseTexts> {
  const texts = new BaseTexts();
  if (!snapshot) return texts;
  const byPath = new Map(Object.values(snapshot.chapters).map((entry) => [entry.path, entry]));
  const byId = snapshot.chapters;
  const lacking = new Map<string, SnapshotEntry>();
  await Promise.all(
    scan.chapters.map(async (chapter) => {
      if (!chapter.parsed) return;
      const entry =
        (chapter.parsed.id === undefined ? undefined : byId[chapter.parsed.id]) ?? byPath.get(chapter.file);
      const hash = entry?.record.content_sha256;
      if (typeof hash !== "string" || texts.has(hash)) return;
      if (entry?.body === bodyKey(chapter.parsed.format, chapter.parsed.body)) return;
      const text = await cache.get(hash);
      if (text !== undefined) texts.set(hash, text);
      else lacking.set(hash, entry!);
    }),
  );
  for (const hash of [...lacking.keys()]) if (texts.has(hash)) lacking.delete(hash);
  if (lacking.size > 0) await fromGit(texts, lacking, sources);
  return texts;
}

/** Read the texts the cache lacks from git, by the blob ids their entries record. */
async function fromGit(
  texts: BaseTexts,
  lacking: ReadonlyMap<string, SnapshotEntry>,
  sources: BaseSources | undefined,
): Promise<void> {
  const asked = new Map<string, SnapshotEntry>();
  for (const [hash, entry] of lacking) {
    if (entry.blob === undefined) {
      texts.missing.set(
        hash,
        "the snapshot records no git blob id for it (an older coursesync wrote it: a pull in a tree holding the file as synced records it) and this clone's cache lacks it",
      );
    } else if (!sources?.blobs) {
      texts.missing.set(hash, "this clone's cache lacks it and git is not asked here");
    } else asked.set(hash, entry);
  }
  if (asked.size === 0 || !sources?.blobs) return;
  const read = await sources.blobs([...new Set([...asked.values()].map((entry) => entry.blob!))]);
  for (const [hash, entry] of asked) {
    const bytes = read.blobs.get(entry.blob!);
    const why =
      bytes === undefined
        ? `git blob ${entry.blob!.slice(0, 12)} is not at hand: ${read.missing ?? "git did not give it"}`
        : takeBody(texts, hash, entry, bytes.toString("utf8"), sources.bodies);
    if (why !== undefined) texts.missing.set(hash, why);
  }
}

/**
 * Take the body of a file text git gave as the base of content `hash`; returns why not when
 * it is not the text the sync wrote or holds no body.
 */
function takeBody(
  texts: BaseTexts,
  hash: string,
  entry: SnapshotEntry,
  text: string,
  bodies: BodyCodec,
): string | undefined {
  const blob = entry.blob!.slice(0, 12);
  if (sha256(text) !== entry.hash) return `git blob ${blob} is not the file the last sync wrote`;
  let format: BodyFormat;
  let body: string;
  try {
    ({ format, body } = parseChapterFile(text, entry.path));
  } catch {
    return `git blob ${blob} does not parse as a chapter file`;
  }
  if (entry.body !== undefined && bodyKey(format, body) !== entry.body)
    return `git blob ${blob} holds another body than the last sync's`;
  if (format === "html") {
    // A raw-HTML body is the site's HTML verbatim: the exact base, as the cache holds it.
    if (sha256(body) === hash) texts.set(hash, body);
    else texts.bodies.set(hash, { format, text: body, html: body });
    return undefined;
  }
  if (format !== "markdown") return `git blob ${blob} holds no body (its content is not text)`;
  try {
    texts.bodies.set(hash, { format, text: body, html: bodies.toHtml(body, format, entry.path) });
  } catch {
    return `git blob ${blob} holds a body that does not render`;
  }
  return undefined;
}

/**
 * What a conflict's reason adds when a body edited on both sides had no base to merge on:
 * why, so a clone that lacks it says so. Empty otherwise.
 */
export function noBaseNote(
  conflict: { reason: string; fields: readonly string[] } | undefined,
  texts: ReadonlyMap<string, string> | undefined,
  entry: SnapshotEntry | undefined,
): string {
  if (conflict?.reason !== "both-changed" || !conflict.fields.includes("content") || !texts) return "";
  const why = whyNoBase(texts, entry?.record.content_sha256);
  return why === undefined ? "" : `; the bodies could not be merged: no base text (${why})`;
}
