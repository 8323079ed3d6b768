// What the staging tests share: a cache folder of their own, a chapter as the site lists it, the
// text its file is written as, and the staged files waiting in the cache.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import type { WireRecord } from "../../src/api/wire.js";
import { chapterFileText, chapterValuesOfRecord } from "../../src/sync/model/entities.js";
import { markdownCodec } from "../../src/tree/codecs.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A cache folder (not made yet) inside a temp folder removed after the test. */
export function cacheDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "coursesync-stage-"));
  dirs.push(dir);
  return path.join(dir, "cache");
}

/** Chapter `id` of course 1, titled and holding `<p>title</p>`. */
export const chapter = (id: number, title: string): WireRecord => ({
  id,
  course_id: 1,
  title,
  ordinal: id,
  content: `<p>${title}</p>`,
  updated_at: "2026-01-01T00:00:00Z",
});

/** The text a pull writes for the record's file (Markdown bodies). */
export const textOf = (record: WireRecord) =>
  chapterFileText(record.id, chapterValuesOfRecord(record), markdownCodec);

/** The names of the staged files waiting in the cache's incoming/ folder. */
export const incoming = (cache: string) =>
  existsSync(path.join(cache, "incoming")) ? readdirSync(path.join(cache, "incoming")) : [];
