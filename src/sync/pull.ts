import type { Listing } from "../api/client.js";
import type { Resource, WireRecord } from "../api/wire.js";
import { ExitCode, UserError } from "../errors.js";
import { memoized } from "../tree/codecs.js";
import { removeLeftoverTemps } from "../tree/fs-ops.js";
import type { ScanResult } from "../tree/scan.js";
import { guardedFs } from "../tree/tree-fs.js";
import type { FileProblem } from "../tree/yaml-text.js";
import { likelyDuplicates } from "./duplicates.js";
import { defaultMaxDelete, guardDeleteLimit, guardPullListing } from "./guards.js";
import { openLocal, rekeyed } from "./local/open.js";
import { pendingFolders } from "./local/pending.js";
import type { Change } from "./model/report.js";
import type { SyncTarget } from "./model/target.js";
import { applyOps, effectiveOps, existingFiles } from "./pull/apply.js";
import { addBlobIds } from "./pull/blob-ids.js";
import { completeSummaries, type RecordReader } from "./pull/complete.js";
import { convertAhead } from "./pull/convert.js";
import { type Held, holdInvalid } from "./pull/held.js";
import { listedAfter } from "./pull/listed.js";
import { type ListClient, type ListingCallbacks, type StartedListing, startListing } from "./pull/listing.js";
import { mapSite } from "./pull/map-site.js";
import { foldersRead, openNarrowly, widened } from "./pull/narrow.js";
import {
  adoptProvisionalIntents,
  keepConflicts,
  type OtherSite,
  otherSite,
  withoutConflicts,
} from "./pull/other-site.js";
import { ContentSpill } from "./pull/spill.js";
import { StagedFiles } from "./pull/stage.js";
import { type ListingMoved, planConfirmingDeletes } from "./pull/unlisted.js";
import { WrittenFiles } from "./pull/written.js";
import type { SiteNames } from "./push/other-site.js";
import { planPullWithin, type Selection } from "./selection.js";
import { mappedClient, type RecordClient } from "./state/id-map.js";
import { unconfirmedIntents } from "./state/journal.js";
import { adoptIntents, foldJournal, restoreIds } from "./state/recovery.js";
import { type Snapshot, snapshotBase } from "./state/snapshot.js";
import { SiteState } from "./state/workspace.js";

/** The part of the API client pull uses: the lists, and single reads for summary lists. */
export interface Lister extends RecordReader, ListClient {}

/** What pull needs to know. */
export interface PullOptions extends SyncTarget, ListingCallbacks {
  /** The lists, when started before pull loaded (see pull/listing.ts); else pull starts them. */
  listing?: Promise<StartedListing> | undefined;
  /** Limit to these course folders (relative to the root). */
  paths?: readonly string[] | undefined;
  /** Leave the records of files outside this selection (--only/--ignore) as they are. */
  select?: Selection | undefined;
  dryRun?: boolean;
  /** Take the site's side of every conflict. */
  theirs?: boolean;
  /** false: write the site's version of a body conflict beside the file, never markers in it. */
  markers?: boolean;
  /** Most local files a pull may delete; default DESIGN's guard. */
  maxDelete?: number | undefined;
  /** Told what the scan of the tree skipped (a name that is not UTF-8), one message each. */
  onWarning?: ((message: string) => void) | undefined;
  /** Told what pull does beyond the plain listing (reading records one by one). */
  onNote?: ((line: string) => void) | undefined;
  /**
   * What a clean verdict of the tree rests on besides its files (the snapshot on disk and the
   * settings status reads), as status stamps it: with it, a pull of the whole site tells the
   * stat cache where the tree is clean after it, and the next pull or status reads only the
   * course folders that changed since. @default no such verdict: every pull reads the whole tree
   */
  stamp?: (() => string | undefined) | undefined;
  /** The clock the stat cache's racy-file rule reads. @default Date.now */
  now?: (() => number) | undefined;
}

/** What a pull did (or, with --dry-run, would do). */
export interface PullResult {
  changes: Change[];
  /** The problems of the tree's invalid files: left as they are, the records behind them held. */
  invalid: FileProblem[];
  /** Files created, rewritten, moved or removed in the tree. */
  filesWritten: number;
  snapshotWritten: boolean;
  snapshotMissing: boolean;
  dryRun: boolean;
  requests: number;
  pages: { courses: number; chapters: number };
  counts: { courses: number; chapters: number };
  /**
   * The course folders read, when the stat cache vouched for the rest (see pull/narrow.ts), and
   * how many the tree has; undefined when the whole tree was read.
   */
  foldersRead?: { read: number; of: number } | undefined;
  /**
   * Why files stopped being written while the listing arrived (see pull/stage.ts), when they
   * did: they were written after it, as the plan wrote the rest.
   */
  stagingStopped?: string | undefined;
  /**
   * The listing left out records the site still has (it moved while pull paged through it):
   * nothing was deleted from it, and the records it left out were kept as they are.
   */
  listingMoved?: ListingMoved | undefined;
}

/** How many files a first mapping of a site names one by one as not on it. */
const NOTED = 20;

/** Pull the site into the tree: list, reconcile, write, save the snapshot last. */
export async function pull(options: PullOptions, client: Lister): Promise<PullResult> {
  // Every write of this run goes through it: a full disk or a permission names the path.
  const state = SiteState.open(options.root, options.site, {
    fs: guardedFs(options.root, options.fs),
    now: options.now,
  });
  // The default site's chapter contents wait in a temp file while the pull works, not in memory
  // (another site's records are translated to tree ids, copies that would read them all back).
  const spill =
    options.dryRun || (options.idsSite ?? options.site) !== options.site
      ? undefined
      : new ContentSpill(state.paths.cache);
  // Files staged while the listing arrived (see pull/stage.ts): what the plan did not take goes.
  const run: Staging = {};
  try {
    return await pullTree(options, client, state, spill, run);
  } finally {
    spill?.close();
    await run.staged?.clear();
  }
}

/** Where planning leaves the files it staged, for the run to remove what was not used. */
interface Staging {
  staged?: StagedFiles;
}

async function pullTree(
  options: PullOptions,
  client: Lister,
  state: SiteState,
  spill: ContentSpill | undefined,
  run: Staging,
): Promise<PullResult> {
  const { root } = options;
  const { fs, cache } = state;
  // Planning returns only what writing needs: the listing, the local view and the planner's
  // maps are garbage before the first file is written.
  const planned = await planTree(options, client, state, spill, run);
  const { loaded, plan, result, existing, temps, statCache, wholeSite, pending } = planned;
  if (options.dryRun) {
    result.filesWritten = (await effectiveOps(root, plan.ops, existing)).length;
    return result;
  }
  // Temp files of a run killed mid-write go before this run writes.
  await removeLeftoverTemps(root, await temps, fs);
  await run.staged?.stop();
  const written = new WrittenFiles(root);
  const applying = applyOps(root, plan.ops, existing, fs, run.staged, written);
  // The texts the cache keeps go in while the files are moved into place (on the staging
  // thread, for the most part): other files, and this thread would wait.
  const caching = (async () => {
    for (const text of plan.cacheTexts) await cache.stage(text);
    for (const record of plan.cacheRecords) await cache.stage(String(record.content ?? ""));
    await cache.flush();
  })();
  // A failure of either is thrown once both are done (the tree's first).
  const [applied, cached] = await Promise.allSettled([applying, caching]);
  if (applied.status === "rejected") throw applied.reason;
  if (cached.status === "rejected") throw cached.reason;
  result.filesWritten = applied.value;
  result.stagingStopped = run.staged?.failure;
  written.record(statCache);
  // The files are written and the texts cached: the listing and the file operations are not
  // read again. Let them go before the snapshot and the stat cache are written.
  planned.release();
  plan.ops.length = 0;
  plan.cacheTexts.length = 0;
  plan.cacheRecords.length = 0;
  await addBlobIds(root, plan.snapshot, plan.blobless);
  result.snapshotWritten = await state.commit({
    loaded,
    snapshot: plan.snapshot,
    // A pull of the whole site knows every text the snapshot needs: the rest of the cache goes.
    prune: wholeSite,
    // The tree is now the snapshot but where something stays pending: said as status says it,
    // for the next pull and status to read only the folders that changed since.
    clean: pending && options.stamp ? { dirty: pending, stamp: options.stamp } : undefined,
  });
  return result;
}

/** List, read the tree, reconcile, guard: the plan of a pull and what writing it needs. */
async function planTree(
  options: PullOptions,
  client: Lister,
  state: SiteState,
  spill: ContentSpill | undefined,
  run: Staging,
) {
  const { root } = options;
  const { fs, cache } = state;
  const bodies = memoized(options.bodies);
  const { loaded, listed, attach } = await (options.listing ?? startListing(options, client));
  // Temp files of killed runs under `.coursesync/`, listed before this run stages any: the
  // listing then does not read this run's thousands of staged files (removed after planning).
  const leftover = options.dryRun ? Promise.resolve([]) : state.temps();
  leftover.catch(() => {});
  // New and changed records' files are written to temp files while the pages arrive (with the
  // spill: the default site, not a dry run); the plan then moves those it writes into place.
  const staged = spill
    ? new StagedFiles({
        cache: state.paths.cache,
        bodies,
        snapshot: loaded,
        // A tree written through another file system (tests) has its files moved through it.
        placeOnThread: options.fs === undefined,
      })
    : undefined;
  run.staged = staged;
  attach({
    ...(staged ? { courses: (records: WireRecord[]) => staged.take("courses", records) } : {}),
    ...(spill
      ? {
          chapters: (records: WireRecord[]) => {
            spill.take(records, (id) => loaded?.chapters[id]?.record);
            staged?.take("chapters", records);
          },
        }
      : {}),
  });
  // A push killed part-way left its journal: what it confirmed counts as synced, and a create
  // it sent without an answer is found on the site (by the fields sent) and its file gets the id.
  const journal = state.journal(() => snapshotBase(loaded));
  const earlier = loaded ? await journal.read() : [];
  let snapshot = earlier.length > 0 && loaded ? foldJournal(loaded, earlier) : loaded;
  // Another site than the default one is read through its id map: records under tree ids. Its
  // listing is translated once the tree is read (provisional records re-keyed to their ids).
  let other = otherSite(options, snapshot);
  let otherReady: (other: OtherSite | undefined) => void = () => {};
  const ready = other ? new Promise<OtherSite | undefined>((resolve) => (otherReady = resolve)) : undefined;
  // Records a summary list left a field out of are made whole before anything looks at them.
  const whole = async (
    resource: Resource,
    listing: Listing,
    site: OtherSite | undefined,
  ): Promise<Listing> => {
    if (site) listing = site.known(resource, listing);
    const reader = site ? mappedClient(client as RecordClient, site.ids) : client;
    const complete = { snapshot, cache, reader, onNote: options.onNote };
    const { records, reads } = await completeSummaries(resource, listing.records, complete);
    return { ...listing, records, requests: listing.requests + reads };
  };
  const listing = Promise.all([listed, ready]).then(([[courses, chapters], site]) =>
    Promise.all([whole("courses", courses, site), whole("chapters", chapters, site)]),
  );
  // Handled below; this only keeps an early exit (invalid files) from an unhandled rejection.
  listing.catch(() => {});
  if (earlier.length > 0 && snapshot && !options.dryRun) {
    // Files of confirmed creates are settled (for another site: only a new file's fields that
    // site filled in; never an id).
    await restoreIds(root, earlier, fs);
    const open = unconfirmedIntents(earlier);
    // A push to another site never writes an id into a file: its open creates are adopted below.
    if (open.length > 0 && !other) {
      const [courses, chapters] = await listing;
      await adoptIntents(root, open, snapshot, { course: courses.records, chapter: chapters.records }, fs);
    }
  }
  // The site holds records this tree never synced: matched to the files by content.
  const mapped = async (scan: ScanResult, names: SiteNames): Promise<Snapshot> => {
    const [courses, chapters] = await listed;
    if (courses.records.length + chapters.records.length === 0) {
      throw new UserError(
        `site "${names.site}" is empty and has no snapshot in this tree; nothing was changed`,
        {
          hint: `Restore the tree into it: \`coursesync push --site ${names.site}\`.`,
          exitCode: ExitCode.usage,
        },
      );
    }
    const map = mapSite(
      { ...names, body: bodies.mode },
      scan,
      { courses: courses.records, chapters: chapters.records },
      bodies,
    );
    for (const file of map.notOnSite.slice(0, NOTED))
      options.onNote?.(`${file}: not on "${names.site}" (a push --site ${names.site} creates it)`);
    if (map.notOnSite.length > NOTED)
      options.onNote?.(`and ${map.notOnSite.length - NOTED} more files not on "${names.site}"`);
    if (!options.dryRun) for (const text of map.texts) await cache.put(text);
    return map.snapshot;
  };
  const statCache = state.loadStatCache();
  // A warning of the scan (a name that is not UTF-8) leaves the tree's clean verdict unsaid.
  let warned = false;
  const open = {
    ignore: options.ignore,
    bodies,
    statCache,
    cache,
    onWarning: (message: string) => {
      warned = true;
      options.onWarning?.(message);
    },
  };
  // A tree the stat cache last saw clean is read only where anything can have changed.
  const narrow =
    snapshot && !other && earlier.length === 0 && options.paths === undefined && !options.select
      ? await openNarrowly(root, snapshot, options.stamp?.(), listing, open)
      : undefined;
  const side =
    narrow?.side ??
    (await openLocal(root, snapshot, {
      ...open,
      other: other?.names,
      settle: async (scan, settled) => {
        if (other?.mapping) settled = await mapped(scan, other.names);
        settled = await rekeyed(root, settled, scan, other?.names);
        if (other && settled) other = otherSite(options, settled);
        otherReady(other);
        const openCreates = other && settled && !options.dryRun ? unconfirmedIntents(earlier) : [];
        if (settled && openCreates.length > 0) {
          const [courses, chapters] = await listing;
          const listedNow = { course: courses.records, chapter: chapters.records };
          settled = await adoptProvisionalIntents(root, settled, openCreates, listedNow, fs);
        }
        return settled;
      },
    }));
  if (!narrow) snapshot = side.snapshot;
  const { scan, local, baseTexts, problems } = side;
  // What the plan reconciles: everything, or the folders read and every course.
  const planBase = narrow ? narrow.base : snapshot;

  const [courses, chapters] = await listing;
  // The pages still waiting to be staged go to the writing thread now, to be written while
  // the plan is made.
  staged?.flush();
  const known = Object.keys(snapshot?.courses ?? {}).length + Object.keys(snapshot?.chapters ?? {}).length;
  guardPullListing(snapshot, courses.records.length, chapters.records.length);

  // A narrowed plan takes only the chapters filed in the folders it read (and new ones): the
  // rest are as the last sync has them.
  const remoteChapters = narrow ? narrow.remoteChapters : chapters.records;
  // A first pull of a large site converts thousands of chapters: spread that over cores.
  await convertAhead(remoteChapters, snapshot, bodies, options.bodies.fromHtml, (record) =>
    Boolean(staged?.renderedOf(record)),
  );

  const scope = options.paths?.map((p) => p.replace(/\/+$/, ""));
  const inScope = (file: string) =>
    !scope || scope.some((p) => p === "." || p === "courses" || file === p || file.startsWith(`${p}/`));
  // An invalid file stops nothing else: the records it holds back wait, the rest is pulled.
  const hold = holdInvalid({
    scan,
    local,
    problems,
    snapshot: planBase,
    remoteCourses: courses.records,
    remoteChapters,
    bodies,
  });
  // Invalid files outside the paths or the --only/--ignore selection are left unsaid and unwritten.
  const selected = (file: string) => inScope(file) && (options.select?.(file) ?? true);
  const planWith = (held: Held, select: Selection | undefined) => {
    const plan = planPullWithin(select, {
      snapshot: other && planBase ? withoutConflicts(planBase) : planBase,
      site: options.siteUrl,
      local: hold.local,
      held,
      remoteCourses: courses.records,
      remoteChapters,
      baseTexts,
      bodies,
      winner: options.theirs ? "remote" : undefined,
      markers: options.markers,
      existingCopies: new Set(scan.copies),
      rendered: staged ? (record) => staged.renderedOf(record) : undefined,
      courseHash: staged ? (record) => staged.courseHashOf(record) : undefined,
      inScope: scope ? ({ folders }) => folders.some(inScope) : undefined,
    });
    if (narrow && snapshot) plan.snapshot = widened(snapshot, narrow.folders, plan.snapshot);
    if (other && snapshot) keepConflicts(snapshot, plan);
    if (other) plan.snapshot.ids = other.idsOf(plan.snapshot);
    plan.ops.push(...hold.ops.filter((op) => op.op === "copy" && selected(op.path)));
    plan.changes.push(...hold.changes.filter((change) => selected(change.path)));
    return plan;
  };
  // What the listing left out is deleted only once a direct read says it is gone (before the
  // delete guard, which would count the records a moved listing missed as deletes).
  const { plan, check } = await planConfirmingDeletes(planWith, hold.held, options.select, {
    base: planBase,
    listed: { courses: courses.records, chapters: chapters.records },
    reader: other ? mappedClient(client as RecordClient, other.ids) : client,
    local,
  });
  const siteSize = courses.records.length + chapters.records.length;
  const maxDelete = options.maxDelete ?? defaultMaxDelete(Math.max(siteSize, known));
  guardDeleteLimit("pull", plan.deletes, maxDelete);
  // What this listing saw of the site (see pull/listed.ts).
  const wholeListing = !check.moved && !scope && !options.select;
  const sawTo = listedAfter(snapshot, { courses: courses.records, chapters: chapters.records }, wholeListing);
  if (sawTo !== undefined) plan.snapshot.listed = sawTo;
  for (const line of likelyDuplicates(plan.snapshot)) options.onWarning?.(line);

  const result: PullResult = {
    changes: plan.changes,
    invalid: problems.filter((problem) => selected(problem.file)),
    filesWritten: 0,
    snapshotWritten: false,
    snapshotMissing: snapshot === undefined,
    dryRun: options.dryRun === true,
    requests: courses.requests + chapters.requests + check.reads,
    pages: { courses: courses.pages, chapters: chapters.pages },
    counts: { courses: courses.records.length, chapters: chapters.records.length },
    foldersRead: narrow && foldersRead(local, narrow.folders),
    listingMoved: check.moved,
  };
  const existing = existingFiles(scan, plan.ops);
  const wholeSite = !scope && !other;
  // Where the tree stays pending after this pull (the rest will be the snapshot, byte for byte).
  const pending =
    wholeSite && !options.select && !options.dryRun && !warned
      ? pendingFolders({ scan, local, snapshot: planBase, problems }, plan.ops)
      : undefined;
  return {
    loaded,
    plan,
    result,
    existing,
    /** Temp files of killed runs: the tree's (from the scan) and the state's. */
    temps: leftover.then((state) => [...scan.temps, ...state]),
    statCache,
    wholeSite,
    pending,
    release: () => {
      courses.records.length = 0;
      chapters.records.length = 0;
    },
  };
}
