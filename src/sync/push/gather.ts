import { keepingMerges } from "../../tree/codecs.js";
import { DEFAULT_LIMITS } from "../../tree/schema.js";
import { guardedFs } from "../../tree/tree-fs.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import { inPaths } from "../local/changes.js";
import { openStateLocal } from "../local/open.js";
import { restoreBase } from "../restore/site-base.js";
import { emptyIdMap, mappedClient, SiteIds } from "../state/id-map.js";
import type { Journal, JournalLine } from "../state/journal.js";
import { foldJournal, restoreIds } from "../state/recovery.js";
import { snapshotBase } from "../state/snapshot.js";
import type { Snapshot } from "../state/snapshot-model.js";
import { SiteState } from "../state/workspace.js";
import { unknownIdProblems, valueProblems } from "../value-checks.js";
import type { PushClient, PushOptions } from "./options.js";
import { openSnapshot, type SiteNames } from "./other-site.js";

// The first steps of a push: gather what the site and the tree hold (read-only), and recover
// what an earlier run left in the journal (the only writes before the plan).

/** What a push found of the site and its state before reading the tree. */
export interface SiteGathered {
  root: string;
  /** The site's state under `.coursesync/<site>` (push commits it itself: see commit.ts). */
  state: SiteState;
  names: SiteNames;
  /** Every write of the run goes through it: a full disk or a permission names the path. */
  fs: ReturnType<typeof guardedFs>;
  /** The body codec, keeping a merged body in its author's spelling. */
  bodies: ReturnType<typeof keepingMerges>;
  /** The snapshot to plan against (the site as it is now, for a restore), journal not folded. */
  snapshot: Snapshot;
  /** A non-default site with no snapshot yet: every record is created (see other-site.ts). */
  restore: boolean;
  /** A site other than the tree's default one. */
  other: boolean;
  journal: Journal;
  /** What the journal holds of an earlier run. */
  earlier: JournalLine[];
  /** `coursesync restore`: the base read from the site, and what it found. */
  restored?: Awaited<ReturnType<typeof restoreBase>> | undefined;
}

/** Gather (read-only): the snapshot, the journal, and for a restore the site as it is now. */
export async function gatherSite(options: PushOptions, siteClient: PushClient): Promise<SiteGathered> {
  const { root } = options;
  // A body merged here is written back in its author's spelling (see contentMerger).
  const bodies = keepingMerges(options.bodies);
  const fs = guardedFs(root, options.fs);
  const state = SiteState.open(root, options.site, { fs });
  const names = {
    site: options.site,
    siteUrl: options.siteUrl,
    idsSite: options.idsSite ?? options.site,
    body: bodies.mode,
  };
  const opened = await openSnapshot(state, names, siteClient);
  const journal = state.journal(snapshotBase(opened.snapshot));
  // A restore plans against the site as it is now (see restore/site-base.ts), not the last sync.
  const restored =
    options.restore && !opened.restore
      ? await restoreBase(opened.snapshot, siteClient, state.cache, options.deletes !== false)
      : undefined;
  const snapshot = restored ? restored.snapshot : opened.snapshot;
  const earlier = await journal.read();
  return { root, state, names, fs, bodies, ...opened, snapshot, journal, earlier, restored };
}

/**
 * Recover: replay the journal of a run that did not finish into the snapshot, and give the
 * files created then their ids (not in a dry run). Returns the snapshot to plan against.
 */
export async function recover(site: SiteGathered, options: PushOptions): Promise<Snapshot> {
  if (site.earlier.length === 0) return site.snapshot;
  const snapshot = foldJournal(site.snapshot, site.earlier);
  if (!options.dryRun) await restoreIds(site.root, site.earlier, site.fs);
  return snapshot;
}

/** The tree as a push sees it, against the recovered snapshot. */
export type TreeGathered = Awaited<ReturnType<typeof openStateLocal<Snapshot>>> & {
  /** Every problem of the files: the scan's, the values', ids the snapshot does not know. */
  problems: FileProblem[];
  /** Another site than the default one is written through its id map (the files carry tree ids). */
  siteIds: SiteIds | undefined;
  /** The client the writes go through (mapped for another site). */
  client: PushClient;
};

/** Gather the tree (read-only): its files, their problems, and the client the writes take. */
export async function gatherTree(
  site: SiteGathered,
  recovered: Snapshot,
  options: PushOptions,
  siteClient: PushClient,
): Promise<TreeGathered> {
  const side = await openStateLocal(site.state, recovered, {
    ignore: options.ignore,
    bodies: site.bodies,
    parseAll: options.paths ? (file) => inPaths(file, options.paths) : true,
    other: site.other ? site.names : undefined,
    // A file whose record the site lost is created again (and takes the new id).
    unsentAsNew: site.restored !== undefined,
    onWarning: options.onWarning,
  });
  // Records first pushed here have since received their ids from the default site: re-keyed.
  const { snapshot, scan, local } = side;
  const siteIds = site.other ? new SiteIds(snapshot.ids ?? emptyIdMap()) : undefined;
  const client = siteIds ? mappedClient(siteClient, siteIds) : siteClient;
  const problems = [
    ...side.problems,
    ...valueProblems(scan, local, snapshot, options.limits ?? DEFAULT_LIMITS),
    ...unknownIdProblems(scan, local, snapshot),
  ];
  return { ...side, problems, siteIds, client };
}
