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
import { type PushClient, push } from "../push/index.js";
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
  const { root } = options;
  const burst = options.burst ?? 5;
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? realSetTimer;
  /** Invalid files and what was last said of them: each is reported once until it changes. */
  const invalid = new Map<string, string>();
  /** Files last seen in conflict with the site, until a push settles them. */
  const conflicts = new Set<string>();
  /** The same, as the files (a course's course.yaml): not named again among the edits not sent. */
  const conflictFiles = new Set<string>();
  /** Deletes counted when watching paused (0: not paused), told again when more files go. */
  let paused = 0;
  let stopping = false;
  let cancelRetry: (() => void) | undefined;
  let retryMs = 1000;
  /** The site refuses the credentials: said once, and again only after it took a token. */
  let signedOut = false;
  // A push started by the retry timer, not by the coalescer: stopping waits for it too.
  let retrying: Promise<void> | undefined;

  const run = async (paths: readonly string[] | undefined, confirm?: WatchOptions["confirm"]) => {
    const started = now();
    const seen = new Set<string>();
    const release = await acquireLock(root, options.site, "watch");
    try {
      const result = await push(
        {
          root,
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
          onInvalid: (problem: FileProblem) => {
            seen.add(problem.file);
            if (invalid.get(problem.file) === problem.message) return;
            invalid.set(problem.file, problem.message);
            options.report({
              type: "invalid",
              path: problem.file,
              line: problem.line,
              message: problem.problem,
            });
          },
          onChange: (change) => {
            const file = recordFilePath(change.kind, change.path);
            if (change.outcome === "conflict") {
              conflicts.add(change.path);
              conflictFiles.add(file);
            } else {
              conflicts.delete(change.path);
              conflictFiles.delete(file);
            }
            if (change.outcome === "unchanged") return;
            options.report({ type: "change", change, ms: Math.round(now() - started) });
          },
        },
        client,
      );
      // Files looked at again and found valid are forgotten (reported afresh if they break again).
      for (const file of [...invalid.keys()])
        if (!seen.has(file) && (!paths || paths.includes(file))) invalid.delete(file);
      for (const op of result.plan.heldDeletes ?? []) {
        options.report({
          type: "held-delete",
          path: op.path,
          kind: op.kind,
          id: op.type === "create" ? undefined : op.id,
        });
      }
      // A lost network or a server error: the files stay pending and are tried again.
      if (result.transient) throw result.transient;
      return result;
    } finally {
      await release();
    }
  };

  const first = await run(undefined, options.confirm);
  if (first.plan.ops.length > 0 && !first.confirmed) return false;

  const ignored = ignoreMatcher(options.ignore);
  const coursesDir = path.join(root, COURSES_DIR);
  await mkdir(coursesDir, { recursive: true });
  const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");

  const onBatch = async (batch: Batch): Promise<void> => {
    if (stopping) return;
    if (paused === 0 && batch.deleted.length < burst) return pushBatch(batch);
    // Many files gone at once is a branch switch or a mass move, not an author's edit: act on
    // none of it until the tree is whole again (or a plain push settles the deletes). The count
    // is the tree's, not the batch's: a checkout's deletes may come in several batches.
    const gone = await pendingDeletes();
    if (gone >= burst) {
      if (gone > paused) options.report({ type: "paused", deleted: gone });
      paused = Math.max(paused, gone);
      return;
    }
    if (paused === 0) return pushBatch(batch);
    paused = 0;
    options.report({ type: "resumed" });
    return pushPaths(undefined);
  };

  const pushBatch = async (batch: Batch): Promise<void> => {
    const paths = new Set<string>([...batch.changed, ...batch.deleted, ...invalid.keys()]);
    for (const file of batch.changed) {
      // A new or changed course.yaml may make its folder's chapters valid: look at them too.
      if (courseFolderOf(file) !== file) paths.add(courseFolderOf(file));
    }
    await pushPaths([...paths]);
  };

  /** What a push would still send, against the snapshot (offline). */
  const pending = () =>
    localPending({
      root,
      site: options.site,
      ignore: options.ignore,
      bodies: options.bodies,
      fs: options.fs,
    });
  /** Records the tree no longer has, against the snapshot (offline). */
  const pendingDeletes = async (): Promise<number> => (await pending()).deletes;

  // The paths of every push that failed since the last retry (undefined: the whole tree),
  // so a second failure before the retry does not drop the first one's files.
  let failed: Set<string> | undefined | null = null;
  const remember = (paths: readonly string[] | undefined) => {
    failed = paths === undefined || failed === undefined ? undefined : new Set([...(failed ?? []), ...paths]);
  };

  const pushPaths = async (paths: readonly string[] | undefined): Promise<void> => {
    try {
      await run(paths);
      retryMs = 1000;
      if (signedOut) options.report({ type: "signed-in" });
      signedOut = false;
    } catch (error) {
      // Network loss, a busy tree, a server error, refused credentials (or a bug: the session
      // goes on, and the message says what happened): keep the files pending and try again.
      // Each try reads the stored token again: one `coursesync login` elsewhere mends it.
      remember(paths);
      if (isCredentialsRefused(error)) {
        if (!signedOut) options.report({ type: "signed-out", message: error.message, hint: error.hint });
        signedOut = true;
      } else {
        const message =
          error instanceof UserError
            ? error.message
            : `internal error: ${(error as Error).message ?? String(error)}`;
        options.report({ type: "retrying", message, inMs: retryMs });
      }
      cancelRetry?.();
      cancelRetry = setTimer(() => {
        cancelRetry = undefined;
        if (stopping) return;
        const again = failed === undefined ? undefined : [...(failed ?? [])];
        failed = null;
        const attempt: Promise<void> = coalescer
          .flush()
          .then(() => pushPaths(again))
          .finally(() => {
            if (retrying === attempt) retrying = undefined;
          });
        retrying = attempt;
      }, retryMs);
      retryMs = Math.min(retryMs * 2, 30_000);
    }
  };

  const coalescer = new Coalescer({ debounceMs: options.debounceMs, onBatch, now, setTimer });
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
  stopping = true;
  cancelRetry?.();
  coalescer.close();
  await watcher.close();
  // The batch in flight (if any) finishes; its push saves the snapshot.
  await coalescer.flush();
  await retrying;
  const left = await pending().catch(() => ({ deletes: 0, edits: [], invalid: [] }));
  // A file in conflict is named once, as a conflict: a pull settles it, not a push.
  const edits = left.edits.filter((file) => !conflictFiles.has(file));
  options.report({
    type: "stopped",
    pending: {
      edits,
      invalid: left.invalid,
      signedOut,
      deletes: left.deletes,
      conflicts: [...conflicts].sort(),
    },
  });
  return true;
}
