import { ExitCode, UserError } from "../../errors.js";
import type { ScanResult } from "../../tree/scan.js";
import { rekeyed } from "../local/open.js";
import type { SiteNames } from "../push/other-site.js";
import { unconfirmedIntents } from "../state/journal.js";
import { adoptIntents, restoreIds } from "../state/recovery.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { SiteState } from "../state/workspace.js";
import type { Gathered } from "./gather.js";
import { mapSite } from "./map-site.js";
import type { PullOptions } from "./options.js";
import { adoptProvisionalIntents, otherSite } from "./other-site.js";

// Recover: the writes a pull makes before it plans, to finish what an earlier run left. A push
// killed part-way: the files of its confirmed creates get their ids, a create it sent without
// an answer is found on the site (by the fields sent) and adopted. A site seen for the first
// time: its records are matched to the files by content, their texts cached.

/** How many files a first mapping of a site names one by one as not on it. */
const NOTED = 20;

/** Settle the files of a killed push to the default site (before the tree is read). */
export async function recoverJournal(
  options: PullOptions,
  state: SiteState,
  gathered: Gathered,
): Promise<void> {
  const { earlier, snapshot, other } = gathered;
  if (earlier.length === 0 || !snapshot || options.dryRun) return;
  // Files of confirmed creates are settled (for another site: only a new file's fields that
  // site filled in; never an id).
  await restoreIds(options.root, earlier, state.fs);
  const open = unconfirmedIntents(earlier);
  // A push to another site never writes an id into a file: its open creates are adopted below.
  if (open.length > 0 && !other) {
    const [courses, chapters] = await gathered.listing;
    const listed = { course: courses.records, chapter: chapters.records };
    await adoptIntents(options.root, open, snapshot, listed, state.fs);
  }
}

/**
 * The snapshot another site's local view is made against, once the tree is scanned: the site
 * mapped to the files when seen for the first time, its provisional records re-keyed, and the
 * creates a killed push to it sent without an answer adopted. Tells the lists the id map.
 */
export async function settleOther(
  options: PullOptions,
  state: SiteState,
  gathered: Gathered,
  scan: ScanResult,
  settled: Snapshot | undefined,
): Promise<Snapshot | undefined> {
  let { other } = gathered;
  if (other?.mapping) settled = await mapped(options, state, gathered, scan, other.names);
  settled = await rekeyed(options.root, settled, scan, other?.names);
  if (other && settled) other = otherSite(options, settled);
  gathered.other = other;
  gathered.otherReady(other);
  const openCreates = other && settled && !options.dryRun ? unconfirmedIntents(gathered.earlier) : [];
  if (settled && openCreates.length > 0) {
    const [courses, chapters] = await gathered.listing;
    const listedNow = { course: courses.records, chapter: chapters.records };
    settled = await adoptProvisionalIntents(options.root, settled, openCreates, listedNow, state.fs);
  }
  return settled;
}

/** The site holds records this tree never synced: matched to the files by content. */
async function mapped(
  options: PullOptions,
  state: SiteState,
  gathered: Gathered,
  scan: ScanResult,
  names: SiteNames,
): Promise<Snapshot> {
  const [courses, chapters] = await gathered.listed;
  if (courses.records.length + chapters.records.length === 0) {
    throw new UserError(
      `site "${names.site}" is empty and has no snapshot in this tree; nothing was changed`,
      {
        hint: `Restore the tree into it: \`coursesync push --site ${names.site}\`.`,
        exitCode: ExitCode.usage,
      },
    );
  }
  const { bodies } = gathered;
  const listed = { courses: courses.records, chapters: chapters.records };
  const map = mapSite({ ...names, body: bodies.mode }, scan, listed, bodies);
  for (const file of map.notOnSite.slice(0, NOTED))
    options.onNote?.(`${file}: not on "${names.site}" (a push --site ${names.site} creates it)`);
  if (map.notOnSite.length > NOTED)
    options.onNote?.(`and ${map.notOnSite.length - NOTED} more files not on "${names.site}"`);
  if (!options.dryRun) for (const text of map.texts) await state.cache.put(text);
  return map.snapshot;
}
