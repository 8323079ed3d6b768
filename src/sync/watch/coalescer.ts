import { realSetTimer, type SetTimer } from "../../util/timer.js";

/** A file-system event as the watcher reports it, path relative to the tree root with /. */
export interface FsEvent {
  kind: "add" | "change" | "unlink";
  path: string;
}

/** What a burst of events comes to once it settles. */
export interface Batch {
  /** Files that exist and changed (or appeared): to push. */
  changed: string[];
  /** Files that are gone at the end of the burst. */
  deleted: string[];
}

/** Options of the coalescer. */
export interface CoalescerOptions {
  /** Quiet time after the last event before a batch is flushed; default 300 ms. */
  debounceMs?: number;
  /** Longest a busy stream of events may hold a batch back; default 2000 ms. */
  maxWaitMs?: number;
  /** Called with each settled batch; the next batch waits until it resolves. */
  onBatch: (batch: Batch) => Promise<void>;
  /** The clock, in milliseconds; default Date.now. */
  now?: () => number;
  /** Schedules the flush; default Node's setTimeout. */
  setTimer?: SetTimer;
}

/**
 * Coalesces bursts of saves into one batch per file: many saves of a file become one change
 * with the final content, and an editor's atomic save (unlink then add, or a rename over the
 * file) is a change, never a delete, because only the state at the end of the burst counts.
 */
export class Coalescer {
  private pending = new Map<string, FsEvent["kind"]>();
  private cancelTimer: (() => void) | undefined;
  private firstAt: number | undefined;
  private running: Promise<void> = Promise.resolve();
  /** Told once the next batch is handled. */
  private waiters: Array<() => void> = [];
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly setTimer: SetTimer;

  constructor(private readonly options: CoalescerOptions) {
    this.debounceMs = options.debounceMs ?? 300;
    this.maxWaitMs = options.maxWaitMs ?? 2000;
    this.now = options.now ?? Date.now;
    this.setTimer = options.setTimer ?? realSetTimer;
  }

  /** Record one event and (re)start the quiet-time timer. */
  push(event: FsEvent): void {
    const before = this.pending.get(event.path);
    if (before === "add" && event.kind === "unlink") {
      // A file that came and went inside one burst (an editor's temp file) never was.
      this.pending.delete(event.path);
    } else {
      this.record(event, before);
    }
    const now = this.now();
    this.firstAt ??= now;
    this.cancelTimer?.();
    const wait = Math.max(0, Math.min(this.debounceMs, this.firstAt + this.maxWaitMs - now));
    this.cancelTimer = this.setTimer(() => this.flush(), wait);
  }

  private record(event: FsEvent, before: FsEvent["kind"] | undefined): void {
    // Whatever happened in between, the last event says whether the file is there now;
    // an add after an unlink is the same file saved again.
    const kind = event.kind === "add" && before === "unlink" ? "change" : event.kind;
    this.pending.set(event.path, kind === "change" && before === "add" ? "add" : kind);
  }

  /** Hand the settled batch over now (also used on shutdown). */
  flush(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.firstAt = undefined;
    if (this.pending.size === 0) return this.running;
    const events = this.pending;
    this.pending = new Map();
    const batch: Batch = { changed: [], deleted: [] };
    for (const [path, kind] of [...events].sort(([a], [b]) => (a < b ? -1 : 1))) {
      (kind === "unlink" ? batch.deleted : batch.changed).push(path);
    }
    this.running = this.running.then(() => this.options.onBatch(batch));
    const waiters = this.waiters.splice(0);
    const release = () => {
      for (const resolve of waiters) resolve();
    };
    void this.running.then(release, release);
    return this.running;
  }

  /** Whether saves are waiting for their quiet time to end. */
  get waiting(): boolean {
    return this.pending.size > 0;
  }

  /** Resolves once the next batch has been handled. */
  nextBatch(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stop the timer; pending events are dropped unless flushed first. */
  close(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }
}
