import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { parseChapterFile, splitFrontMatter } from "../../tree/chapter-file.js";
import { parseCourseFile } from "../../tree/course-file.js";
import { gitBlobId, sha256 } from "../../util/hash.js";
import {
  bodyKey,
  type CourseValues,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfFile,
  courseValuesOfRecord,
  fieldsEqual,
  renderChapter,
} from "../model/entities.js";
import type { Fields, Kind } from "../reconcile.js";
import { withId } from "../state/recovery.js";

// Settling a pushed record's file with the site's answer (pure): what the file is to hold (a new
// id, fields the site filled in) and what the snapshot records for it.

/** Whether two records' values say the same (a Markdown body's HTML by equivalence). */
function sameValues(x: Fields, y: Fields, bodies: BodyCodec): boolean {
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
export interface Settled {
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

/** What settling a file is decided from: the site's answer, and the file as read after it. */
export interface SettleInput {
  kind: Kind;
  /** The record as the site answered the write. */
  record: WireRecord;
  /** The values the write sent from the file. */
  localValues: Fields;
  /** A create: the file is to take the record's id. */
  created: boolean;
  /** Where the file is, in the tree (its messages). */
  file: string;
  /** The file's text now; undefined when it is gone. */
  text: string | undefined;
  /** The hash of the file as the scan read it, if it read one. */
  scanned: string | undefined;
  /** A site other than the default one: its files are never written. */
  otherSite: boolean;
  bodies: BodyCodec;
}

/**
 * Settle a written record's file with the site's answer (pure): the text the file is to hold
 * (a new record's id, fields the site filled in) unless it was saved again meanwhile, and the
 * hashes the snapshot records. When the site took exactly the local values, the file keeps its
 * bytes (plus the new id); otherwise it is rewritten from the record (fields changed only on
 * the site come in).
 */
export function settle(input: SettleInput): Settled {
  const { kind, record, created, file, text, scanned } = input;
  if (text === undefined) {
    // Deleted while its write was under way: the record stands for no file (the next scan
    // sees it deleted here).
    return { hash: UNSETTLED, from: UNSETTLED, byId: true };
  }
  const from = sha256(text);
  // A record of the tree is never written by another site; a new file first created on another
  // site takes what that site filled in, as the default site's would (but no id: see fileId).
  if (input.otherSite && !(created && record.id < 0)) return keptFile(kind, file, text, scanned, created);
  const withNewId = (t: string) => (created && record.id >= 0 ? withId(t, record.id, kind) : t);
  if (scanned !== undefined && from !== scanned) {
    // Saved again while its write was under way: that save is kept as it is (a new record
    // only gains its id) and is not taken as synced, so the next push sends it.
    let next = withNewId(text);
    if (created && kind === "course") {
      // The fields the site filled in (and the new save does not set) come in as well.
      const saved = tryParseCourse(text, file);
      if (saved) next = courseFileText(record.id, { ...courseValuesOfRecord(record), ...definedOnly(saved) });
    }
    return {
      hash: created ? UNSETTLED : scanned,
      from,
      byId: next === withNewId(text),
      ...(next === text ? {} : { text: next }),
    };
  }
  const site =
    kind === "course"
      ? { kind, values: courseValuesOfRecord(record) }
      : { kind, values: chapterValuesOfRecord(record) };
  const wanted: Fields =
    site.kind === "chapter" ? { ...input.localValues, course_id: site.values.course_id } : input.localValues;
  if (sameValues(site.values, wanted, input.bodies)) {
    const next = withNewId(text);
    const write = next === text ? {} : { text: next };
    if (kind === "course") return { hash: sha256(next), from, byId: true, ...write };
    const { body } = splitFrontMatter(next, file);
    const format = parseChapterFile(next, file).format;
    const blob = gitBlobId(next);
    return { hash: sha256(next), body: bodyKey(format, body), blob, from, byId: true, ...write };
  }
  if (site.kind === "course") {
    const next = courseFileText(record.id, site.values);
    return { hash: sha256(next), from, text: next, byId: false };
  }
  const rendered = renderChapter(record.id, site.values, input.bodies);
  const { hash, body, blob } = rendered;
  return { hash, body, blob, from, text: rendered.text, byId: false };
}

/**
 * Settling a file with a site other than the default one: the file is never written (its id is
 * the default site's, its values the tree's); the site's record is what it stands for now. A
 * file saved again meanwhile is not taken as synced, so the next push sends it.
 */
function keptFile(
  kind: Kind,
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
