import { mkdir } from "node:fs/promises";
import path from "node:path";
import { watch as chokidarWatch, type FSWatcher } from "chokidar";
import { isCredentialsRefused } from "../../api/errors.js";
import { UserError } from "../../errors.js";
import { ignoreMatcher } from "../../tree/ignore-rules.js";
import { COURSES_DIR, courseFolderOf, recordFilePath } from "../../tree/layout.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import { realSetTimer, type SetTimer } from "../../util/timer.js";
import type { Change } from "../model/report.js";
import { type PushResult, push } from "../push/index.js";
import { acquireLock } from "../state/lock.js";
import { SiteState } from "../state/workspace.js";
import { type Batch, Coalescer } from "./coalescer.js";
import type { WatchClient, WatchOptions } from "./options.js";
import { localPending } from "./pending.js";
import { pullIn } from "./pull-in.js";
import { BounceLog, PollTimer, RemoteWatcher, type RemoteWork, WrittenLog } from "./remote.js";
import { SavedDuringPull } from "./save-guard.js";

export type { Pending, WatchClient, WatchEvent, WatchOptions } from "./options.js";

/**
 * Push as the author saves: a loop around push (same plan, same executor), fed by chokidar
 * through the coalescer. Resolves when stopped; false when the opening plan was refused.
 */
export async function watchTree(options: WatchOptions, client: WatchClient): Promise<boolean> {
  const session = new WatchSession(options, client);
  const first = await session.push(undefined, options.confirm);
  if (first.plan.ops.length > 0 && !first.confirmed) return false;
  await session.watch();
  return true;
}

/** One watch: its pushes, what it said of the files, and its retries after a failed push. */
class WatchSession {
  private readonly root: string;
  private readonly burst: number;
  private readonly now: () => number;
  private readonly setTimer: SetTimer;
  /** Invalid files and what was last said of them: each is reported once until it changes. */
  private readonly invalid = new Map<string, string>();
  /** Files last seen in conflict with the site, until a push settles them. */
  private readonly conflicts = new Set<string>();
  /** The same, as the files (a course's course.yaml): not named again among the edits not sent. */
  private readonly conflictFiles = new Set<string>();
  /** Deletes counted when watching paused (0: not paused), told again when more files go. */
  private paused = 0;
  private stopping = false;
  private cancelRetry: (() => void) | undefined;
  private retryMs = 1000;
  /** The site refuses the credentials: said once, and again only after it took a token. */
  private signedOut = false;
  /** A push started by the retry timer, not by the coalescer: stopping waits for it too. */
  private retrying: Promise<void> | undefined;
  /**
   * The paths of every push that failed since the last retry (undefined: the whole tree; null:
   * none), so a second failure before the retry does not drop the first one's files.
   */
  private failed: Set<string> | undefined | null = null;
  private readonly coalescer: Coalescer;
  /** What polls the site (undefined: watch --no-pull). */
  private readonly remote: RemoteWatcher | undefined;
  private poller: PollTimer | undefined;
  /** Files pulls wrote, whose watcher events are no saves. */
  private readonly written: WrittenLog;
  /** Files the site changes back after each push, no longer sent while watch runs. */
  private readonly bouncing = new Set<string>();
  private readonly bounces: BounceLog;
  /** A poll's trouble was said (once until a poll goes well again). */
  private pollTrouble = false;
  /** Pushes and pulls, one at a time (each under the site's lock). */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: WatchOptions,
    private readonly client: WatchClient,
  ) {
    this.root = options.root;
    this.burst = options.burst ?? 5;
    this.now = options.now ?? Date.now;
    this.setTimer = options.setTimer ?? realSetTimer;
    this.coalescer = new Coalescer({
      debounceMs: options.debounceMs,
      onBatch: (batch) => this.onBatch(batch),
      now: this.now,
      setTimer: this.setTimer,
    });
    this.remote = options.pull === false ? undefined : new RemoteWatcher(client, options);
    this.written = new WrittenLog(this.root);
    this.bounces = new BounceLog(this.now);
  }

  /** Run `task` once the pushes and pulls before it are done. */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.turn.then(task, task);
    this.turn = run.catch(() => {});
    return run;
  }

  /** One push of these paths (undefined: the whole tree), under the site's lock. */
  push(paths: readonly string[] | undefined, confirm?: WatchOptions["confirm"]): Promise<PushResult> {
    return this.exclusive(() => this.pushNow(paths, confirm));
  }

  private async pushNow(
    paths: readonly string[] | undefined,
    confirm?: WatchOptions["confirm"],
  ): Promise<PushResult> {
    const { options } = this;
    const started = this.now();
    const seen = new Set<string>();
    const release = await acquireLock(this.root, options.site, "watch");
    try {
      const result = await push(
        {
          root: this.root,
          site: options.site,
          siteUrl: options.siteUrl,
          idsSite: options.idsSite,
          ignore: options.ignore,
          bodies: options.bodies,
          fs: options.fs,
          writeConcurrency: options.writeConcurrency,
          stamp: options.stamp,
          ...(options.limits ? { limits: options.limits } : {}),
          ...(options.sleep ? { sleep: options.sleep } : {}),
          paths,
          deletes: options.deletes,
          skipInvalid: true,
          confirm: confirm ?? (async () => true),
          onInvalid: (problem: FileProblem) => this.onInvalid(problem, seen),
          onChange: (change) => this.onChange(change, started),
        },
        this.client,
      );
      // Files looked at again and found valid are forgotten (reported afresh if they break again).
      for (const file of [...this.invalid.keys()])
        if (!seen.has(file) && (!paths || paths.includes(file))) this.invalid.delete(file);
      for (const op of result.plan.heldDeletes ?? []) {
        const id = op.type === "create" ? undefined : op.id;
        options.report({ type: "held-delete", path: op.path, kind: op.kind, id });
      }
      // A lost network or a server error: the files stay pending and are tried again.
      if (result.transient) throw result.transient;
      return result;
    } finally {
      await release();
    }
  }

  private onInvalid(problem: FileProblem, seen: Set<string>): void {
    seen.add(problem.file);
    if (this.invalid.get(problem.file) === problem.message) return;
    this.invalid.set(problem.file, problem.message);
    this.options.report({
      type: "invalid",
      path: problem.file,
      line: problem.line,
      message: problem.problem,
    });
  }

  private onChange(change: Change, started: number): void {
    const file = recordFilePath(change.kind, change.path);
    if (change.outcome === "conflict") {
      this.conflicts.add(change.path);
      this.conflictFiles.add(file);
    } else {
      this.conflicts.delete(change.path);
      this.conflictFiles.delete(file);
    }
    if (change.outcome === "unchanged") return;
    this.remote?.pushed(change);
    if (change.outcome !== "conflict") this.bounces.pushed(file);
    this.options.report({ type: "change", change, ms: Math.round(this.now() - started) });
  }

  /** Watch the tree until asked to stop, then say what is left unsent. */
  async watch(): Promise<void> {
    const { root, options } = this;
    const ignored = ignoreMatcher(options.ignore);
    const coursesDir = path.join(root, COURSES_DIR);
    await mkdir(coursesDir, { recursive: true });
    const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");
    const coalescer = this.coalescer;
    const watcher: FSWatcher = chokidarWatch(coursesDir, {
      ignoreInitial: true,
      ignored: (file: string) => {
        const relative = rel(file);
        return relative !== COURSES_DIR && ignored(relative);
      },
    });
    watcher.on("add", (file) => coalescer.push({ kind: "add", path: rel(file) }));
    watcher.on("change", (file) => coalescer.push({ kind: "change", path: rel(file) }));
    watcher.on("unlink", (file) => coalescer.push({ kind: "unlink", path: rel(file) }));
    await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
    const remote = this.remote;
    if (remote) {
      // The first comparison with the site, before watching is said: the tree starts even.
      await this.poll(remote);
      this.poller = new PollTimer(
        this.setTimer,
        () => remote.nextWait(),
        () => this.poll(remote),
      );
      this.poller.arm();
    }
    options.report({ type: "ready", root });

    await options.stop;
    this.stopping = true;
    this.cancelRetry?.();
    // A pull under way finishes writing: its snapshot moves with its files.
    const polling = this.poller?.stop();
    coalescer.close();
    await watcher.close();
    // The batch in flight (if any) finishes; its push saves the snapshot.
    await coalescer.flush();
    await polling;
    await this.retrying;
    await this.reportStopped();
  }

  /** One poll of the site: what changed there comes into the tree. */
  private async poll(remote: RemoteWatcher): Promise<void> {
    try {
      const state = SiteState.open(this.root, this.options.site, { fs: this.options.fs });
      const found = await remote.poll(() => this.exclusive(() => state.loadSnapshot()));
      const started = this.now();
      if (found.work.kind !== "none") await this.bringIn(found.work);
      if (found.work.kind === "full") remote.compared(this.now() - started);
      found.done();
      this.pollTrouble = false;
      this.signedIn();
    } catch (error) {
      // A save came while the pull wrote: it is pushed first, and the next poll pulls again.
      if (error instanceof SavedDuringPull) return;
      if (!this.pollTrouble || isCredentialsRefused(error)) this.trouble(error, remote.pace);
      this.pollTrouble = true;
    }
  }

  /** Pull what a poll found, after the saves waiting to be pushed; then push what it merged. */
  private async bringIn(work: RemoteWork): Promise<void> {
    // A pull waits for the saves whose quiet time runs (a few batches at most: never starved).
    for (let i = 0; i < 3 && this.coalescer.waiting; i++) await this.coalescer.nextBatch();
    if (this.stopping) return;
    // The files it wrote are known before any batch of the watcher's events is looked at.
    const pulled = await this.exclusive(async () => {
      const done = await pullIn(this.options, this.client, work).catch(async (error: unknown) => {
        // Stopped by a save: what it wrote before is its own, not the author's saves.
        if (error instanceof SavedDuringPull) await this.written.recordFiles(error.written);
        throw error;
      });
      await this.written.record(done.all);
      return done;
    });
    for (const { change, merged } of pulled.changes) {
      this.options.report({ type: "pulled", change, merged });
      const file = recordFilePath(change.kind, change.path);
      const times = change.outcome === "conflict" ? undefined : this.bounces.pulled(file);
      if (times !== undefined && !this.bouncing.has(file)) {
        this.bouncing.add(file);
        this.options.report({ type: "bouncing", path: file, times });
      }
    }
    // A paused file's merge stays in the file, not sent (see BounceLog).
    const merged = pulled.changes
      .filter((pulledChange) => pulledChange.merged)
      .map(({ change }) => recordFilePath(change.kind, change.path))
      .filter((file) => !this.bouncing.has(file));
    if (merged.length > 0) await this.pushPaths(merged);
  }

  /** The last line: what a plain push or a pull is left to settle. */
  private async reportStopped(): Promise<void> {
    const left = await this.pending().catch(() => ({ deletes: 0, edits: [], invalid: [] }));
    // A file in conflict is named once, as a conflict: a pull settles it, not a push.
    const edits = left.edits.filter((file) => !this.conflictFiles.has(file));
    this.options.report({
      type: "stopped",
      pending: {
        edits,
        invalid: left.invalid,
        signedOut: this.signedOut,
        deletes: left.deletes,
        conflicts: [...this.conflicts].sort(),
      },
    });
  }

  private async onBatch(saved: Batch): Promise<void> {
    const { burst } = this;
    if (this.stopping) return;
    const batch = await this.exclusive(() => this.written.without(saved));
    if (batch.changed.length + batch.deleted.length === 0) return;
    this.remote?.saved();
    if (this.paused === 0 && batch.deleted.length < burst) return this.pushBatch(batch);
    // Many files gone at once is a branch switch or a mass move, not an author's edit: act on
    // none of it until the tree is whole again (or a plain push settles the deletes). The count
    // is the tree's, not the batch's: a checkout's deletes may come in several batches.
    const gone = (await this.pending()).deletes;
    if (gone >= burst) {
      if (gone > this.paused) this.options.report({ type: "paused", deleted: gone });
      this.paused = Math.max(this.paused, gone);
      return;
    }
    if (this.paused === 0) return this.pushBatch(batch);
    this.paused = 0;
    this.options.report({ type: "resumed" });
    return this.pushPaths(undefined);
  }

  private async pushBatch(batch: Batch): Promise<void> {
    const paths = new Set<string>([...batch.changed, ...batch.deleted, ...this.invalid.keys()]);
    for (const file of this.bouncing) paths.delete(file);
    if (paths.size === 0) return;
    for (const file of batch.changed) {
      // A new or changed course.yaml may make its folder's chapters valid: look at them too.
      if (courseFolderOf(file) !== file) paths.add(courseFolderOf(file));
    }
    await this.pushPaths([...paths]);
  }

  /** What a push would still send, against the snapshot (offline). */
  private pending() {
    const { root, options } = this;
    return localPending({
      root,
      site: options.site,
      ignore: options.ignore,
      bodies: options.bodies,
      fs: options.fs,
    });
  }

  private remember(paths: readonly string[] | undefined): void {
    const failed = this.failed;
    this.failed =
      paths === undefined || failed === undefined ? undefined : new Set([...(failed ?? []), ...paths]);
  }

  private async pushPaths(paths: readonly string[] | undefined): Promise<void> {
    try {
      await this.push(paths);
      this.retryMs = 1000;
      this.signedIn();
    } catch (error) {
      // Network loss, a busy tree, a server error, refused credentials (or a bug: the session
      // goes on, and the message says what happened): keep the files pending and try again.
      // Each try reads the stored token again: one `coursesync login` elsewhere mends it.
      this.remember(paths);
      this.trouble(error, this.retryMs);
      this.scheduleRetry();
    }
  }

  /** Say what went wrong with the site: refused credentials once, anything else with the wait. */
  private trouble(error: unknown, inMs: number): void {
    if (isCredentialsRefused(error)) {
      if (!this.signedOut)
        this.options.report({ type: "signed-out", message: error.message, hint: error.hint });
      this.signedOut = true;
      return;
    }
    const message =
      error instanceof UserError
        ? error.message
        : `internal error: ${(error as Error).message ?? String(error)}`;
    this.options.report({ type: "retrying", message, inMs });
  }

  /** The site took the token: said when it had refused it. */
  private signedIn(): void {
    if (this.signedOut) this.options.report({ type: "signed-in" });
    this.signedOut = false;
  }

  /** Push the failed paths again after retryMs (doubling up to 30 s). */
  private scheduleRetry(): void {
    this.cancelRetry?.();
    this.cancelRetry = this.setTimer(() => {
      this.cancelRetry = undefined;
      if (this.stopping) return;
      const again = this.failed === undefined ? undefined : [...(this.failed ?? [])];
      this.failed = null;
      const attempt: Promise<void> = this.coalescer
        .flush()
        .then(() => this.pushPaths(again))
        .finally(() => {
          if (this.retrying === attempt) this.retrying = undefined;
        });
      this.retrying = attempt;
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
  }
}
