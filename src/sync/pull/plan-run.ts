import type { Listing } from "../../api/client.js";
import type { WireRecord } from "../../api/wire.js";
import { nextTurn, runSteps, runStepsSliced, type Steps } from "../../util/steps.js";
import { likelyDuplicates } from "../duplicates.js";
import { defaultMaxDelete, guardDeleteLimit, guardPullListing } from "../guards.js";
import { pendingFolders } from "../local/pending.js";
import type { Change } from "../model/report.js";
import { planPullWithinSteps, type Selection } from "../selection.js";
import { mappedClient, type RecordClient } from "../state/id-map.js";
import type { Snapshot } from "../state/snapshot-model.js";
import { existingFiles } from "./apply.js";
import { convertAhead } from "./convert.js";
import type { Gathered, GatheredLocal } from "./gather.js";
import { type HoldPlan, holdInvalid } from "./held.js";
import { listedAfter } from "./listed.js";
import { holdUnnamed } from "./named.js";
import { foldersRead, widened } from "./narrow.js";
import type { Lister, PullOptions, PullResult } from "./options.js";
import { keepConflicts, withoutConflicts } from "./other-site.js";
import type { Held, PullPlan } from "./plan-model.js";
import { confirmDeletes, type ListingCheck, planAfterCheck } from "./unlisted.js";

// Plan: reconcile the site's lists with the local side into file operations and the next
// snapshot (planPull, pure), hold what invalid files hold back, and guard the result. Between
// plan and execute, the confirm step: a record the listing left out is read directly before it
// counts as deleted (and the plan made again, still pure, if the listing moved).

/** What executing and committing a pull need of its plan; the rest is garbage once it is made. */
export interface PlannedRun {
  loaded: Snapshot | undefined;
  plan: PullPlan;
  result: PullResult;
  /** Files the plan's operations find in the tree (see existingFiles). */
  existing: Set<string>;
  /** Temp files of killed runs: the tree's (from the scan) and the state's. */
  temps: Promise<string[]>;
  /** A pull of every course of the default site: the content cache keeps only what it names. */
  wholeSite: boolean;
  /** Where the tree stays pending after this pull (the rest will be the snapshot, byte for byte). */
  pending: string[] | undefined;
  /** Let the lists go (once the files are written). */
  release: () => void;
}

/** The paths a pull is limited to, as a test of a file's path (every file without paths). */
function pathScope(options: PullOptions) {
  const scope = options.paths?.map((p) => p.replace(/\/+$/, ""));
  const inScope = (file: string) =>
    !scope || scope.some((p) => p === "." || p === "courses" || file === p || file.startsWith(`${p}/`));
  // Invalid files outside the paths or the --only/--ignore selection are left unsaid and unwritten.
  const selected = (file: string) => inScope(file) && (options.select?.(file) ?? true);
  return { scope, inScope, selected };
}

/**
 * A pull planned once, before the confirm step: the lists it was planned from, the records
 * invalid files hold, and the planner over them (to plan again if the listing moved).
 */
export interface DraftRun {
  courses: Listing;
  chapters: Listing;
  /** Records the last sync holds (for the delete guard). */
  known: number;
  /** The last sync the plan reconciles: everything, or the folders read and every course. */
  base: Snapshot | undefined;
  held: Held;
  plan: PullPlan;
  planner: (held: Held, select: Selection | undefined) => PullPlan;
}

/**
 * Plan the pull of the lists into the local side (once the lists are in): guard the listing,
 * hold what invalid files hold back, plan. No read of the site or the tree.
 */
export async function planRun(
  options: PullOptions,
  gathered: Gathered,
  opened: GatheredLocal,
): Promise<DraftRun> {
  const { snapshot, bodies, staged } = gathered;
  const { narrow } = opened;
  const { scan, local, problems } = opened.side;
  const base = narrow ? narrow.base : snapshot;
  const [courses, chapters] = await gathered.listing;
  options.onStep?.("listed");
  // The pages still waiting to be staged go to the writing thread now, to be written while
  // the plan is made; the plan takes what the render threads made of every page, and the
  // threads end before it is made.
  await staged?.listed();
  options.onListed?.();
  const known = Object.keys(snapshot?.courses ?? {}).length + Object.keys(snapshot?.chapters ?? {}).length;
  // Named records read one by one are not a listing of the site: nothing to guard.
  if (!options.records) guardPullListing(snapshot, courses.records.length, chapters.records.length);
  // A narrowed plan takes only the chapters filed in the folders it read (and new ones): the
  // rest are as the last sync has them.
  const remoteChapters = narrow ? narrow.remoteChapters : chapters.records;
  // A first pull of a large site converts thousands of chapters: spread that over cores.
  await convertAhead(
    remoteChapters,
    snapshot,
    bodies,
    options.bodies.fromHtml,
    (record) => Boolean(staged?.renderedOf(record)),
    gathered.reader,
  );
  options.onStep?.("converted");
  await nextTurn();
  // An invalid file stops nothing else: the records it holds back wait, the rest is pulled.
  const hold = holdInvalid({
    scan,
    local,
    problems,
    snapshot: base,
    remoteCourses: courses.records,
    remoteChapters,
    bodies,
    reader: gathered.reader,
  });
  const steps = planWith(options, gathered, opened, hold, { courses, chapters, remoteChapters });
  // A pull of named records leaves every other record as the last sync has it.
  const held = options.records ? holdUnnamed(hold.held, base, options.records) : hold.held;
  // In slices: a plan of thousands of records would keep the staging and render threads'
  // messages (and the event loop) waiting for a fifth of a second.
  await nextTurn();
  const plan = await runStepsSliced(steps(held, options.select));
  const planner = (again: Held, select: Selection | undefined) => runSteps(steps(again, select));
  return { courses, chapters, known, base, held, plan, planner };
}

/**
 * The confirm step between plan and execute: what the listing left out is deleted only once a
 * direct read says it is gone (before the delete guard, which would count the records a moved
 * listing missed as deletes).
 */
export function confirmRun(
  client: Lister,
  gathered: Gathered,
  opened: GatheredLocal,
  draft: DraftRun,
): Promise<ListingCheck> {
  const { other } = gathered;
  return confirmDeletes(draft.plan, {
    base: draft.base,
    listed: { courses: draft.courses.records, chapters: draft.chapters.records },
    reader: other ? mappedClient(client as RecordClient, other.ids) : client,
    local: opened.side.local,
  });
}

/** The plan after the confirm step (made again if the listing moved), guarded, and what executing it needs. */
export function settleRun(
  options: PullOptions,
  gathered: Gathered,
  opened: GatheredLocal,
  draft: DraftRun,
  check: ListingCheck,
): PlannedRun {
  const { snapshot, other } = gathered;
  const { scan, local, problems } = opened.side;
  const { courses, chapters, known } = draft;
  const plan = planAfterCheck(draft.plan, check, draft.planner, draft.held, options.select);
  const siteSize = courses.records.length + chapters.records.length;
  const maxDelete = options.maxDelete ?? defaultMaxDelete(Math.max(siteSize, known));
  guardDeleteLimit("pull", plan.deletes, maxDelete);
  const { scope } = pathScope(options);
  // What this listing saw of the site (see pull/listed.ts).
  const wholeListing = !check.moved && !scope && !options.select && !options.records;
  const sawTo = listedAfter(snapshot, { courses: courses.records, chapters: chapters.records }, wholeListing);
  if (sawTo !== undefined) plan.snapshot.listed = sawTo;
  for (const line of likelyDuplicates(plan.snapshot)) options.onWarning?.(line);
  const result = pullResult(options, gathered, opened, { changes: plan.changes, courses, chapters, check });
  const wholeSite = !scope && !other && !options.records;
  return {
    loaded: gathered.loaded,
    plan,
    result,
    existing: existingFiles(scan, plan.ops),
    temps: gathered.leftover.then((state) => [...scan.temps, ...state]),
    wholeSite,
    pending:
      wholeSite && !options.select && !options.dryRun && !opened.warned()
        ? pendingFolders({ scan, local, snapshot: draft.base, problems }, plan.ops)
        : undefined,
    release: () => {
      courses.records.length = 0;
      chapters.records.length = 0;
    },
  };
}

/** What the pull answers, but for what executing it adds (files and snapshot written). */
function pullResult(
  options: PullOptions,
  gathered: Gathered,
  opened: GatheredLocal,
  seen: { changes: Change[]; courses: Listing; chapters: Listing; check: ListingCheck },
): PullResult {
  const { narrow } = opened;
  const { local, problems } = opened.side;
  const { selected } = pathScope(options);
  const { courses, chapters, check } = seen;
  return {
    changes: seen.changes,
    invalid: problems.filter((problem) => selected(problem.file)),
    filesWritten: 0,
    snapshotWritten: false,
    snapshotMissing: gathered.snapshot === undefined,
    dryRun: options.dryRun === true,
    requests: courses.requests + chapters.requests + check.reads,
    pages: { courses: courses.pages, chapters: chapters.pages },
    counts: { courses: courses.records.length, chapters: chapters.records.length },
    foldersRead: narrow && foldersRead(local, narrow.folders),
    listingMoved: check.moved,
  };
}

/** The lists a pull plans with: a narrowed pull's chapters are those of the folders it read. */
interface Lists {
  courses: Listing;
  chapters: Listing;
  remoteChapters: WireRecord[];
}

/** The planner over the lists and the local side, for a set of held records and a selection, in steps. */
function planWith(
  options: PullOptions,
  gathered: Gathered,
  opened: GatheredLocal,
  hold: HoldPlan,
  lists: Lists,
): (held: Held, select: Selection | undefined) => Steps<PullPlan> {
  const { snapshot, other, bodies, staged } = gathered;
  const { narrow } = opened;
  const { scan, baseTexts } = opened.side;
  const planBase = narrow ? narrow.base : snapshot;
  const { scope, inScope, selected } = pathScope(options);
  return function* (held, select) {
    const plan = yield* planPullWithinSteps(select, {
      snapshot: other && planBase ? withoutConflicts(planBase) : planBase,
      site: options.siteUrl,
      local: hold.local,
      held,
      remoteCourses: lists.courses.records,
      remoteChapters: lists.remoteChapters,
      baseTexts,
      bodies,
      winner: options.theirs ? "remote" : undefined,
      markers: options.markers,
      existingCopies: new Set(scan.copies),
      rendered: staged ? (record) => staged.renderedOf(record) : undefined,
      courseHash: staged ? (record) => staged.courseHashOf(record) : undefined,
      reader: gathered.reader,
      inScope: scope ? ({ folders }) => folders.some(inScope) : undefined,
    });
    if (narrow && snapshot) plan.snapshot = widened(snapshot, narrow.folders, plan.snapshot);
    if (other && snapshot) keepConflicts(snapshot, plan);
    if (other) plan.snapshot.ids = other.idsOf(plan.snapshot);
    plan.ops.push(...hold.ops.filter((op) => op.op === "copy" && selected(op.path)));
    plan.changes.push(...hold.changes.filter((change) => selected(change.path)));
    return plan;
  };
}
