import { readFile } from "node:fs/promises";
import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { parseChapterFile, splitFrontMatter } from "../../tree/chapter-file.js";
import { parseCourseFile } from "../../tree/course-file.js";
import { abs } from "../../tree/fs-ops.js";
import { recordFilePath } from "../../tree/layout.js";
import { gitBlobId, sha256 } from "../../util/hash.js";
import type { LocalView } from "../local/view.js";
import {
  bodyKey,
  type ChapterValues,
  type CourseValues,
  courseFileText,
  courseValuesOfFile,
  fieldsEqual,
  renderChapter,
  valuesOfRecord,
} from "../model/entities.js";
import type { ContentCache } from "../state/content-cache.js";
import type { SiteIds } from "../state/id-map.js";
import { withId } from "../state/recovery.js";

// Settling a pushed record's file with the site's answer: what the file is to hold (a new id,
// fields the site filled in) and what the snapshot records for it.

/** What settling a file needs of a push under way. */
export interface SettleContext {
  root: string;
  local: LocalView;
  cache: ContentCache;
  bodies: BodyCodec;
  /** Waits for a file an editor is saving (injected: tests use fake time). */
  sleep: (ms: number) => Promise<void>;
  /** A site other than the default one: its files are never written. */
  siteIds?: SiteIds | undefined;
}

/** Whether two records' values say the same (a Markdown body's HTML by equivalence). */
function sameValues(a: object, b: object, bodies: BodyCodec): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return Object.keys({ ...x, ...y }).every((k) => {
    if (fieldsEqual(k, x[k], y[k])) return true;
    // A Markdown body's HTML is equivalent to what the site stored, not byte-equal.
    const [p, q] = [x[k], y[k]];
    return (
      k === "content" && typeof p === "string" && typeof q === "string" && bodies.equivalent?.(p, q) === true
    );
  });
}

/** How a file is to agree with the record the site holds, before anything is written. */
interface Settled {
  /** Hash of the file as it is to stand. */
  hash: string;
  /** Chapters: the body key of that file. */
  body?: string;
  /** Chapters: git's blob id of that file (known when its text is). */
  blob?: string;
  /** Hash of the file as it stood when read. */
  from: string;
  /** The text to write, or undefined when the file already agrees. */
  text?: string;
  /** True when `text` is the file read plus the new id (and nothing else changed). */
  byId: boolean;
}

/** A course.yaml's values, or undefined when it does not parse. */
function tryParseCourse(text: string, file: string): CourseValues | undefined {
  try {
    return courseValuesOfFile(parseCourseFile(text, file));
  } catch {
    return undefined;
  }
}

/** The fields of an object that are set (not missing, not null). */
function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<T>;
}

/** A snapshot hash no file has: the file is always read and compared with the record. */
const UNSETTLED = "unsettled";

/**
 * A file's text as push settles it; undefined when it is gone. A new record's file missing
 * for a moment (an editor that deletes and writes again to save) is waited for, up to a
 * second: its id must reach it.
 */
async function readSettling(
  file: string,
  created: boolean,
  sleep: (ms: number) => Promise<void>,
): Promise<string | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      if (!created || attempt >= 10) return undefined;
      await sleep(100);
    }
  }
}

/**
 * Settle a written record's file with the site's answer, and say what the snapshot should hold
 * for it: it stores the chapter's new content in the content cache and works out the text the
 * file is to hold (a new record's id, fields the site filled in) unless it was saved again
 * meanwhile. When the site took exactly the local values, the file keeps its bytes (plus the
 * new id); otherwise it is rewritten from the record (fields changed only on the site come in).
 * Writes no file: it returns the text and the hashes the snapshot records.
 */
export async function settleFile(
  kind: "course" | "chapter",
  key: string,
  where: string,
  record: WireRecord,
  localValues: CourseValues | ChapterValues,
  created: boolean,
  ctx: SettleContext,
): Promise<Settled> {
  const file = recordFilePath(kind, where);
  const siteValues = valuesOfRecord(kind, record);
  if (kind === "chapter" && typeof record.content === "string") {
    // The last synced text of this chapter, for later comparisons and merges.
    await ctx.cache.put(record.content);
  }
  const scanned = (kind === "course" ? ctx.local.courses : ctx.local.chapters).get(key)?.hash;
  const text = await readSettling(abs(ctx.root, file), created, ctx.sleep);
  if (text === undefined) {
    // Deleted while its write was under way: the record stands for no file (the next scan
    // sees it deleted here).
    return { hash: UNSETTLED, from: UNSETTLED, byId: true };
  }
  const from = sha256(text);
  // A record of the tree is never written by another site; a new file first created on another
  // site takes what that site filled in, as the default site's would (but no id: see fileId).
  if (ctx.siteIds && !(created && record.id < 0)) return keptFile(kind, file, text, scanned, created);
  const withNewId = (t: string) => (created && record.id >= 0 ? withId(t, record.id, kind) : t);
  if (scanned !== undefined && from !== scanned) {
    // Saved again while its write was under way: that save is kept as it is (a new record
    // only gains its id) and is not taken as synced, so the next push sends it.
    let next = withNewId(text);
    if (created && kind === "course") {
      // The fields the site filled in (and the new save does not set) come in as well.
      const saved = tryParseCourse(text, file);
      if (saved) next = courseFileText(record.id, { ...(siteValues as CourseValues), ...definedOnly(saved) });
    }
    return {
      hash: created ? UNSETTLED : scanned,
      from,
      byId: next === withNewId(text),
      ...(next === text ? {} : { text: next }),
    };
  }
  const wanted = { ...localValues } as Record<string, unknown>;
  if (kind === "chapter") wanted.course_id = (siteValues as ChapterValues).course_id;
  if (sameValues(siteValues, wanted, ctx.bodies)) {
    const next = withNewId(text);
    const write = next === text ? {} : { text: next };
    if (kind === "course") return { hash: sha256(next), from, byId: true, ...write };
    const { body } = splitFrontMatter(next, file);
    const format = parseChapterFile(next, file).format;
    const blob = gitBlobId(next);
    return { hash: sha256(next), body: bodyKey(format, body), blob, from, byId: true, ...write };
  }
  if (kind === "course") {
    const next = courseFileText(record.id, siteValues as CourseValues);
    return { hash: sha256(next), from, text: next, byId: false };
  }
  const rendered = renderChapter(record.id, siteValues as ChapterValues, ctx.bodies);
  const { hash, body, blob } = rendered;
  return { hash, body, blob, from, text: rendered.text, byId: false };
}

/**
 * Settling a file with a site other than the default one: the file is never written (its id is
 * the default site's, its values the tree's); the site's record is what it stands for now. A
 * file saved again meanwhile is not taken as synced, so the next push sends it.
 */
function keptFile(
  kind: "course" | "chapter",
  file: string,
  text: string,
  scanned: string | undefined,
  created: boolean,
): Settled {
  const from = sha256(text);
  if (scanned !== undefined && from !== scanned)
    return { hash: created ? UNSETTLED : scanned, from, byId: true };
  if (kind === "course") return { hash: from, from, byId: true };
  const { body } = splitFrontMatter(text, file);
  const key = bodyKey(parseChapterFile(text, file).format, body);
  return { hash: from, body: key, blob: gitBlobId(text), from, byId: true };
}
