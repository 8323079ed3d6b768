import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { BodyCodec } from "../../tree/bodies.js";
import type { ChapterValues, Rendered } from "../model/entities.js";

// Rendering a chapter's file is converting its HTML (the costly step of a first pull: a 1 MB
// chapter takes most of a second) and hashing the text. A pull renders the chapters of each
// page on these threads while the next pages are on their way: the main thread only hands the
// values over and takes the texts back, so no request waits on a conversion.

/** A chapter's file as rendered: its text, and what the snapshot records of it. */
export type RenderedText = Rendered & { text: string };

/** Renders chapters' files off the main thread. */
export interface ChapterRenderer {
  /**
   * Each chapter's file (id and values, the content read), in order; null for one that cannot
   * be rendered. Rejects when the threads cannot run (the caller renders them itself).
   */
  render(
    chapters: ReadonlyArray<readonly [id: number, values: ChapterValues]>,
  ): Promise<Array<RenderedText | null>>;
  /** Start a thread now, so that it has loaded by the time the first page comes. */
  warm(): void;
  /** End the threads (renders under way are dropped: their promises reject). */
  close(): Promise<void>;
}

/** What a thread is sent. */
export interface RenderJob {
  mode: BodyCodec["mode"];
  chapters: ReadonlyArray<readonly [id: number, values: ChapterValues]>;
}

/** What a thread answers: one entry per chapter of its job. */
export type RenderReply = Array<RenderedText | null>;

/** Characters of content waiting on the busiest thread before another one starts. */
const SPREAD_CHARS = 64 * 1024;

/**
 * A thread's heap: its young generation at 12 MB instead of the default 48 MB, which it fills
 * while it converts and holds until it ends. Rendering 4,000 editor chapters and a 1 MB one on
 * one thread peaked 22 MB lower with it, for the same CPU time to within the noise of three
 * runs. The old generation is left as it is: a chapter of several megabytes must still render.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 12 };

/** One thread and the jobs it has not answered, oldest first. */
interface Lane {
  worker: Worker;
  waiting: Array<{ chars: number; resolve: (reply: RenderReply) => void; reject: (error: Error) => void }>;
  chars: number;
}

/**
 * Render chapters on worker threads for a codec made by `bodyCodec`, whose conversion a thread
 * can make from its mode alone: one per core but the one the main thread keeps listing on (at
 * least one, at most three), started as the work needs them. Each thread costs the process
 * its own start, module loading and compiling: on two cores, a second thread took 0.8 s of
 * CPU more and finished no sooner. Undefined for another codec, or run from the TypeScript
 * sources (no built worker beside this file): the caller renders on its own thread.
 */
export function renderThreads(
  bodies: BodyCodec,
  options: { threads?: number } = {},
): ChapterRenderer | undefined {
  if (!bodies.standard) return undefined;
  const url = new URL("./render-worker.js", import.meta.url);
  if (!existsSync(fileURLToPath(url))) return undefined;
  const most = Math.max(1, options.threads ?? Math.min(availableParallelism() - 1, 3));
  return new RenderPool(url, bodies.mode, most);
}

class RenderPool implements ChapterRenderer {
  readonly #url: URL;
  readonly #mode: BodyCodec["mode"];
  readonly #most: number;
  readonly #lanes: Lane[] = [];
  #failure: Error | undefined;

  constructor(url: URL, mode: BodyCodec["mode"], most: number) {
    this.#url = url;
    this.#mode = mode;
    this.#most = most;
  }

  render(chapters: ReadonlyArray<readonly [id: number, values: ChapterValues]>): Promise<RenderReply> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (chapters.length === 0) return Promise.resolve([]);
    let chars = 0;
    for (const [, values] of chapters)
      chars += typeof values.content === "string" ? values.content.length : 0;
    let lane: Lane;
    try {
      lane = this.#laneFor();
    } catch (error) {
      this.#failure = error as Error;
      return Promise.reject(this.#failure);
    }
    return new Promise((resolve, reject) => {
      lane.waiting.push({ chars, resolve, reject });
      lane.chars += chars;
      lane.worker.ref();
      lane.worker.postMessage({ mode: this.#mode, chapters } satisfies RenderJob);
    });
  }

  warm(): void {
    if (this.#lanes.length > 0 || this.#failure) return;
    try {
      this.#start();
    } catch (error) {
      this.#failure = error as Error;
    }
  }

  /** The least busy thread; a new one when every thread has work waiting and more may start. */
  #laneFor(): Lane {
    let best: Lane | undefined;
    for (const lane of this.#lanes) if (!best || lane.chars < best.chars) best = lane;
    if (best && (best.chars < SPREAD_CHARS || this.#lanes.length >= this.#most)) return best;
    return this.#start();
  }

  #start(): Lane {
    const worker = new Worker(this.#url, { resourceLimits: THREAD_LIMITS });
    const lane: Lane = { worker, waiting: [], chars: 0 };
    worker.unref();
    worker.on("message", (reply: RenderReply) => {
      const job = lane.waiting.shift();
      if (!job) return;
      lane.chars -= job.chars;
      if (lane.waiting.length === 0) worker.unref();
      job.resolve(reply);
    });
    const fail = (error: Error) => {
      this.#failure ??= error;
      for (const job of lane.waiting.splice(0)) job.reject(error);
      lane.chars = 0;
      const at = this.#lanes.indexOf(lane);
      if (at >= 0) this.#lanes.splice(at, 1);
    };
    worker.on("error", fail);
    worker.on("exit", () => fail(new Error("a render thread ended")));
    this.#lanes.push(lane);
    return lane;
  }

  async close(): Promise<void> {
    this.#failure ??= new Error("the render threads were closed");
    const lanes = this.#lanes.splice(0);
    for (const lane of lanes) for (const job of lane.waiting.splice(0)) job.reject(this.#failure);
    await Promise.all(lanes.map((lane) => lane.worker.terminate()));
  }
}
