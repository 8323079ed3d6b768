import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Listing, ListOptions } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { itemIdentity } from "../../api/responses.js";
import type { JsonObject } from "../../api/wire.js";
import { recordFilePath } from "../../tree/layout.js";
import { sha256 } from "../../util/hash.js";
import type { SetTimer } from "../../util/timer.js";
import type { Change } from "../model/report.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { Batch } from "./coalescer.js";
import { EchoLog, newEvents, oldestFirst, type RemoteWork, workOf } from "./site-events.js";

export type { RemoteWork } from "./site-events.js";

/** The part of the API client that reads the site's events. */
export interface EventsClient {
  listItems(path: string, options?: Omit<ListOptions, "onRecords">): Promise<Listing<JsonObject>>;
}

/** On a site without events, the wait between polls is at least this many times the last comparison. */
export const COMPARE_SHARE = 4;

/** How watch polls the site. */
export interface RemoteOptions {
  /** Time between polls while the author saves, in ms. @default 10_000 */
  pollMs?: number;
  /** The slowest pace once the author is idle (the wait doubles up to it). @default 60_000 */
  idlePollMs?: number;
  /** Time without a save after which the author counts as idle. @default 180_000 */
  idleAfterMs?: number;
  /** A full comparison at least this often, for changes a site makes without events. @default 300_000 */
  fullEveryMs?: number;
}

/** A poll's verdict and what to call once its pull is done (the events it read then count as seen). */
export interface Poll {
  work: RemoteWork;
  done(): void;
}

/**
 * Decides what each poll pulls (DESIGN section 4, watch): the newest page of the site's events
 * when the site serves them (one request for a site that did not change), else, and at start,
 * after a gap in the events, and every few minutes, a full comparison. The time it counts is
 * the sum of the waits it scheduled, so that tests move it by firing timers.
 */
export class RemoteWatcher {
  /** Whether GET /events answers newest first; undefined until the first poll. */
  private events: boolean | undefined;
  /** The identities of the last page of events read (undefined: none read yet). */
  private seen: Set<unknown> | undefined;
  private sinceFull = Number.POSITIVE_INFINITY;
  /** How long the last full comparison took, in ms. */
  private comparedMs = 0;
  private sinceSave = 0;
  private wait: number;
  private readonly pollMs: number;
  private readonly idlePollMs: number;
  private readonly idleAfterMs: number;
  private readonly fullEveryMs: number;
  /** watch's own writes, known when their events come back. */
  readonly echoes = new EchoLog();

  constructor(
    private readonly client: EventsClient,
    options: RemoteOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 10_000;
    this.idlePollMs = Math.max(this.pollMs, options.idlePollMs ?? 60_000);
    this.idleAfterMs = options.idleAfterMs ?? 180_000;
    this.fullEveryMs = options.fullEveryMs ?? 300_000;
    this.wait = this.pollMs;
  }

  /** The author saved: polls go at the active pace again. */
  saved(): void {
    this.sinceSave = 0;
    this.wait = this.pollMs;
  }

  /** The wait between polls now, in ms. */
  get pace(): number {
    return this.wait;
  }

  /**
   * The wait before the next poll (counted as time passing): the pace, doubling while idle; on
   * a site without events, at least COMPARE_SHARE times what the last comparison took, so that
   * paging the lists never takes more than a fifth of the time (and of the rate the site
   * allows) from the pushes.
   */
  nextWait(): number {
    const idle = this.sinceSave >= this.idleAfterMs;
    this.wait = idle ? Math.min(this.idlePollMs, this.wait * 2) : this.pollMs;
    const wait = this.events === false ? Math.max(this.wait, COMPARE_SHARE * this.comparedMs) : this.wait;
    this.sinceSave += wait;
    this.sinceFull += wait;
    return wait;
  }

  /** A poll's pull of the whole site took this long (ms): on a site without events, it paces the polls. */
  compared(ms: number): void {
    this.comparedMs = Math.max(0, ms);
  }

  /** Watch pushed this change: its event is its own write coming back. */
  pushed(change: Change): void {
    const action =
      change.outcome === "created" || change.outcome === "deleted"
        ? change.outcome
        : change.outcome === "updated" || change.outcome === "renamed"
          ? "updated"
          : undefined;
    if (action && change.id !== undefined) this.echoes.wrote(change.kind, change.id, action);
  }

  /** Read what changed on the site since the last poll whose pull was done. */
  async poll(snapshot: () => Promise<Snapshot | undefined>): Promise<Poll> {
    const page = this.events === false ? undefined : await this.firstPage();
    const seen = page && new Set(page.map((event) => itemIdentity(event)));
    const work = await this.workFor(page, snapshot);
    return {
      work,
      done: () => {
        if (seen) this.seen = seen;
        if (work.kind === "full") {
          this.sinceFull = 0;
          this.echoes.clear();
        }
      },
    };
  }

  private async workFor(
    page: JsonObject[] | undefined,
    snapshot: () => Promise<Snapshot | undefined>,
  ): Promise<RemoteWork> {
    if (this.sinceFull === Number.POSITIVE_INFINITY) return { kind: "full", why: "start" };
    if (page === undefined) return { kind: "full", why: "the site lists no events" };
    if (this.sinceFull >= this.fullEveryMs) return { kind: "full", why: "periodic" };
    const fresh = newEvents(page, this.seen ?? new Set());
    if (fresh === undefined) return { kind: "full", why: "a gap in the events" };
    // The snapshot is read only when there is something new to place.
    if (fresh.length === 0) return { kind: "none" };
    return workOf(fresh, await snapshot(), (event) => this.echoes.take(event));
  }

  /** Page 1 of the events, newest first; undefined when the site has none to serve. */
  private async firstPage(): Promise<JsonObject[] | undefined> {
    try {
      const listing = await this.client.listItems("events", { stopAfter: () => true });
      if (oldestFirst(listing.records)) this.events = false;
      else this.events = true;
      return this.events ? listing.records : undefined;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      this.events = false;
      return undefined;
    }
  }
}

/**
 * Files a pull wrote, as it left them: the watcher's events for them are the pull's own
 * writes, not the author's saves, until the file differs from what was left.
 */
export class WrittenLog {
  /** Path → SHA-256 of the file as the pull left it; null: the pull left no file there. */
  private readonly files = new Map<string, string | null>();

  constructor(private readonly root: string) {}

  /** Remember the files of these pulled changes as they are now. */
  async record(changes: readonly Change[]): Promise<void> {
    for (const change of changes) {
      if (change.outcome === "unchanged") continue;
      const files = [change.path, change.from].filter((p): p is string => p !== undefined);
      await this.recordFiles(files.map((p) => recordFilePath(change.kind, p)).concat(change.copy ?? []));
    }
  }

  /** Remember these files (relative paths, or absolute ones under the root) as they are now. */
  async recordFiles(files: readonly string[]): Promise<void> {
    for (const file of files) {
      const rel = path.isAbsolute(file) ? path.relative(this.root, file).split(path.sep).join("/") : file;
      if (!rel.startsWith("../")) this.files.set(rel, await this.hashOf(rel));
    }
  }

  /** Whether the file is as the pull left it (then its event is no save); else it is forgotten. */
  async ours(file: string): Promise<boolean> {
    if (!this.files.has(file)) return false;
    if (this.files.get(file) === (await this.hashOf(file))) return true;
    this.files.delete(file);
    return false;
  }

  /** The batch without the files as a pull left them: the watcher saw the pull's writes. */
  async without(batch: Batch): Promise<Batch> {
    const keep = async (files: string[]) => {
      const kept: string[] = [];
      for (const file of files) if (!(await this.ours(file))) kept.push(file);
      return kept;
    };
    return { changed: await keep(batch.changed), deleted: await keep(batch.deleted) };
  }

  private async hashOf(file: string): Promise<string | null> {
    try {
      return sha256(await readFile(path.join(this.root, file)));
    } catch {
      return null;
    }
  }
}

/** Polls on a timer until stopped: each tick's promise is awaited before the next is set. */
export class PollTimer {
  private cancel: (() => void) | undefined;
  private stopped = false;
  /** The tick under way, if any. */
  running: Promise<void> | undefined;

  constructor(
    private readonly setTimer: SetTimer,
    private readonly wait: () => number,
    private readonly tick: () => Promise<void>,
  ) {}

  /** Set the timer of the next poll. */
  arm(): void {
    if (this.stopped) return;
    this.cancel = this.setTimer(() => {
      this.cancel = undefined;
      if (this.stopped) return;
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.arm();
      });
    }, this.wait());
  }

  /** No more polls; resolves once the one under way is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await this.running;
  }
}

/**
 * Records the site changes right after each of watch's pushes: a file pushed and then changed
 * on the site within `afterMs`, more than `limit` times within `windowMs`, is bouncing (an
 * automation on the site undoing each save), and watch stops sending it.
 */
export class BounceLog {
  private readonly pushedAt = new Map<string, number>();
  private readonly bounces = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly limit = 3,
    private readonly windowMs = 300_000,
    private readonly afterMs = 60_000,
  ) {}

  /** Watch pushed this file. */
  pushed(file: string): void {
    this.pushedAt.set(file, this.now());
  }

  /** The site changed this file: how many times in a row it did so right after a push, once over the limit. */
  pulled(file: string): number | undefined {
    const now = this.now();
    const at = this.pushedAt.get(file);
    this.pushedAt.delete(file);
    if (at === undefined || now - at > this.afterMs) return undefined;
    const times = [...(this.bounces.get(file) ?? []).filter((t) => now - t <= this.windowMs), now];
    this.bounces.set(file, times);
    return times.length > this.limit ? times.length : undefined;
  }
}
