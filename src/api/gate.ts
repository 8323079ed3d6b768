import PQueue from "p-queue";
import { usageError } from "../errors.js";
import { Pacer, RATE_WINDOW_SLACK_MS, type Start } from "./pacing.js";

export { RATE_WINDOW_SLACK_MS, type Start } from "./pacing.js";

/** Options of the request gate. */
export interface GateOptions {
  /** Requests in flight at once. A whole number from 1 up. @default 4 */
  concurrency?: number;
  /**
   * Most requests that may start in any rolling second (a sliding window: p-queue's strict
   * mode). A fraction rounds down (2.5 allows 2); below 1 it spaces starts 1000/rps ms apart.
   * Unset means no cap: only the concurrency and 429s limit the pace. @default undefined
   */
  requestsPerSecond?: number;
  /** How the gate waits out a pause. Tests inject a fake. @default a setTimeout promise */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Successes in a row, after a 429 lowered the concurrency, before it steps up by one again
   * (until it is back at `concurrency`). @default 8
   */
  recoverAfter?: number;
  /** The clock the pacer keeps start times by (epoch milliseconds). @default Date.now */
  now?: () => number;
  /** Quiet time after which a limit learned from 429s rises by one. @default five minutes */
  creepAfterMs?: number;
}

/** The default number of requests in flight. */
const DEFAULT_CONCURRENCY = 4;

/** A setTimeout-based sleep: the default, replaced in tests. */
export function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The one gate every HTTP attempt passes (DESIGN section 6): a p-queue that knows the
 * concurrency and the rate. One task is one attempt; waits between attempts happen outside
 * the gate so a request that is backing off holds no slot.
 */
export class RequestGate {
  readonly #queue: PQueue;
  readonly #maxConcurrency: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #recoverAfter: number;
  readonly #pacer: Pacer;
  #pauses = 0;
  #closed: Error | undefined;
  #slowedInThisPause = false;
  #successStreak = 0;

  constructor(options: GateOptions = {}) {
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw usageError(`concurrency must be a whole number from 1 up, got ${String(concurrency)}`);
    }
    const rps = options.requestsPerSecond;
    if (rps !== undefined && !(Number.isFinite(rps) && rps > 0)) {
      throw usageError(`requests_per_second must be a number above 0, got ${String(rps)}`);
    }
    const recoverAfter = options.recoverAfter ?? 8;
    if (!Number.isInteger(recoverAfter) || recoverAfter < 1) {
      throw usageError(`recoverAfter must be a whole number from 1 up, got ${String(recoverAfter)}`);
    }
    this.#maxConcurrency = concurrency;
    this.#sleep = options.sleep ?? realSleep;
    this.#recoverAfter = recoverAfter;
    this.#queue = new PQueue({ concurrency, ...rateWindow(rps) });
    this.#pacer = new Pacer({
      now: options.now ?? Date.now,
      sleep: this.#sleep,
      ...(options.creepAfterMs === undefined ? {} : { creepAfterMs: options.creepAfterMs }),
    });
  }

  /**
   * Run one attempt through the gate. Higher priority starts first (retries use 1). The task
   * gets its start, to report a 429 (`refused`) or the answer's headers (`observe`) with.
   */
  run<T>(task: (start: Start) => Promise<T>, options: { priority?: number } = {}): Promise<T> {
    const guarded = async () => {
      if (this.#closed) throw this.#closed;
      const start = await this.#pacer.admit();
      if (this.#closed) throw this.#closed;
      return task(start);
    };
    return this.#queue.add(guarded, { priority: options.priority ?? 0 });
  }

  /**
   * The site answered `start`: note whether it took it (anything but a 429) and pace by the
   * answer's rate-limit headers, if it has any. A 429 also teaches the pace (`Pacer.refused`).
   */
  answered(start: Start, status: number, headers: Record<string, string | string[] | undefined>): void {
    if (status === 429) {
      this.#pacer.observe(start, headers);
      this.#pacer.refused(start);
    } else {
      this.#pacer.answered(start, headers);
    }
  }

  /** Starts per second-and-slack the site has shown it allows; undefined before any 429. */
  get learnedLimit(): number | undefined {
    return this.#pacer.learnedLimit;
  }

  /**
   * Start nothing more: attempts in flight finish, every attempt not yet started (waiting, or
   * asked for later) rejects with `reason`. For a run asked to stop (Ctrl-C).
   */
  close(reason: Error): void {
    this.#closed ??= reason;
    this.#queue.start();
  }

  /**
   * Hold every attempt that has not started yet for `ms`, then go on. Call it from inside the
   * task that saw the 429, before the task ends, so the slot it frees starts nothing. Pauses
   * overlap: the gate opens when the last one ends.
   */
  pauseFor(ms: number): Promise<void> {
    this.#pauses += 1;
    this.#queue.pause();
    return this.#sleep(Math.max(0, ms)).finally(() => {
      this.#pauses -= 1;
      if (this.#pauses === 0) {
        this.#slowedInThisPause = false;
        this.#queue.start();
      }
    });
  }

  /**
   * Lower the pace after a 429: halve the concurrency (not below 1). A burst of 429s that
   * lands in one pause halves it once, not once per response.
   */
  slowDown(): void {
    this.#successStreak = 0;
    if (this.#slowedInThisPause) return;
    if (this.#pauses > 0) this.#slowedInThisPause = true;
    this.#queue.concurrency = Math.max(1, Math.floor(this.#queue.concurrency / 2));
  }

  /** After a 429: pause for `ms` and lower the pace. Call it from inside the task, as pauseFor. */
  throttle(ms: number): Promise<void> {
    const resumed = this.pauseFor(ms);
    this.slowDown();
    return resumed;
  }

  /** Note a successful attempt: after enough in a row, step the concurrency back up by one. */
  recordSuccess(): void {
    if (this.#queue.concurrency >= this.#maxConcurrency) return;
    this.#successStreak += 1;
    if (this.#successStreak >= this.#recoverAfter) {
      this.#successStreak = 0;
      this.#queue.concurrency = Math.min(this.#maxConcurrency, this.#queue.concurrency + 1);
    }
  }

  /** The concurrency in force now (lower than configured after a 429). */
  get concurrency(): number {
    return this.#queue.concurrency;
  }

  /** The configured concurrency: the most the gate ever allows. */
  get maxConcurrency(): number {
    return this.#maxConcurrency;
  }

  /** Attempts running now. */
  get pending(): number {
    return this.#queue.pending;
  }

  /** Attempts waiting to start. */
  get size(): number {
    return this.#queue.size;
  }

  /** Whether a pause holds the gate shut. */
  get isPaused(): boolean {
    return this.#queue.isPaused;
  }

  /** Resolves when nothing is queued or running. */
  onIdle(): Promise<void> {
    return this.#queue.onIdle();
  }
}

/**
 * p-queue options for a cap of `rps` starts per rolling second: intervalCap = rps over a
 * window of a second plus slack. A fraction rounds down (2.5 allows 2 a second); below 1, one
 * start per 1000/rps ms.
 */
function rateWindow(rps: number | undefined): { intervalCap?: number; interval?: number; strict?: boolean } {
  if (rps === undefined) return {};
  if (rps >= 1) return { intervalCap: Math.floor(rps), interval: 1000 + RATE_WINDOW_SLACK_MS, strict: true };
  return { intervalCap: 1, interval: Math.ceil(1000 / rps) + RATE_WINDOW_SLACK_MS, strict: true };
}
