import type { StatCache } from "../../tree/stat-cache.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import { carriedFolders, pendingFolders } from "../local/pending.js";
import type { LocalView } from "../local/view.js";
import { type RestoreBase, restoredListed } from "../restore/site-base.js";
import { type Journal, type JournalLine, unconfirmedIntents } from "../state/journal.js";
import { foldJournal, unsettledCreates } from "../state/recovery.js";
import { snapshotBase } from "../state/snapshot.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { SiteState } from "../state/workspace.js";
import type { PushOptions } from "./options.js";
import type { PushPlan } from "./plan.js";

// The last step of a push: what the site confirmed goes into the snapshot, what is unfinished
// stays in the journal, and the stat cache learns where the tree is clean.

/** Where the tree is as the new snapshot says after the run (see pendingFolders, carriedFolders). */
export interface CleanMarks {
  /** A push of the whole tree: the folders that may hold something pending. */
  pending?: readonly string[] | undefined;
  /** A push of some paths: the clean mark the stat cache had, carried over. */
  carried?: { stamp: string; dirty: readonly string[] } | undefined;
}

/**
 * Where the tree differs from the last sync now (before the writes): after them, the rest is as
 * the new snapshot says (the records there are neither sent nor changed by this run). A push of
 * some paths (as watch sends them) carries the stat cache's clean mark over if the mark held for
 * the snapshot as it is before this run writes it. Only a cache with a mark pays for the stamp.
 */
export function cleanMarks(
  tree: { scan: Parameters<typeof pendingFolders>[0]["scan"]; local: LocalView; snapshot: Snapshot },
  problems: readonly FileProblem[],
  statCache: StatCache,
  run: { other: boolean; restore: boolean; journaled: boolean },
  options: PushOptions,
): CleanMarks {
  const marks =
    !options.dryRun &&
    !options.select &&
    !run.other &&
    !run.restore &&
    !run.journaled &&
    tree.scan.warnings.length === 0;
  const pending =
    marks && options.paths === undefined
      ? pendingFolders({ scan: tree.scan, local: tree.local, snapshot: tree.snapshot, problems })
      : undefined;
  const loadedMark = statCache.markAsLoaded;
  const carried =
    marks && options.paths !== undefined && loadedMark && loadedMark.stamp === options.stamp?.()
      ? loadedMark
      : undefined;
  return { pending, carried };
}

/** What the commit of a run needs. */
export interface CommitInput {
  root: string;
  state: SiteState;
  journal: Journal;
  /** The snapshot the run planned against. */
  snapshot: Snapshot;
  /** What the site confirmed in this run (and the journal's earlier lines). */
  done: readonly JournalLine[];
  plan: PushPlan;
  /** `coursesync restore`: the base it read of the site. */
  restored: RestoreBase | undefined;
  statCache: StatCache;
  marks: CleanMarks;
  /** The writes all ran without an error going up. */
  finished: boolean;
  stamp: PushOptions["stamp"];
}

/**
 * Commit (whatever happened): what the site confirmed goes into the snapshot: what this run saw
 * done, after what the journal holds (a write that failed after its line, as a file the disk
 * refused). Not SiteState.commit: a push always writes its snapshot, and keeps in the journal
 * the creates it could not settle.
 */
export async function commitRun(x: CommitInput): Promise<void> {
  const lines = await x.journal.read();
  const next = foldJournal(foldJournal(x.snapshot, lines), x.done);
  for (const rename of x.plan.renames) {
    const table = rename.kind === "course" ? next.courses : next.chapters;
    const entry = table[rename.id];
    if (entry) table[rename.id] = { ...entry, path: rename.path };
  }
  // Creates sent without an answer that could not be looked up stay in the journal (under
  // the new snapshot), so the next run looks for them before creating anything again.
  // So do creates whose file could not take its id (a full disk): the next run writes it.
  const unfinished = [...unconfirmedIntents(lines), ...(await unsettledCreates(x.root, lines))];
  // A restore saw the whole site: what it found, and what it made, as a pull's listing would.
  if (x.restored) {
    const seen = restoredListed(next, x.restored);
    if (seen !== undefined) next.listed = seen;
  }
  await x.state.saveSnapshot(next);
  if (unfinished.length > 0) await x.journal.restart(snapshotBase(next), unfinished);
  else await x.journal.clear();
  // Only after a run that went through, with nothing waiting in the journal.
  const { pending, carried } = x.marks;
  const stamp = x.finished && unfinished.length === 0 && (pending || carried) && x.stamp?.();
  const dirty =
    pending ?? (carried && carriedFolders(carried.dirty, x.statCache.changedPaths(), x.snapshot, next));
  if (dirty && stamp) x.statCache.markClean(stamp, dirty);
  else x.statCache.forgetClean();
  await x.statCache.save();
}
