import { randomInt } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import type { WireRecord } from "../../api/wire.js";
import { sha256 } from "../../util/hash.js";
import {
  type ChapterValues,
  CONTENT_SHA256,
  chapterFieldsOfRecord,
  chapterValuesOfRecord,
} from "../model/entities.js";

/** Contents shorter than this stay in memory: moving them out saves less than it costs. */
const SMALL = 512;

/**
 * Where a pull keeps the chapter contents it listed while it works, instead of in memory: a
 * temp file of this run (`spill.<pid>.<n>.tmp` in the uncommitted cache), removed as soon as
 * it is open, so it has no name while the run reads it back. Each record's `content` becomes a property that
 * reads its text back from the file when asked, so the rest of pull sees plain records, and a
 * listing of 50,000 chapters holds their fields and offsets, not 50,000 texts.
 */
export class ContentSpill {
  readonly #file: string;
  #fd: number | undefined;
  #size = 0;
  #closed = false;

  constructor(dir: string) {
    this.#file = path.join(dir, `spill.${process.pid}.${randomInt(2 ** 47)}.tmp`);
  }

  /**
   * Move the contents of these records (one page of a listing) to the file: each such record
   * is replaced, in the array, by a copy whose `content` reads the text back when asked. A
   * field equal to the last sync's (`known`, by id) takes that record's string, so that an
   * unchanged record's titles, times and hash are held once, not twice.
   */
  take(records: WireRecord[], known?: (id: number) => WireRecord | undefined): void {
    const moved: Array<{ index: number; offset: number; length: number; hash: string }> = [];
    const buffers: Buffer[] = [];
    let offset = this.#size;
    for (const [index, record] of records.entries()) {
      const content = record.content;
      // Lone surrogates cannot be UTF-8: such a text stays in memory, exact.
      if (typeof content !== "string" || content.length < SMALL || !content.isWellFormed()) continue;
      const bytes = Buffer.from(content, "utf8");
      buffers.push(bytes);
      moved.push({ index, offset, length: bytes.length, hash: sha256(content) });
      offset += bytes.length;
    }
    if (moved.length === 0 || this.#closed) return;
    const data = Buffer.concat(buffers);
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
    this.#size = offset;
    for (const { index, offset, length, hash } of moved) {
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
      // Hidden (not enumerable): a spread copy of the record takes its text, not these.
      Object.defineProperty(copy, SPILLED, { value: { spill: this, offset, length } });
      Object.defineProperty(copy, CONTENT_SHA256, { value: sameHash });
      Object.defineProperty(copy, "content", { get: readSpilled, enumerable: true, configurable: true });
      records[index] = copy;
    }
  }

  /** The text at this place of the file. */
  read(offset: number, length: number): string {
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

/** Where a spilled record's text is: on the record, under this key (not enumerable). */
const SPILLED = Symbol("spilled");

/** Where spilled records' texts are. */
interface SpilledAt {
  spill: ContentSpill;
  offset: number;
  length: number;
}

// One getter shared by every spilled record (and one for values sharing a record's text): V8
// then gives all of them one hidden class instead of one each.
function readSpilled(this: { [SPILLED]: SpilledAt }): string {
  const at = this[SPILLED];
  return at.spill.read(at.offset, at.length);
}

const SOURCE = Symbol("source");

function readSource(this: { [SOURCE]: WireRecord }): unknown {
  return this[SOURCE].content;
}

/** Whether a record's content was moved to a spill (it is read back on each access). */
export function spilled(record: WireRecord | undefined): boolean {
  return record !== undefined && Object.hasOwn(record, SPILLED);
}

/**
 * These values with their content read from a spilled record, instead of holding their own
 * copy: a plan of thousands of chapters holds no texts. Other values are returned as they are.
 */
export function sharingContent<T extends { content?: unknown }>(
  values: T | undefined,
  record: WireRecord | undefined,
): T | undefined {
  if (!values || !record || !spilled(record) || typeof values.content !== "string") return values;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (key !== "content") copy[key] = value;
  return readingContentOf(copy, record) as T;
}

/**
 * A chapter record's values, with the content of a spilled record read back only when asked:
 * the plan of a record new to the tree takes its values as they are, and nothing compares its
 * text (reading 2,000 texts back cost a first pull 20 ms).
 */
export function chapterValuesSharing(record: WireRecord): ChapterValues {
  if (!spilled(record)) return chapterValuesOfRecord(record);
  return readingContentOf(chapterFieldsOfRecord(record) as ChapterValues, record);
}

/** These values, given a `content` that reads the spilled record's text back when asked. */
function readingContentOf<T extends object>(values: T, record: WireRecord): T {
  Object.defineProperty(values, SOURCE, { value: record });
  Object.defineProperty(values, "content", { get: readSource, enumerable: true, configurable: true });
  return values;
}
