import { Worker } from "node:worker_threads";

// Staged files are written on a thread of their own, so that the main thread goes on asking
// for pages while the disk works (written there, each page's files held back the next
// request). An exit that does not wait (a second Ctrl-C) still leaves no staged file: the
// exit hook tells the thread to stop, waits (a bounded time, on shared memory) for the one
// write it may be in the middle of, then removes every staged file by name.

/** Slots of the shared state: the thread is writing a file; the thread must start no more. */
const BUSY = 0;
const STOP = 1;

/** How long an exit waits for the write under way (ms): one small file. */
const EXIT_WAIT_MS = 2_000;

/** Bytes sent to the thread and not yet written, at most: past it, staging skips records. */
const BACKLOG_BYTES = 4 * 1024 * 1024;

/**
 * The thread's heap: texts wait there to be written, a few megabytes at most, so a small young
 * generation does (the default grows to tens of megabytes). A thread that runs out ends
 * staging, as any failure of it does.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };

type Batch = Array<readonly [file: string, text: string]>;
/**
 * A file as the thread left it: inode, size and mtime (ms), to tell later that the file in the
 * tree is still this one; undefined for a text that is not valid UTF-8 (its bytes are not its
 * hash's).
 */
export type WrittenAs = readonly [ino: number, size: number, mtimeMs: number] | undefined;

/**
 * A staged file moved into place, as the thread found it just after (size, mtime, ctime in ms,
 * inode: what the stat cache keeps); null when it was moved and could not be looked at again;
 * false when it was not moved (the caller writes its text instead, and says what is wrong).
 */
export type Placed = readonly [size: number, mtimeMs: number, ctimeMs: number, ino: number] | null | false;

type Message = { write: Batch } | { place: Array<readonly [from: string, to: string]> };
/** `failed`: why a file could not be written (the rest of its batch was skipped), else false. */
type Reply = { written: Array<[file: string, as: WrittenAs]>; failed: string | false } | { placed: Placed[] };

/** What the thread is told (it sees nothing of this module but this): the state and its slots. */
interface Shared {
  shared: SharedArrayBuffer;
  busy: typeof BUSY;
  stop: typeof STOP;
}

/**
 * The thread's code (run as a worker's script, so that it needs no built file beside this
 * one): each message is a batch of files to write whole; the reply names those written, and
 * says whether one failed (that one removed, the rest of the batch skipped). `load` is the
 * worker's own `require`, given by name in the script: a bundler renames a `require` here.
 */
function writerThread(load: NodeJS.Require): void {
  const { parentPort, workerData } = load("node:worker_threads") as typeof import("node:worker_threads");
  const fs = load("node:fs") as typeof import("node:fs");
  const path = load("node:path") as typeof import("node:path");
  const { shared, busy, stop } = workerData as Shared;
  const state = new Int32Array(shared);
  parentPort?.on("message", (message: Message) => {
    if ("place" in message) {
      parentPort?.postMessage({ placed: message.place.map(([from, to]) => place(from, to)) } satisfies Reply);
      return;
    }
    const written: Array<[string, readonly [number, number, number] | undefined]> = [];
    let failed: string | false = false;
    for (const [file, text] of message.write) {
      Atomics.store(state, busy, 1);
      if (Atomics.load(state, stop) === 1) break;
      try {
        inFolder(file, () => fs.writeFileSync(file, text));
        // Stat here, off the main thread: pull records it in the stat cache once the file is
        // in place and still the same (the tree is not read again for it).
        const stat = text.isWellFormed() ? fs.statSync(file, { throwIfNoEntry: false }) : undefined;
        written.push([file, stat ? [stat.ino, stat.size, stat.mtimeMs] : undefined]);
      } catch (error) {
        failed = (error as Error).message;
        try {
          fs.rmSync(file, { force: true });
        } catch {}
        break;
      } finally {
        Atomics.store(state, busy, 0);
        Atomics.notify(state, busy);
      }
    }
    Atomics.store(state, busy, 0);
    Atomics.notify(state, busy);
    parentPort?.postMessage({ written, failed } satisfies Reply);
  });

  // Make a file (`make`), and where its folder is missing, the folder and the file again.
  function inFolder(file: string, make: () => void): void {
    try {
      make();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      make();
    }
  }

  // A staged file renamed into place (its folder made when missing), then looked at; none once
  // the run is stopping. One rename after another on this thread: from the main thread each
  // was a request to the pool of threads, and 2,200 of them kept it busy 150-190 ms even on a
  // disk in memory.
  function place(from: string, to: string): Placed {
    Atomics.store(state, busy, 1);
    try {
      if (Atomics.load(state, stop) === 1) return false;
      inFolder(to, () => fs.renameSync(from, to));
    } catch {
      return false;
    } finally {
      Atomics.store(state, busy, 0);
      Atomics.notify(state, busy);
    }
    const stat = fs.lstatSync(to, { throwIfNoEntry: false });
    return stat?.isFile() ? [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino] : null;
  }
}

/** Writes files whole on a thread of its own; started at the first write. */
export class StageWriter {
  readonly #state = new Int32Array(new SharedArrayBuffer(8));
  #worker: Worker | undefined;
  #pending = 0;
  #backlog = 0;
  #sizes = new Map<string, number>();
  #idle: Array<() => void> = [];
  /** Why staging stopped, once it did: a thread failed, or could not write a file. */
  #failure: string | undefined;
  /** Told the outcome of the placing under way (see place). */
  #placing: ((placed: Placed[] | undefined) => void) | undefined;
  readonly #onWritten: (files: ReadonlyArray<readonly [string, WrittenAs]>) => void;

  /** `onWritten` is told the files written whole (and their stat), as the thread reports them. */
  constructor(onWritten: (files: ReadonlyArray<readonly [string, WrittenAs]>) => void) {
    this.#onWritten = onWritten;
  }

  /** Why staging stopped before the end (the plan then wrote the files itself); undefined when it did not. */
  get failure(): string | undefined {
    return this.#failure;
  }

  #failed(): boolean {
    return this.#failure !== undefined;
  }

  /** The first failure is the one told. */
  #fail(why: string): void {
    this.#failure ??= why;
  }

  /** Whether the thread can take more now (no failure, the backlog under its bound). */
  get open(): boolean {
    return !this.#failed() && this.#backlog < BACKLOG_BYTES && Atomics.load(this.#state, STOP) === 0;
  }

  /** Whether the thread runs and has not failed: it can place files. */
  get started(): boolean {
    return this.#worker !== undefined && !this.#failed();
  }

  /** Send files to be written; false when it takes none (a failure, a full backlog, stopped). */
  write(batch: Batch): boolean {
    if (!this.open || batch.length === 0) return false;
    const worker = this.#start();
    if (!worker) return false;
    for (const [file, text] of batch) {
      this.#sizes.set(file, text.length);
      this.#backlog += text.length;
    }
    this.#pending++;
    worker.ref();
    worker.postMessage({ write: batch } satisfies Message);
    return true;
  }

  /**
   * Move staged files into place on the thread, in order, once every batch sent is written:
   * each one's outcome, in the order given; undefined when the thread cannot (it failed, or
   * was never started), for the caller to move them itself.
   */
  async place(moves: Array<readonly [from: string, to: string]>): Promise<Placed[] | undefined> {
    await this.settled();
    const worker = this.#worker;
    if (!worker || this.#failed() || moves.length === 0) return undefined;
    return new Promise((resolve) => {
      this.#placing = resolve;
      this.#pending++;
      worker.ref();
      worker.postMessage({ place: moves } satisfies Message);
    });
  }

  /** Once every batch sent is answered (and onWritten told). */
  settled(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Stop at once, synchronously (an exit that does not wait): no write starts after this
   * returns, and the one under way, if any, has ended.
   */
  haltNow(): void {
    Atomics.store(this.#state, STOP, 1);
    const until = Date.now() + EXIT_WAIT_MS;
    while (Atomics.load(this.#state, BUSY) === 1) {
      const left = until - Date.now();
      if (left <= 0 || Atomics.wait(this.#state, BUSY, 1, left) === "timed-out") break;
    }
  }

  /** Stop writing, wait for the batches under way, and end the thread. */
  async close(): Promise<void> {
    Atomics.store(this.#state, STOP, 1);
    await this.settled();
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  #start(): Worker | undefined {
    if (this.#worker) return this.#worker;
    let worker: Worker;
    try {
      worker = new Worker(`(${writerThread.toString()})(require)`, {
        eval: true,
        workerData: {
          shared: this.#state.buffer as SharedArrayBuffer,
          busy: BUSY,
          stop: STOP,
        } satisfies Shared,
        resourceLimits: THREAD_LIMITS,
      });
    } catch (error) {
      // No thread to be had: staging ends, and the plan writes the files.
      this.#fail(`no thread could start: ${(error as Error).message}`);
      return undefined;
    }
    worker.on("message", (reply: Reply) => this.#answered(reply));
    // A thread that cannot run (no memory for it) only ends staging: the plan writes the files.
    worker.on("error", (error) => {
      this.#fail(`its thread stopped: ${error.message}`);
      this.#answerAll();
    });
    this.#worker = worker;
    return worker;
  }

  #answered(reply: Reply): void {
    if ("placed" in reply) {
      const placing = this.#placing;
      this.#placing = undefined;
      placing?.(reply.placed);
      this.#pending--;
      if (this.#pending === 0) this.#answerAll();
      return;
    }
    if (reply.failed) this.#fail(`a file could not be written: ${reply.failed}`);
    for (const [file] of reply.written) {
      this.#backlog -= this.#sizes.get(file) ?? 0;
      this.#sizes.delete(file);
    }
    this.#onWritten(reply.written);
    this.#pending--;
    if (this.#pending === 0) this.#answerAll();
  }

  #answerAll(): void {
    this.#pending = 0;
    this.#backlog = 0;
    this.#sizes.clear();
    this.#worker?.unref();
    // A thread that failed while placing did not say which files it moved: the caller moves
    // each one (a file already moved is then written from its text).
    const placing = this.#placing;
    this.#placing = undefined;
    placing?.(undefined);
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}
