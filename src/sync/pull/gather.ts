import type { Listing } from "../../api/client.js";
import type { Resource, WireRecord } from "../../api/wire.js";
import { memoized } from "../../tree/codecs.js";
import { type LocalSide, type OpenLocalOptions, openLocal } from "../local/open.js";
import type { ContentReader } from "../model/spilled.js";
import { mappedClient, type RecordClient } from "../state/id-map.js";
import type { JournalLine } from "../state/journal.js";
import { foldJournal } from "../state/recovery.js";
import { snapshotBase } from "../state/snapshot.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { SiteState } from "../state/workspace.js";
import { completeSummaries } from "./complete.js";
import { startListing } from "./listing.js";
import { openNamed, startNamedListing } from "./named.js";
import { type NarrowSide, openNarrowly } from "./narrow.js";
import type { Lister, PullOptions } from "./options.js";
import { type OtherSite, otherSite } from "./other-site.js";
import { renderThreads } from "./render-pool.js";
import type { ContentSpill } from "./spill.js";
import { StagedFiles } from "./stage.js";

// Gather: what a pull reads before it plans. The site's lists (their pages staged as files and
// spilled while they arrive), the last sync with a killed push's journal folded in, and the
// local side of the tree. Nothing of the tree is written here but through recover.ts.

/** Where planning leaves the files it staged, for the run to remove what was not used. */
export interface Staging {
  staged?: StagedFiles;
}

/** The site's side of a pull, as it arrives, and the last sync it is read against. */
export interface Gathered {
  /** The snapshot as loaded, before anything was folded in (what the commit compares with). */
  loaded: Snapshot | undefined;
  /** The last sync: the journal of a killed push folded in; mapped or re-keyed once the tree is read. */
  snapshot: Snapshot | undefined;
  /** The lines a killed push left in the journal. */
  earlier: JournalLine[];
  /** Both lists as they came. */
  listed: Promise<[Listing, Listing]>;
  /** Both lists made whole (summary fields read), another site's under tree ids. */
  listing: Promise<[Listing, Listing]>;
  /** Another site than the default one: read through its id map (settled once the tree is read). */
  other: OtherSite | undefined;
  /** Tells the lists which id map to read another site's records through. */
  otherReady: (other: OtherSite | undefined) => void;
  bodies: ReturnType<typeof memoized>;
  /** Reads the chapter texts spilled while the pages arrived (see pull/spill.ts): the steps' seam. */
  reader: ContentReader | undefined;
  /** New and changed records' files, written to temp files while the pages arrive. */
  staged: StagedFiles | undefined;
  /** Temp files of killed runs under `.coursesync/`, listed before this run staged any. */
  leftover: Promise<string[]>;
}

/** Start the lists (or take those started), stage and spill their pages, read the journal. */
export async function gatherSite(
  options: PullOptions,
  client: Lister,
  state: SiteState,
  spill: ContentSpill | undefined,
  run: Staging,
): Promise<Gathered> {
  const bodies = memoized(options.bodies);
  const { loaded, listed, attach } = await (options.listing ??
    (options.records ? startNamedListing(options, client, options.records) : startListing(options, client)));
  // Temp files of killed runs under `.coursesync/`, listed before this run stages any: the
  // listing then does not read this run's thousands of staged files (removed after planning).
  const leftover = options.dryRun ? Promise.resolve([]) : state.temps();
  leftover.catch(() => {});
  const staged = spill ? stagedFiles(options, state, loaded, bodies, spill) : undefined;
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
  // A push killed part-way left its journal: what it confirmed counts as synced.
  const journal = state.journal(() => snapshotBase(loaded));
  const earlier = loaded ? await journal.read() : [];
  const snapshot = earlier.length > 0 && loaded ? foldJournal(loaded, earlier) : loaded;
  // Another site than the default one is read through its id map: records under tree ids. Its
  // listing is translated once the tree is read (provisional records re-keyed to their ids).
  const other = otherSite(options, snapshot);
  let otherReady: (other: OtherSite | undefined) => void = () => {};
  const ready = other ? new Promise<OtherSite | undefined>((resolve) => (otherReady = resolve)) : undefined;
  const gathered: Gathered = {
    loaded,
    snapshot,
    earlier,
    listed,
    listing: listed as Promise<[Listing, Listing]>,
    other,
    otherReady,
    bodies,
    reader: spill,
    staged,
    leftover,
  };
  gathered.listing = wholeListing(options, client, state, gathered, ready);
  return gathered;
}

/**
 * New and changed records' files are written to temp files while the pages arrive (with the
 * spill: the default site, not a dry run); the plan then moves those it writes into place.
 */
function stagedFiles(
  options: PullOptions,
  state: SiteState,
  loaded: Snapshot | undefined,
  bodies: ReturnType<typeof memoized>,
  reader: ContentReader,
): StagedFiles {
  const renderer = renderThreads(options.bodies);
  // A first pull renders every chapter: its thread loads while the first pages are on their way.
  if (!loaded) renderer?.warm();
  return new StagedFiles({
    cache: state.paths.cache,
    bodies,
    reader,
    snapshot: loaded,
    // A tree written through another file system (tests) has its files moved through it.
    placeOnThread: options.fs === undefined,
    renderer,
  });
}

/** Both lists, each record a summary list left a field out of made whole before anything looks at it. */
function wholeListing(
  options: PullOptions,
  client: Lister,
  state: SiteState,
  gathered: Gathered,
  ready: Promise<OtherSite | undefined> | undefined,
): Promise<[Listing, Listing]> {
  const whole = async (
    resource: Resource,
    listing: Listing,
    site: OtherSite | undefined,
  ): Promise<Listing> => {
    if (site) listing = site.known(resource, listing);
    const reader = site ? mappedClient(client as RecordClient, site.ids) : client;
    const complete = { snapshot: gathered.snapshot, cache: state.cache, reader, onNote: options.onNote };
    const { records, reads } = await completeSummaries(resource, listing.records, complete);
    return { ...listing, records, requests: listing.requests + reads };
  };
  const listing = Promise.all([gathered.listed, ready]).then(([[courses, chapters], site]) =>
    Promise.all([whole("courses", courses, site), whole("chapters", chapters, site)]),
  );
  // Handled later; this only keeps an early exit (invalid files) from an unhandled rejection.
  listing.catch(() => {});
  return listing;
}

/** The local side of a pull, and what narrowed it. */
export interface GatheredLocal {
  side: LocalSide<Snapshot | undefined>;
  /** Set when the stat cache vouched for the folders not read (see pull/narrow.ts). */
  narrow: NarrowSide | undefined;
  /** Whether the scan warned (a name that is not UTF-8): the tree's clean verdict stays unsaid. */
  warned: () => boolean;
}

/**
 * Read the tree against the last sync: only the folders where anything can have changed when
 * the stat cache last saw it clean; else all of it, the snapshot settled by `settle` once the
 * tree is scanned (another site's: see recover.ts).
 */
export async function gatherLocal(
  options: PullOptions,
  state: SiteState,
  gathered: Gathered,
  settle: OpenLocalOptions<Snapshot | undefined>["settle"],
): Promise<GatheredLocal> {
  const { root } = options;
  const { snapshot, other, earlier } = gathered;
  const statCache = state.loadStatCache();
  let warned = false;
  const open = {
    ignore: options.ignore,
    bodies: gathered.bodies,
    statCache,
    cache: state.cache,
    onWarning: (message: string) => {
      warned = true;
      options.onWarning?.(message);
    },
  };
  // A tree the stat cache last saw clean is read only where anything can have changed.
  const plain = snapshot && !other && earlier.length === 0 && !options.select;
  const narrow = !plain
    ? undefined
    : options.records
      ? await openNamed(root, snapshot, gathered.listing, options.records, open)
      : options.paths === undefined
        ? await openNarrowly(root, snapshot, options.stamp?.(), gathered.listing, open)
        : undefined;
  const side =
    narrow?.side ??
    (await openLocal(root, snapshot, {
      ...open,
      other: other?.names,
      settle,
    }));
  if (!narrow) gathered.snapshot = side.snapshot;
  return { side, narrow, warned: () => warned };
}
