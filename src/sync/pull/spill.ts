import { randomInt } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import type { WireRecord } from "../../api/wire.js";
import { sha256 } from "../../util/hash.js";
import { CONTENT_SHA256 } from "../entities.js";

/** Contents shorter than this stay in memory: moving them out saves less than it costs. */
const SMALL = 512;

/**
 * Where a pull keeps the chapter contents it listed while it works, instead of in memory: a
 * temp file of this run (`spill.<pid>.<n>.tmp` in the uncommitted cache, removed at `close`,
 * and by the next run if this one is killed). Each record's `content` becomes a property that
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

  /** Move the contents of these records (one page of a listing) to the file. */
  take(records: readonly WireRecord[]): void {
    const moved: Array<{ record: WireRecord; offset: number; length: number }> = [];
    const buffers: Buffer[] = [];
    let offset = this.#size;
    for (const record of records) {
      const content = record.content;
      // Lone surrogates cannot be UTF-8: such a text stays in memory, exact.
      if (typeof content !== "string" || content.length < SMALL || !content.isWellFormed()) continue;
      const bytes = Buffer.from(content, "utf8");
      buffers.push(bytes);
      moved.push({ record, offset, length: bytes.length });
      offset += bytes.length;
    }
    if (moved.length === 0 || this.#closed) return;
    const data = Buffer.concat(buffers);
    if (this.#fd === undefined) {
      mkdirSync(path.dirname(this.#file), { recursive: true });
      this.#fd = openSync(this.#file, "w+", 0o600);
    }
    writeSync(this.#fd, data, 0, data.length, this.#size);
    this.#size = offset;
    for (const { record, offset, length } of moved) {
      (record as { [CONTENT_SHA256]?: string })[CONTENT_SHA256] = sha256(record.content as string);
      Object.defineProperty(record, "content", {
        get: () => this.#read(offset, length),
        enumerable: true,
        configurable: true,
      });
    }
  }

  #read(offset: number, length: number): string {
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

/** Whether a record's content was moved to a spill (it is read back on each access). */
export function spilled(record: WireRecord | undefined): boolean {
  return record !== undefined && Object.getOwnPropertyDescriptor(record, "content")?.get !== undefined;
}

/**
 * Values that hold a spilled record's content read it from the record too, instead of
 * keeping their own copy: a plan of thousands of chapters holds no texts.
 */
export function shareContent(
  values: Record<string, unknown> | undefined,
  record: WireRecord | undefined,
): void {
  if (!values || !record || !spilled(record) || typeof values.content !== "string") return;
  Object.defineProperty(values, "content", {
    get: () => record.content,
    enumerable: true,
    configurable: true,
  });
}

/** Add to a list an item read only when the list is (a spilled record's content). */
export function pushLazy(list: string[], read: () => string): void {
  Object.defineProperty(list, list.length, { get: read, enumerable: true, configurable: true });
}
