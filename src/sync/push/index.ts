import { realSleep } from "../../api/gate.js";
import { removeLeftoverTemps } from "../../tree/fs-ops.js";
import { unconfirmedIntents } from "../state/journal.js";
import { Adopter } from "./adopter.js";
import type { ApplyContext } from "./apply-op.js";
import { checkRun } from "./check.js";
import { cleanMarks, commitRun } from "./commit.js";
import type { Decision, Known } from "./decide.js";
import { earlierFieldsOf } from "./earlier.js";
import { Execution } from "./execute.js";
import { gatherSite, gatherTree, recover, type SiteGathered, type TreeGathered } from "./gather.js";
import type { PushClient, PushOptions, PushResult } from "./options.js";
import { newResult, reporter } from "./outcome.js";
import { checkProblems, guardDeletes, planRun } from "./plan-run.js";

export type { PushClient, PushOptions, PushResult } from "./options.js";

/**
 * Push local changes to the site. One shape: gather (the site's state, read-only) → recover
 * (the journal of a run cut short) → gather the tree → plan (pure) → check against the site
 * (conflicts held) → confirm → execute (per write: re-read, write, journal) → commit (state).
 */
export async function push(options: PushOptions, siteClient: PushClient): Promise<PushResult> {
  const site = await gatherSite(options, siteClient);
  const recovered = await recover(site, options);
  const tree = await gatherTree(site, recovered, options, siteClient);
  for (const problem of checkProblems(tree.problems, options)) options.onInvalid?.(problem);
  const journaled = site.earlier.length > 0;
  const marks = cleanMarks(tree, tree.problems, tree.statCache, { ...site, journaled }, options);
  const { snapshot, local, problems } = tree;
  const { other, restore, restored } = site;
  const planned = planRun(
    { snapshot, local, problems, site: options.site, other, restore, restored },
    options,
  );
  const { plan } = planned;
  for (const problem of plan.problems) options.onInvalid?.(problem);
  if (!options.dryRun) guardDeletes(planned);
  const result = newResult(plan, planned.maxDelete, site.restored, options.dryRun === true);
  const report = reporter(result, options.onChange);
  const force = options.force === true;
  const known: Known = { snapshot, local, force, bodies: site.bodies, baseTexts: tree.baseTexts };
  const checked = await checkRun(plan, known, tree.client, options.dryRun === true);
  if (checked.unchecked !== undefined) result.unchecked = checked.unchecked;
  for (const change of checked.held) report(change);
  if (options.dryRun) return result;
  if (plan.ops.length > 0 && !(await options.confirm(plan))) return result;
  result.confirmed = true;
  await prepareWrites(site, tree);
  // Not applied when every write was held back (a conflict, or waiting on one).
  result.applied = plan.ops.length > 0 || result.held.length === 0;
  const execution = new Execution({
    plan,
    known,
    client: tree.client,
    ctx: applyContext(site, tree, options),
    decisions: new Map<string, Decision>(),
    earlier: site.earlier,
    concurrency: options.writeConcurrency ?? 4,
    result,
    report,
  });
  try {
    await execution.run();
  } finally {
    // Whatever happened, what the site confirmed goes into the snapshot.
    await commitRun({
      root: site.root,
      state: site.state,
      journal: site.journal,
      snapshot,
      done: execution.done,
      plan,
      restored,
      statCache: tree.statCache,
      marks,
      finished: execution.finished,
      stamp: options.stamp,
    });
  }
  return result;
}

/**
 * Before the first write: temp files of a run killed mid-write go; a restore's snapshot exists
 * before its first write, so a rerun after a kill resumes it.
 */
async function prepareWrites(site: SiteGathered, tree: TreeGathered): Promise<void> {
  await removeLeftoverTemps(site.root, [...tree.scan.temps, ...(await site.state.temps())], site.fs);
  if (site.restore) await site.state.saveSnapshot(tree.snapshot);
}

/** What applying one write needs of the run: the adopter knows the journal's open creates. */
function applyContext(site: SiteGathered, tree: TreeGathered, options: PushOptions): ApplyContext {
  const { client, snapshot, local, cache, siteIds } = tree;
  const { bodies } = site;
  const createdCourse = new Map<string, number>();
  for (const course of local.courses.values())
    if (course.id !== undefined) createdCourse.set(course.key, course.id);
  const open = unconfirmedIntents(site.earlier);
  const equivalent = bodies.equivalent?.bind(bodies);
  const adopter = new Adopter(client, snapshot, new Map(open.map((i) => [i.key, i])), {
    sameContent: equivalent,
  });
  return {
    client,
    journal: site.journal,
    local,
    snapshot,
    createdCourse,
    created: new Map(),
    adopter,
    adopted: new Map(),
    normalised: new Map(),
    earlierFields: options.history && earlierFieldsOf(options.history, bodies),
    sleep: options.sleep ?? realSleep,
    root: site.root,
    fs: site.fs,
    bodies,
    cache,
    siteIds,
  };
}
