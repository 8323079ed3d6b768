import { randomInt } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { sha256 } from "../../util/hash.js";
import {
  type ChapterValues,
  courseFileText,
  courseValuesOfRecord,
  type Rendered,
  renderChapter,
  sameAsSnapshot,
} from "../model/entities.js";
import type { ContentReader } from "../model/spilled.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { ChapterRenderer } from "./render-pool.js";
import { recordValuesRead } from "./spill.js";
import { type Placed, StageWriter, type WrittenAs } from "./stage-writer.js";

// A pull writes the files of new and changed records while the listing is still arriving:
// each page's records are rendered as they come and their texts written to temp files in the
// uncommitted cache (`incoming/<hash>.<pid>.<n>.tmp`), on a thread of their own (see
// stage-writer.ts) so that the main thread goes on asking for pages. Once the plan is made, a
// write whose text has a staged file is a rename of it into place (one call, not four), and
// the rest are written as before. The plan decides every path and every byte: a staged file
// is used only when its hash is the hash of the text the plan writes, so staging can only
// save time. Unused staged files are removed at the end, and an exit that does not wait (a
// second Ctrl-C) removes them on its way out; a kill -9 leaves them to the next run, with the
// other temp files of dead processes.

/** Rendering on the main thread may take this share of the listing's time; past it, pages wait. */
const SHARE = 0.5;

/** Staging may always take this long (ms): small pulls are staged whole. */
const FREE_MS = 200;

/** Characters of content handed to the render threads and not yet back, at most: past it, pages wait for the plan. */
const RENDER_BACKLOG_CHARS = 4 * 1024 * 1024;

type Batch = Array<readonly [file: string, text: string]>;

/** Which list a page comes from. */
export type Listed = "courses" | "chapters";

export class StagedFiles {
  readonly #dir: string;
  readonly #bodies: BodyCodec;
  readonly #reader: ContentReader | undefined;
  readonly #snapshot: Snapshot | undefined;
  readonly #now: () => number;
  readonly #placeOnThread: boolean;
  /** Staged texts by hash, written whole: the number in their temp file's name. */
  readonly #ready = new Map<string, number>();
  /** How the writer left each staged file (by path), while it is not yet in place. */
  readonly #as = new Map<string, WrittenAs>();
  /** Texts sent to the writer and not yet reported written, by file: their hash and number. */
  readonly #sent = new Map<string, readonly [hash: string, n: number]>();
  /** Hashes sent or written: a text is staged once. */
  readonly #taken = new Set<string>();
  readonly #writer = new StageWriter((files) => this.#written(files));
  /** Chapter records rendered here: their file's hash and body key, for the plan's snapshot. */
  readonly #rendered = new WeakMap<WireRecord, Rendered>();
  /** Course records rendered here: their file's hash. */
  readonly #courses = new WeakMap<WireRecord, string>();
  /** Pages taken and not yet staged, in order; the turn that stages the next one. */
  readonly #waiting: Array<[Listed, readonly WireRecord[]]> = [];
  #turn: NodeJS.Immediate | undefined;
  /** Renders chapters off this thread, when it can (see render-pool.ts). */
  #renderer: ChapterRenderer | undefined;
  /** Pages handed to the render threads and not yet back; their characters of content. */
  readonly #rendering = new Set<Promise<void>>();
  #renderingChars = 0;
  #first: number | undefined;
  #spent = 0;
  #stopped = false;
  /** Set while staged files may exist: a run that exits at once (a second Ctrl-C) removes them. */
  #exitHook: (() => void) | undefined;

  constructor(options: {
    /** The site's uncommitted cache folder. */
    cache: string;
    bodies: BodyCodec;
    /** Reads the texts of the records' spilled contents (see pull/spill.ts). */
    reader?: ContentReader | undefined;
    /** The last sync: records it holds unchanged are not staged (nothing writes them). */
    snapshot: Snapshot | undefined;
    now?: () => number;
    /**
     * Whether staged files may be moved into place on the staging thread (through Node's file
     * system): not when the tree is written through another one. @default true
     */
    placeOnThread?: boolean;
    /** Renders chapters' files off this thread (see render-pool.ts); without it, here. */
    renderer?: ChapterRenderer | undefined;
  }) {
    this.#renderer = options.renderer;
    this.#placeOnThread = options.placeOnThread ?? true;
    this.#dir = path.join(options.cache, "incoming");
    this.#bodies = options.bodies;
    this.#reader = options.reader;
    this.#snapshot = options.snapshot;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Stage the files of one page of a list (after its contents are spilled), on a turn of the
   * event loop of its own: rendered at once, a page held back the next request of its lane
   * (each lane of the listing asks for its next page once its last one is handled), and a
   * pull of 200 x 10 chapters listed 100 ms slower.
   */
  take(list: Listed, records: readonly WireRecord[]): void {
    if (this.#stopped) return;
    this.#waiting.push([list, records]);
    this.#turn ??= setImmediate(() => this.#next());
  }

  /** Stage the pages still waiting for their turn, now (the listing is whole). */
  flush(): void {
    if (this.#turn) clearImmediate(this.#turn);
    this.#turn = undefined;
    for (const [list, records] of this.#waiting.splice(0)) this.#stage(list, records);
  }

  #next(): void {
    this.#turn = undefined;
    const page = this.#waiting.shift();
    if (page) this.#stage(...page);
    if (this.#waiting.length > 0) this.#turn = setImmediate(() => this.#next());
  }

  #stage(list: Listed, records: readonly WireRecord[]): void {
    const started = this.#now();
    this.#first ??= started;
    if (this.#stopped || !this.#writer.open) return;
    if (this.#spent > FREE_MS && this.#spent > (started - this.#first) * SHARE) return;
    if (list === "chapters" && this.#renderer) this.#renderOnThreads(this.#renderer, records);
    else {
      const batch: Batch = [];
      for (const record of records) {
        const text = this.#render(list, record);
        if (text !== undefined)
          this.#add(batch, list, record, text, this.#rendered.get(record)?.hash ?? sha256(text));
      }
      this.#send(batch);
    }
    this.#spent += this.#now() - started;
  }

  /** A rendered file to stage: its text goes into the batch unless a text of its hash did. */
  #add(batch: Batch, list: Listed, record: WireRecord, text: string, hash: string): void {
    if (list === "courses") this.#courses.set(record, hash);
    if (this.#taken.has(hash)) return;
    this.#taken.add(hash);
    const n = randomInt(2 ** 47);
    const file = this.#file(hash, n);
    this.#sent.set(file, [hash, n]);
    batch.push([file, text]);
  }

  /** Hand a batch to the writer thread. */
  #send(batch: Batch): void {
    if (batch.length === 0) return;
    this.#exitHook ??= this.#hookExit();
    if (!this.#writer.write(batch)) for (const [file] of batch) this.#sent.delete(file);
  }

  /**
   * Render a page's chapters on the render threads and stage their files as they come back
   * (see render-pool.ts); with too much waiting there, the page is left to the plan. Threads
   * that fail leave this page and the next ones to this thread.
   */
  #renderOnThreads(renderer: ChapterRenderer, records: readonly WireRecord[]): void {
    if (this.#renderingChars > RENDER_BACKLOG_CHARS) return;
    const chapters: Array<readonly [number, ChapterValues]> = [];
    const which: WireRecord[] = [];
    let chars = 0;
    for (const record of records) {
      const values = this.#valuesToRender(record);
      if (values === undefined) continue;
      chapters.push([record.id, values]);
      which.push(record);
      chars += (values.content as string).length;
    }
    if (chapters.length === 0) return;
    this.#renderingChars += chars;
    const rendering = renderer.render(chapters).then(
      (results) => {
        const batch: Batch = [];
        for (const [i, result] of results.entries()) {
          if (!result) continue;
          const record = which[i]!;
          this.#rendered.set(record, { hash: result.hash, body: result.body, blob: result.blob });
          this.#add(batch, "chapters", record, result.text, result.hash);
        }
        if (!this.#stopped) this.#send(batch);
      },
      () => {
        // No thread to render on: the pages still to come are rendered here (this one by the plan).
        if (this.#renderer === renderer) this.#renderer = undefined;
      },
    );
    this.#rendering.add(rendering);
    void rendering.finally(() => {
      this.#rendering.delete(rendering);
      this.#renderingChars -= chars;
    });
  }

  /** Once every page handed to the render threads is back (and its files sent to be written). */
  async rendered(): Promise<void> {
    while (this.#rendering.size > 0) await Promise.all(this.#rendering);
  }

  /**
   * The listing is whole: stage the pages still waiting, wait for every page handed to the
   * render threads, then end the threads. Their heaps (tens of megabytes) go before the plan is
   * made, the costliest part of a large pull in memory; a chapter left unrendered is rendered by
   * the plan, on this thread.
   */
  async listed(): Promise<void> {
    this.flush();
    await this.rendered();
    const renderer = this.#renderer;
    this.#renderer = undefined;
    await renderer?.close();
  }

  /**
   * Stop staging once the plan is made (the pages still waiting are staged first), and wait for
   * the files under way to be written.
   */
  async stop(): Promise<void> {
    this.flush();
    await this.rendered();
    this.#stopped = true;
    await this.#renderer?.close();
    await this.#writer.settled();
  }

  /**
   * A chapter record's file as rendered while its page arrived (its hash and body key), so the
   * plan does not render it again; undefined for one not rendered here.
   */
  renderedOf(record: WireRecord): Rendered | undefined {
    return this.#rendered.get(record);
  }

  /** The hash of a course record's file as rendered while its page arrived; or undefined. */
  courseHashOf(record: WireRecord): string | undefined {
    return this.#courses.get(record);
  }

  /**
   * The staged file holding exactly the text of this hash (SHA-256), taken (no other write gets
   * it); or undefined.
   */
  claim(hash: string): string | undefined {
    const n = this.#ready.get(hash);
    if (n === undefined) return undefined;
    this.#ready.delete(hash);
    return this.#file(hash, n);
  }

  /**
   * How the writer thread left a staged file (inode, size, mtime), taken: undefined when it
   * did not say (a text that is not valid UTF-8).
   */
  writtenAs(file: string): WrittenAs {
    const as = this.#as.get(file);
    this.#as.delete(file);
    return as;
  }

  /**
   * Move claimed staged files into place (absolute paths), one after another on the staging
   * thread: each one's outcome (see Placed), in order; undefined when they are to be moved
   * here (no thread, or the tree is written through another file system).
   */
  place(moves: Array<readonly [from: string, to: string]>): Promise<Placed[] | undefined> {
    return this.#placeOnThread ? this.#writer.place(moves) : Promise.resolve(undefined);
  }

  /**
   * Why staging stopped before the listing was whole (its thread failed, or a file could not be
   * written): the files it did not stage were written by the plan. Undefined when it did not.
   */
  get failure(): string | undefined {
    return this.#writer.failure;
  }

  /** Whether place moves files (else every staged file is moved by the caller). */
  get placesOnThread(): boolean {
    return this.#placeOnThread && this.#writer.started;
  }

  /** Remove the staged files no write took (never throws: what is left goes with the next run). */
  async clear(): Promise<void> {
    this.#stopped = true;
    if (this.#turn) clearImmediate(this.#turn);
    this.#turn = undefined;
    this.#waiting.length = 0;
    await this.#renderer?.close();
    await this.#writer.close();
    // Every staged file of this run still here: the claimed ones were moved out. (Also those
    // a thread that failed wrote without saying so.)
    if (this.#exitHook) this.#removeAllSync();
    this.#ready.clear();
    if (this.#exitHook) process.off("exit", this.#exitHook);
    this.#exitHook = undefined;
  }

  /** The writer wrote these files whole: they can be claimed. */
  #written(files: ReadonlyArray<readonly [string, WrittenAs]>): void {
    for (const [file, as] of files) {
      const sent = this.#sent.get(file);
      if (sent === undefined) continue;
      this.#sent.delete(file);
      this.#ready.set(sent[0], sent[1]);
      if (as) this.#as.set(file, as);
    }
  }

  /**
   * On an exit that does not wait (a second Ctrl-C, the grace time of a signal): stop the
   * writer (the file under way ends first), then remove every staged file of this process,
   * as the spill file leaves nothing behind.
   */
  #hookExit(): () => void {
    const hook = () => {
      this.#writer.haltNow();
      this.#removeAllSync();
    };
    process.on("exit", hook);
    return hook;
  }

  /** Remove every staged file of this process, synchronously. */
  #removeAllSync(): void {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return;
    }
    const mine = `.${process.pid}.`;
    for (const name of names) if (name.includes(mine)) removeQuietly(path.join(this.#dir, name));
  }

  /** A staged file's path (a temp file of this process, for removeLeftoverTemps). */
  #file(hash: string, n: number): string {
    return path.join(this.#dir, `${hash}.${process.pid}.${n}.tmp`);
  }

  /** The file text a new or changed record is written as; undefined for one nothing writes. */
  #render(list: Listed, record: WireRecord): string | undefined {
    if (this.#unchanged(list, record)) return undefined;
    try {
      if (list === "courses") return courseFileText(record.id, courseValuesOfRecord(record));
      const values = recordValuesRead(record, this.#reader);
      if (typeof values.content !== "string") return undefined;
      const { text, hash, body, blob } = renderChapter(record.id, values, this.#bodies);
      this.#rendered.set(record, { hash, body, blob });
      return text;
    } catch {
      // A record the plan cannot write as it is (it reports why): nothing to stage.
      return undefined;
    }
  }

  /** A new or changed chapter's values, its text read, to render; undefined for one nothing writes. */
  #valuesToRender(record: WireRecord): ChapterValues | undefined {
    if (this.#unchanged("chapters", record)) return undefined;
    try {
      const values = recordValuesRead(record, this.#reader);
      return typeof values.content === "string" ? values : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether the last sync holds this record as it is (nothing writes its file). */
  #unchanged(list: Listed, record: WireRecord): boolean {
    const entry = this.#snapshot?.[list][record.id];
    return entry !== undefined && sameAsSnapshot(record, entry.record);
  }
}

/** Remove a staged file; one that cannot be removed is left to the next run's temp-file sweep. */
function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {}
}
