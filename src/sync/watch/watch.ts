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
import type { SyncTarget } from "../model/target.js";
import { type PushClient, type PushResult, push } from "../push/index.js";
import type { PushPlan } from "../push/plan.js";
import { acquireLock } from "../state/lock.js";
import { type Batch, Coalescer } from "./coalescer.js";
import { localPending } from "./pending.js";

/** Something watch wants the person (or a --json reader) to know. */
export type WatchEvent =
  | { type: "ready"; root: string }
  | { type: "change"; change: Change; ms: number }
  | { type: "invalid"; path: string; line: number | undefined; message: string }
  | { type: "held-delete"; path: string; kind: string; id: number | undefined }
  | { type: "paused"; deleted: number }
  | { type: "resumed" }
  | { type: "retrying"; message: string; inMs: number }
  /** The site refused the credentials and no stored token or login replaced them: said once. */
  | { type: "signed-out"; message: string; hint: string | undefined }
  /** The site took a token again (a stored one, or a login) after "signed-out". */
  | { type: "signed-in" }
  | { type: "stopped"; pending: Pending };

/** What a stopped watch leaves for a plain push or a pull. */
export interface Pending {
  /** Files whose edits are not sent (new, changed or invalid), sorted: a plain push sends them. */
  edits: string[];
  /** Those of the edits that are invalid: skipped until they are fixed. */
  invalid: string[];
  /** Whether the site was refusing the credentials at the stop: `coursesync login` comes first. */
  signedOut: boolean;
  /** Records whose files are gone here and that the site still has (not sent without --delete). */
  deletes: number;
  /** Files left because the site changed them too: a pull brings the site's version in. */
  conflicts: string[];
}

/** What watch needs. */
export interface WatchOptions extends SyncTarget {
  /** How many updates or deletes are under way at once (see push). */
  writeConcurrency?: number;
  /**
   * What a clean verdict of the tree rests on besides its files (see PushOptions.stamp): each
   * push keeps the stat cache's clean mark, so that status and pull after watch read only the
   * course folders it touched.
   */
  stamp?: (() => string | undefined) | undefined;
  /** Send deletes (watch --delete); otherwise they wait for a plain push. */
  deletes: boolean;
  /** Asked about the pending plan when watch starts (as push asks). */
  confirm: (plan: PushPlan) => Promise<boolean>;
  report: (event: WatchEvent) => void;
  /** Resolves when the person asks to stop (Ctrl-C). */
  stop: Promise<unknown>;
  /** Quiet time after the last save before pushing; default 300 ms. */
  debounceMs?: number;
  /** Files deleted in one burst that pause watching (a branch checkout); default 5. */
  burst?: number;
  /** How a push waits (for a file an editor is saving); default a setTimeout promise. */
  sleep?: (ms: number) => Promise<void>;
  /** The clock, in milliseconds: how long each push took; default Date.now. */
  now?: () => number;
  /** Schedules the coalescer's flushes and the retry after a failed push; default setTimeout. */
  setTimer?: SetTimer;
}

/**
 * Push as the author saves: a loop around push (same plan, same executor), fed by chokidar
 * through the coalescer. Resolves when stopped; false when the opening plan was refused.
 */
export async function watchTree(options: WatchOptions, client: PushClient): Promise<boolean> {
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

  constructor(
    private readonly options: WatchOptions,
    private readonly client: PushClient,
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
  }

  /** One push of these paths (undefined: the whole tree), under the site's lock. */
  async push(paths: readonly string[] | undefined, confirm?: WatchOptions["confirm"]): Promise<PushResult> {
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
    options.report({ type: "ready", root });

    await options.stop;
    this.stopping = true;
    this.cancelRetry?.();
    coalescer.close();
    await watcher.close();
    // The batch in flight (if any) finishes; its push saves the snapshot.
    await coalescer.flush();
    await this.retrying;
    await this.reportStopped();
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

  private async onBatch(batch: Batch): Promise<void> {
    const { burst } = this;
    if (this.stopping) return;
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
      if (this.signedOut) this.options.report({ type: "signed-in" });
      this.signedOut = false;
    } catch (error) {
      // Network loss, a busy tree, a server error, refused credentials (or a bug: the session
      // goes on, and the message says what happened): keep the files pending and try again.
      // Each try reads the stored token again: one `coursesync login` elsewhere mends it.
      this.remember(paths);
      if (isCredentialsRefused(error)) {
        if (!this.signedOut)
          this.options.report({ type: "signed-out", message: error.message, hint: error.hint });
        this.signedOut = true;
      } else {
        const message =
          error instanceof UserError
            ? error.message
            : `internal error: ${(error as Error).message ?? String(error)}`;
        this.options.report({ type: "retrying", message, inMs: this.retryMs });
      }
      this.scheduleRetry();
    }
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
