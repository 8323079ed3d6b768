import { isCredentialsRefused, isTransient } from "../api/errors.js";
import { realSleep } from "../api/gate.js";
import type { WireRecord } from "../api/wire.js";
import { InterruptedError, UserError } from "../errors.js";
import { keepingMerges } from "../tree/codecs.js";
import { removeLeftoverTemps, removeTreeFile } from "../tree/fs-ops.js";
import { conflictCopyPath, courseFolderOf, recordFilePath } from "../tree/layout.js";
import { DEFAULT_LIMITS } from "../tree/schema.js";
import { guardedFs } from "../tree/tree-fs.js";
import { defaultMaxDelete, guardDeleteLimit, invalidFilesError } from "./guards.js";
import { inPaths, planLocalChanges } from "./local/changes.js";
import { openSiteLocal } from "./local/open.js";
import { carriedFolders, pendingFolders } from "./local/pending.js";
import type { Change } from "./model/report.js";
import { Adopter, AmbiguousCreate } from "./push/adopter.js";
import { type ApplyContext, apply } from "./push/apply-op.js";
import type { Decision, Known } from "./push/decide.js";
import { earlierFieldsOf } from "./push/earlier.js";
import { dependenciesOf, heldWith, holdBack } from "./push/hold.js";
import { holdConflicts, openSnapshot } from "./push/other-site.js";
import { doneChange, failureText } from "./push/outcome.js";
import { showSiteValues } from "./push/overwrites.js";
import { runInPhases } from "./push/phases.js";
import { type PushOp, planPush } from "./push/plan.js";
import { checkPlan, followRecreatedCourses, listChapters, recheck } from "./push/recheck.js";
import { restoreBase } from "./restore/site-base.js";
import { changeSelected } from "./selection.js";
import { ContentCache } from "./state/content-cache.js";
import { emptyIdMap, mappedClient, SiteIds } from "./state/id-map.js";
import { type Done, Journal, type JournalLine, unconfirmedIntents } from "./state/journal.js";
import { holdUnmatchedProvisional } from "./state/provisional.js";
import { foldJournal, newestTime, restoreIds, unsettledCreates } from "./state/recovery.js";
import { saveSnapshot, snapshotBase, statePaths, stateTemps } from "./state/snapshot.js";
import { unknownIdProblems, valueProblems } from "./value-checks.js";

export type { PushClient, PushOptions, PushResult } from "./push/options.js";

import type { PushClient, PushOptions, PushResult } from "./push/options.js";

/** Push local changes to the site: validate, plan, confirm; per write re-read, write, journal; snapshot. */
export async function push(options: PushOptions, siteClient: PushClient): Promise<PushResult> {
  const { root } = options;
  // A body merged here is written back in its author's spelling (see contentMerger).
  const bodies = keepingMerges(options.bodies);
  // Every write of this run goes through it: a full disk or a permission names the path.
  const fs = guardedFs(root, options.fs);
  const state = statePaths(root, options.site);
  const names = {
    site: options.site,
    siteUrl: options.siteUrl,
    idsSite: options.idsSite ?? options.site,
    body: bodies.mode,
  };
  const opened = await openSnapshot(root, names, siteClient);
  let snapshot = opened.snapshot;
  const journal = new Journal(state.journal, snapshotBase(snapshot), fs);
  // A restore plans against the site as it is now (see restore/site-base.ts), not the last sync.
  const restored =
    options.restore && !opened.restore
      ? await restoreBase(snapshot, siteClient, new ContentCache(state.cache, fs), options.deletes !== false)
      : undefined;
  if (restored) snapshot = restored.snapshot;
  const earlier = await journal.read();
  if (earlier.length > 0) {
    snapshot = foldJournal(snapshot, earlier);
    if (!options.dryRun) await restoreIds(root, earlier, fs);
  }
  const side = await openSiteLocal(root, options.site, snapshot, {
    ignore: options.ignore,
    bodies,
    fs,
    parseAll: options.paths ? (file) => inPaths(file, options.paths) : true,
    other: opened.other ? names : undefined,
    // A file whose record the site lost is created again (and takes the new id).
    unsentAsNew: restored !== undefined,
    onWarning: options.onWarning,
  });
  const { cache, statCache } = side;
  // Records first pushed here have since received their ids from the default site: re-keyed.
  snapshot = side.snapshot;
  const { scan, local, baseTexts } = side;
  // Another site than the default one is written through its id map (the files carry tree ids).
  const siteIds = opened.other ? new SiteIds(snapshot.ids ?? emptyIdMap()) : undefined;
  const client = siteIds ? mappedClient(siteClient, siteIds) : siteClient;
  const problems = [
    ...side.problems,
    ...valueProblems(scan, local, snapshot, options.limits ?? DEFAULT_LIMITS),
    ...unknownIdProblems(scan, local, snapshot),
  ];
  // Invalid files stop the push, unless they are outside the paths or selection asked for or
  // the caller (watch) skips them; either way nothing they stand for (or hold) is touched.
  const asked = (file: string) => inPaths(file, options.paths) && (options.select?.(file) ?? true);
  const blocking = options.skipInvalid ? [] : problems.filter((p) => asked(p.file));
  if (blocking.length > 0) throw invalidFilesError(blocking, "nothing was sent");
  if (options.skipInvalid)
    for (const problem of problems) if (asked(problem.file)) options.onInvalid?.(problem);
  // Where the tree differs from the last sync now: after the writes, the rest is as the new
  // snapshot says (the records there are neither sent nor changed by this run).
  const marks =
    !options.dryRun &&
    !options.select &&
    !opened.other &&
    !opened.restore &&
    earlier.length === 0 &&
    scan.warnings.length === 0;
  const pending =
    marks && options.paths === undefined ? pendingFolders({ scan, local, snapshot, problems }) : undefined;
  // A push of some paths (as watch sends them) carries the stat cache's clean mark over if the
  // mark held for the snapshot as it is before this run writes it (see carriedFolders). Only a
  // cache with a mark pays for the stamp.
  const loadedMark = statCache.markAsLoaded;
  const carried =
    marks && options.paths !== undefined && loadedMark && loadedMark.stamp === options.stamp?.()
      ? loadedMark
      : undefined;
  const blocked = problems.map((p) => courseFolderOf(p.file));
  const isBlocked = (file: string | undefined) =>
    file !== undefined && blocked.some((b) => file === b || file.startsWith(`${b}/`));
  const changes = planLocalChanges(snapshot, local, options.paths).filter((change) => {
    const entry =
      change.plan.id === undefined
        ? undefined
        : (change.plan.kind === "course" ? snapshot.courses : snapshot.chapters)[change.plan.id];
    const blockedHere = isBlocked(change.path) || isBlocked(change.from) || isBlocked(entry?.path);
    return !blockedHere && changeSelected(change, options.select);
  });
  const plan = planPush(changes, snapshot, local);
  if (opened.restore) plan.restore = true;
  if (restored) plan.restored = { lost: restored.lost, extra: restored.extra };
  if (siteIds) {
    holdUnmatchedProvisional(plan);
    holdConflicts(plan, snapshot, names.site);
  }
  if (options.deletes === false) {
    plan.heldDeletes = plan.ops.filter((op) => op.type === "delete");
    plan.ops = plan.ops.filter((op) => op.type !== "delete");
  }
  if (plan.problems.length > 0) {
    // planPush leaves out the operations of the files it reports.
    if (!options.skipInvalid) throw invalidFilesError(plan.problems, "nothing was sent");
    for (const problem of plan.problems) options.onInvalid?.(problem);
  }

  const deletes = plan.ops.filter((op) => op.type === "delete").length;
  const siteSize = Object.keys(snapshot.courses).length + Object.keys(snapshot.chapters).length;
  const maxDelete = options.maxDelete ?? defaultMaxDelete(siteSize);
  if (!options.dryRun) guardDeleteLimit("push", deletes, maxDelete);
  const result: PushResult = {
    plan,
    ...(restored ? { restored: { lost: restored.lost, extra: restored.extra } } : {}),
    changes: [],
    applied: false,
    confirmed: false,
    dryRun: options.dryRun === true,
    deleteLimit: maxDelete,
    conflicts: [],
    held: [],
    raced: [],
    failed: false,
  };
  const report = (change: Change) => {
    result.changes.push(change);
    if (change.outcome === "conflict") result.conflicts.push(change);
    if (change.outcome === "conflict" || change.heldBy) result.held.push(change);
    if (change.raced) result.raced.push(change);
    if (change.outcome === "failed") result.failed = true;
    options.onChange?.(change);
  };

  const known: Known = { snapshot, local, force: options.force === true, bodies, baseTexts };
  // The plan is checked against the site before anything is asked: the writes in conflict, and
  // those waiting on them, are held here (the rest is sent); --force shows the site's values it
  // overwrites.
  let early: Change[] = [];
  try {
    const checked = await checkPlan(plan.ops, known, client);
    early = checked.conflicts;
    showSiteValues(plan, checked.decisions, known);
  } catch (error) {
    if (!(options.dryRun && error instanceof UserError)) throw error;
    result.unchecked = error.message;
  }
  for (const change of holdBack(plan, early, snapshot)) report(change);
  if (options.dryRun) return result;
  if (plan.ops.length > 0 && !(await options.confirm(plan))) return result;
  result.confirmed = true;
  // Temp files of a run killed mid-write go before this run writes.
  await removeLeftoverTemps(root, [...scan.temps, ...(await stateTemps(root, options.site))], fs);
  // A restore's snapshot exists before its first write: a rerun after a kill resumes it.
  if (opened.restore) await saveSnapshot(root, options.site, snapshot, fs);

  const decisions = new Map<string, Decision>();
  const done: JournalLine[] = [...earlier.filter((l) => l.t === "done")];
  const createdCourse = new Map<string, number>();
  for (const course of local.courses.values())
    if (course.id !== undefined) createdCourse.set(course.key, course.id);
  let chapters: Promise<WireRecord[]> | undefined;
  // Read once the chapter writes are done: the chapters this push deleted are gone by then.
  const chaptersNow = () => (chapters ??= listChapters(client, known, deletedChapters(done)));
  const open = unconfirmedIntents(earlier);
  const equivalent = bodies.equivalent?.bind(bodies);
  const adopter = new Adopter(client, snapshot, new Map(open.map((i) => [i.key, i])), {
    sameContent: equivalent,
  });
  /** Why no write starts any more (a failure, an interrupt). */
  let stopped: string | undefined;
  /** Writes held while the push ran (a conflict found just before the write): what waits on them is held too. */
  const heldNow = new Map<string, Change>();
  /** The writes all ran (each done, failed or skipped), without an error going up. */
  let finished = false;
  // Not applied when every write was held back (a conflict, or waiting on one).
  result.applied = plan.ops.length > 0 || result.held.length === 0;
  // Changes are reported in plan order, whatever order the writes end in.
  let ordered: Array<Change | undefined> = plan.ops.map(() => undefined);
  let reported = 0;
  const reportAt = (index: number, change: Change) => {
    ordered[index] = change;
    for (; reported < ordered.length && ordered[reported] !== undefined; reported++) {
      report(ordered[reported]!);
    }
  };
  const ctx: ApplyContext = {
    client,
    journal,
    local,
    snapshot,
    createdCourse,
    created: new Map(),
    adopter,
    adopted: new Map(),
    normalised: new Map(),
    earlierFields: options.history && earlierFieldsOf(options.history, bodies),
    sleep: options.sleep ?? realSleep,
    root,
    fs,
    bodies,
    cache,
    siteIds,
  };
  const write = async (op: PushOp, index: number): Promise<void> => {
    const id = op.type === "create" ? undefined : op.id;
    const by = dependenciesOf(op, plan.ops, snapshot).find((d) => heldNow.has(d.key));
    if (by) {
      const change = heldWith(op, heldNow.get(by.key)!);
      heldNow.set(op.key, change);
      return reportAt(index, change);
    }
    const notApplied = () =>
      reportAt(index, {
        kind: op.kind,
        id,
        path: op.path,
        outcome: "skipped",
        reason: `not applied: ${stopped}`,
      });
    if (stopped) return notApplied();
    try {
      let decision = decisions.get(op.key);
      if (!decision && op.type !== "create") {
        // Re-read just before the write: another writer's edit can slip in for one round trip only.
        const checked = await recheck(op, known, client, chaptersNow);
        if ("conflict" in checked) {
          heldNow.set(op.key, checked.conflict);
          return reportAt(index, checked.conflict);
        }
        decision = checked.decision;
        decisions.set(op.key, decision);
        if (stopped) return notApplied();
      }
      const line = await apply(op, decision, ctx);
      if (!line) {
        reportAt(index, {
          kind: op.kind,
          id,
          path: op.path,
          outcome: "unchanged",
          reason: "the site already had it",
        });
        return;
      }
      done.push(line);
      // The site now has this side: a conflict copy pull left beside the file is settled.
      await removeTreeFile(root, conflictCopyPath(recordFilePath(op.kind, op.path)), fs);
      reportAt(
        index,
        doneChange(op, line, decision, {
          adopted: ctx.adopted.get(op.key),
          normalised: ctx.normalised.get(op.key),
        }),
      );
    } catch (error) {
      if (error instanceof InterruptedError) {
        // Asked to stop: writes in flight finish, none starts; the next push sends the rest.
        stopped ??= "interrupted";
        result.interrupted ??= error;
        return notApplied();
      }
      if (error instanceof AmbiguousCreate) {
        // Held as a conflict: what goes into this new course waits with it (see push/hold.ts).
        const conflict: Change = {
          kind: op.kind,
          id,
          path: op.path,
          outcome: "conflict",
          reason: error.message,
          resolution: "none",
          resolve:
            "delete the duplicate on the site, or put the id of the right one in the file, then push again",
        };
        heldNow.set(op.key, conflict);
        return reportAt(index, conflict);
      }
      if (!(error instanceof UserError)) throw error;
      // No write starts after this one; those already sent finish and are reported.
      stopped ??= "an earlier write failed";
      if (isTransient(error) || isCredentialsRefused(error)) result.transient ??= error;
      reportAt(index, {
        kind: op.kind,
        id,
        path: op.path,
        outcome: "failed",
        reason: failureText(error, recordFilePath(op.kind, op.path)),
      });
    }
  };
  try {
    // Chapter creates go in lanes by course (in order within one); course creates and the updates
    // of --force (which may create again a record the site deleted) go one at a time, in order.
    const creates = (op: PushOp) => op.type === "create" || (known.force && op.type === "update");
    const concurrency = options.writeConcurrency ?? 4;
    const deletes = plan.ops.findIndex((op) => op.type === "delete");
    const firstDelete = deletes === -1 ? plan.ops.length : deletes;
    await runInPhases(plan.ops, 0, firstDelete, concurrency, creates, write);
    // A course the site deleted, brought back by --force, takes the chapters of its folder along.
    const followers = stopped ? [] : await followRecreatedCourses(plan.ops, decisions, known, client);
    // Not splice(at, 0, ...followers): a course can bring more chapters than a call takes arguments.
    plan.ops = [...plan.ops.slice(0, firstDelete), ...followers, ...plan.ops.slice(firstDelete)];
    ordered = [
      ...ordered.slice(0, firstDelete),
      ...followers.map(() => undefined),
      ...ordered.slice(firstDelete),
    ];
    await runInPhases(plan.ops, firstDelete, plan.ops.length, concurrency, creates, write);
    finished = true;
  } finally {
    // Whatever happened, what the site confirmed goes into the snapshot: what this run saw done,
    // after what the journal holds (a write that failed after its line, as a file the disk refused).
    const lines = await journal.read();
    const next = foldJournal(foldJournal(snapshot, lines), done);
    for (const rename of plan.renames) {
      const table = rename.kind === "course" ? next.courses : next.chapters;
      const entry = table[rename.id];
      if (entry) table[rename.id] = { ...entry, path: rename.path };
    }
    // Creates sent without an answer that could not be looked up stay in the journal (under
    // the new snapshot), so the next run looks for them before creating anything again.
    // So do creates whose file could not take its id (a full disk): the next run writes it.
    const unfinished = [...unconfirmedIntents(lines), ...(await unsettledCreates(root, lines))];
    // A restore saw the whole site: what it found, and what it made, as a pull's listing would.
    if (restored) {
      const records = [...Object.values(next.courses), ...Object.values(next.chapters)].map((e) => e.record);
      const seen = newestTime([
        ...records,
        ...(restored?.newest ? [{ id: 0, created_at: restored.newest }] : []),
      ]);
      if (seen !== undefined) next.listed = seen;
    }
    await saveSnapshot(root, options.site, next, fs);
    if (unfinished.length > 0) await journal.restart(snapshotBase(next), unfinished);
    else await journal.clear();
    // Only after a run that went through, with nothing waiting in the journal.
    const stamp = finished && unfinished.length === 0 && (pending || carried) && options.stamp?.();
    const dirty =
      pending ?? (carried && carriedFolders(carried.dirty, statCache.changedPaths(), snapshot, next));
    if (dirty && stamp) statCache.markClean(stamp, dirty);
    else statCache.forgetClean();
    await statCache.save();
  }
  return result;
}

/** The ids of the chapters that journal lines confirm deleted. */
function deletedChapters(lines: readonly JournalLine[]): Set<number> {
  const deletes = lines.filter((l): l is Done => l.t === "done" && l.op === "delete" && l.kind === "chapter");
  return new Set(deletes.map((l) => l.id));
}
