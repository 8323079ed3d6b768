import { randomInt } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import type { WireRecord } from "../../api/wire.js";
import { sha256 } from "../../util/hash.js";
import { type ChapterValues, chapterValuesOfRecord } from "../model/entities.js";
import { type ContentReader, isSpilled, readContent, type SpilledText } from "../model/spilled.js";

/** Contents shorter than this stay in memory: moving them out saves less than it costs. */
const SMALL = 512;

/**
 * Where a pull keeps the chapter contents it listed while it works, instead of in memory: a
 * temp file of this run (`spill.<pid>.<n>.tmp` in the uncommitted cache), removed as soon as
 * it is open, so it has no name while the run reads it back. Each record's `content` becomes a
 * SpilledText, a plain reference (where the text is, and its hash): a step that needs the text
 * reads it through this spill, its ContentReader. A listing of 50,000 chapters holds their
 * fields and offsets, not 50,000 texts.
 */
export class ContentSpill implements ContentReader {
  readonly #file: string;
  #fd: number | undefined;
  #size = 0;
  #closed = false;

  constructor(dir: string) {
    this.#file = path.join(dir, `spill.${process.pid}.${randomInt(2 ** 47)}.tmp`);
  }

  /**
   * Move the contents of these records (one page of a listing) to the file: each such record
   * is replaced, in the array, by a copy whose `content` is a SpilledText (a reference). A
   * field equal to the last sync's (`known`, by id) takes that record's string, so that an
   * unchanged record's titles, times and hash are held once, not twice.
   */
  take(records: WireRecord[], known?: (id: number) => WireRecord | undefined): void {
    // Each text is encoded once, straight into the page's buffer, and hashed from those bytes
    // (a well-formed text's UTF-8 is what sha256 hashes of it).
    const moved: Array<{ index: number; at: number; length: number }> = [];
    let size = 0;
    for (const [index, record] of records.entries()) {
      const content = record.content;
      // Lone surrogates cannot be UTF-8: such a text stays in memory, exact.
      if (typeof content !== "string" || content.length < SMALL || !content.isWellFormed()) continue;
      const length = Buffer.byteLength(content, "utf8");
      moved.push({ index, at: size, length });
      size += length;
    }
    if (moved.length === 0 || this.#closed) return;
    const data = Buffer.allocUnsafe(size);
    for (const { index, at, length } of moved)
      data.write(records[index]!.content as string, at, length, "utf8");
    if (this.#fd === undefined) {
      mkdirSync(path.dirname(this.#file), { recursive: true });
      this.#fd = openSync(this.#file, "w+", 0o600);
      // Read and written through the descriptor alone: the name goes at once, so a run that
      // exits on a second Ctrl-C (or is killed) leaves nothing behind. Where an open file
      // cannot be removed (Windows), `close` or the next run removes it.
      try {
        rmSync(this.#file);
      } catch {}
    }
    writeSync(this.#fd, data, 0, data.length, this.#size);
    const base = this.#size;
    this.#size += size;
    for (const { index, at, length } of moved) {
      const offset = base + at;
      const hash = sha256(data.subarray(at, at + length));
      const record = records[index]!;
      const before = known?.(record.id);
      const copy: WireRecord = { id: record.id };
      for (const key of Object.keys(record)) {
        if (key === "content") continue;
        const value = record[key];
        const was = before?.[key];
        copy[key] = typeof value === "string" && was === value ? was : value;
      }
      const sameHash = before?.content_sha256 === hash ? (before.content_sha256 as string) : hash;
      const spilledText: SpilledText = { sha256: sameHash, spilledAt: offset, length };
      copy.content = spilledText;
      records[index] = copy;
    }
  }

  /** A spilled text, read back from the file. */
  read(text: SpilledText): string {
    const { spilledAt: offset, length } = text;
    if (this.#fd === undefined)
      throw new Error("the content spill was closed while its records were still read");
    const buffer = Buffer.allocUnsafe(length);
    const read = readSync(this.#fd, buffer, 0, length, offset);
    if (read !== length) throw new Error(`the content spill ${this.#file} was cut short`);
    return buffer.toString("utf8");
  }

  /** Remove the file; records it holds must not be read any more. */
  close(): void {
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    rmSync(this.#file, { force: true });
  }
}

/** Whether a record's content was moved to a spill (its `content` is a SpilledText). */
export function spilled(record: WireRecord | undefined): boolean {
  return record !== undefined && isSpilled(record.content);
}

/**
 * These values with the spilled record's content reference in place of their text, when they
 * hold that text: a plan of thousands of chapters holds no texts. Other values are returned as
 * they are.
 */
export function sharingContent<T extends { content?: unknown }>(
  values: T | undefined,
  record: WireRecord | undefined,
): T | undefined {
  if (!values || !record || !spilled(record) || typeof values.content !== "string") return values;
  // Built key by key, the content last, as the values of a record are.
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (key !== "content") copy[key] = value;
  copy.content = record.content;
  return copy as T;
}

/** A chapter record's values, a spilled text read back through `reader`. */
export function recordValuesRead(record: WireRecord, reader: ContentReader | undefined): ChapterValues {
  return chapterValuesRead(chapterValuesOfRecord(record), reader);
}

/** Chapter values with a spilled text read back through `reader` (as the text). */
export function chapterValuesRead(values: ChapterValues, reader: ContentReader | undefined): ChapterValues {
  return isSpilled(values.content)
    ? { ...values, content: readContent(values.content, reader) as string }
    : values;
}
