import { randomInt } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import PQueue from "p-queue";
import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { serializeChapterFile } from "../../tree/chapter-file.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import {
  bodyKey,
  chapterFile,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
  snapshotRecord,
} from "../entities.js";
import { jsonEqual } from "../reconcile.js";
import type { Snapshot } from "../state/snapshot.js";

// A pull writes the files of new and changed records while the listing is still arriving:
// each page's records are rendered as they come and their texts written to temp files in the
// uncommitted cache (`incoming/<hash>.<pid>.<n>.tmp`). Once the plan is made, a write whose
// text has a staged file is a rename of it into place (one call, not four), and the rest are
// written as before. The plan decides every path and every byte: a staged file is used only
// when its hash is the hash of the text the plan writes, so staging can only save time. Files
// left unused are removed at the end; those of a run killed meanwhile go with the other temp
// files of dead runs at the start of the next one.

/** Staged writes waiting for the disk at most: past this a page is not staged (the disk lags). */
const WAITING = 1024;

/** Rendering on the main thread may take this share of the listing's time; past it, pages wait. */
const SHARE = 0.5;

/** Rendering may always take this long (ms): small pulls are staged whole. */
const FREE_MS = 200;

/** Which list a page comes from. */
export type Listed = "courses" | "chapters";

export class StagedFiles {
  readonly #dir: string;
  readonly #fs: TreeFs;
  readonly #bodies: BodyCodec;
  readonly #snapshot: Snapshot | undefined;
  readonly #now: () => number;
  readonly #queue = new PQueue({ concurrency: 8 });
  /** Staged texts by hash, once written whole: the number in their temp file's name. */
  readonly #ready = new Map<string, number>();
  /** Chapter records rendered here: their file's hash and body key, for the plan's snapshot. */
  readonly #rendered = new WeakMap<WireRecord, { hash: string; body: string }>();
  #first: number | undefined;
  #spent = 0;
  #failed = false;
  #stopped = false;
  /** Set while staged files may exist: a run that exits at once (a second Ctrl-C) removes them. */
  #exitHook: (() => void) | undefined;

  constructor(options: {
    /** The site's uncommitted cache folder. */
    cache: string;
    fs: TreeFs;
    bodies: BodyCodec;
    /** The last sync: records it holds unchanged are not staged (nothing writes them). */
    snapshot: Snapshot | undefined;
    now?: () => number;
  }) {
    this.#dir = path.join(options.cache, "incoming");
    this.#fs = options.fs;
    this.#bodies = options.bodies;
    this.#snapshot = options.snapshot;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Stage the files of one page of a list (before its contents are spilled). */
  take(list: Listed, records: readonly WireRecord[]): void {
    const started = this.#now();
    this.#first ??= started;
    if (this.#failed || this.#stopped || this.#queue.size > WAITING) return;
    if (this.#spent > FREE_MS && this.#spent > (started - this.#first) * SHARE) return;
    for (const record of records) {
      const text = this.#render(list, record);
      if (text === undefined) continue;
      if (!this.#exitHook) {
        this.#exitHook = () => this.#removeAllSync();
        process.on("exit", this.#exitHook);
      }
      const hash = this.#rendered.get(record)?.hash ?? sha256(text);
      if (this.#ready.has(hash)) continue;
      const n = randomInt(2 ** 47);
      this.#queue
        .add(async () => {
          if (this.#failed) return;
          const file = this.#file(hash, n);
          try {
            await this.#write(file, text);
          } catch (error) {
            // A part written (a full disk) goes at once.
            await this.#fs.rm(file).catch(() => {});
            throw error;
          }
          this.#ready.set(hash, n);
        })
        .catch(() => {
          // Staging only saves time: a failure stops it, and the plan's writes are made as ever.
          this.#failed = true;
        });
    }
    this.#spent += this.#now() - started;
  }

  /**
   * Stop staging, once the plan is made: staged writes not started are dropped (the plan
   * writes those files itself, once), those under way are waited for.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#queue.clear();
    await this.#queue.onIdle();
  }

  /**
   * A chapter record's file as rendered while its page arrived (its hash and body key), so the
   * plan does not render it again; undefined for one not rendered here.
   */
  renderedOf(record: WireRecord): { hash: string; body: string } | undefined {
    return this.#rendered.get(record);
  }

  /** The staged file holding exactly this text, taken (no other write gets it); or undefined. */
  claim(text: string): string | undefined {
    if (this.#ready.size === 0) return undefined;
    const hash = sha256(text);
    const n = this.#ready.get(hash);
    if (n === undefined) return undefined;
    this.#ready.delete(hash);
    return this.#file(hash, n);
  }

  /** Remove the staged files no write took. */
  async clear(): Promise<void> {
    await this.#queue.onIdle();
    const left = [...this.#ready].map(([hash, n]) => this.#file(hash, n));
    this.#ready.clear();
    await Promise.all(left.map((file) => this.#fs.rm(file)));
    if (this.#exitHook) process.off("exit", this.#exitHook);
    this.#exitHook = undefined;
  }

  /**
   * Remove every staged file of this process, synchronously: on an exit that does not wait
   * (a second Ctrl-C, the grace time of a signal), as the spill file leaves nothing behind.
   * A kill -9 leaves them to the next run, with the other temp files of dead processes.
   */
  #removeAllSync(): void {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return;
    }
    const mine = `.${process.pid}.`;
    for (const name of names) {
      if (!name.includes(mine)) continue;
      try {
        rmSync(path.join(this.#dir, name), { force: true });
      } catch {}
    }
  }

  /** A staged file's path (a temp file of this process, for removeLeftoverTemps). */
  #file(hash: string, n: number): string {
    return path.join(this.#dir, `${hash}.${process.pid}.${n}.tmp`);
  }

  /** The file text a new or changed record is written as; undefined for one nothing writes. */
  #render(list: Listed, record: WireRecord): string | undefined {
    const entry = this.#snapshot?.[list][record.id];
    if (entry && jsonEqual(snapshotRecord(record), entry.record)) return undefined;
    try {
      if (list === "courses") return courseFileText(record.id, courseValuesOfRecord(record));
      if (typeof record.content !== "string") return undefined;
      const file = chapterFile(record.id, chapterValuesOfRecord(record), this.#bodies);
      const text = serializeChapterFile(file);
      this.#rendered.set(record, { hash: sha256(text), body: bodyKey(file.format, file.body) });
      return text;
    } catch {
      // A record the plan cannot write as it is (it reports why): nothing to stage.
      return undefined;
    }
  }

  async #write(file: string, text: string): Promise<void> {
    try {
      await this.#fs.writeFile(file, text);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      await this.#fs.mkdir(this.#dir);
      await this.#fs.writeFile(file, text);
    }
  }
}
