import { guardedFs } from "../../tree/tree-fs.js";
import { nextTurn } from "../../util/steps.js";
import { SiteState } from "../state/workspace.js";
import { effectiveOps } from "./apply.js";
import { commitPlan, executePlan } from "./execute.js";
import { gatherLocal, gatherSite, type Staging } from "./gather.js";
import type { Lister, PullOptions, PullResult } from "./options.js";
import { confirmRun, type PlannedRun, planRun, settleRun } from "./plan-run.js";
import { recoverJournal, settleOther } from "./recover.js";
import { ContentSpill } from "./spill.js";

export type { Lister, PullOptions, PullResult, PullStep } from "./options.js";

// A pull, in the shape of every run: gather (the site's lists, the last sync, the tree) →
// recover (what a killed push left) → plan (pure) → confirm (what the listing left out is read
// directly before it counts as deleted; planned again if the listing moved) → execute (the files, in a crash-safe order) → commit (the site's state, the snapshot last).
// Each step takes the paths and selection it is limited to (PullOptions) as data.

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
    // Planning returns only what writing needs: the listing, the local view and the planner's
    // maps are garbage before the first file is written.
    const planned = await gatherAndPlan(options, client, state, spill, run);
    const { result } = planned;
    options.onStep?.("planned");
    if (options.dryRun) {
      result.filesWritten = (await effectiveOps(options.root, planned.plan.ops, planned.existing)).length;
      return result;
    }
    result.filesWritten = await executePlan(options, state, planned, run, spill);
    options.onStep?.("written");
    result.stagingStopped = run.staged?.failure;
    result.snapshotWritten = await commitPlan(options, state, planned);
    options.onStep?.("committed");
    return result;
  } finally {
    spill?.close();
    await run.staged?.clear();
  }
}

/** Gather, recover, plan and confirm: what executing the pull needs. */
async function gatherAndPlan(
  options: PullOptions,
  client: Lister,
  state: SiteState,
  spill: ContentSpill | undefined,
  run: Staging,
): Promise<PlannedRun> {
  const gathered = await gatherSite(options, client, state, spill, run);
  await recoverJournal(options, state, gathered);
  const opened = await gatherLocal(options, state, gathered, (scan, snapshot) =>
    // Another site's snapshot is settled once the tree is scanned: mapped, re-keyed, adopted.
    settleOther(options, state, gathered, scan, snapshot),
  );
  const draft = await planRun(options, gathered, opened);
  const check = await confirmRun(client, gathered, opened, draft);
  // A turn of the event loop between the plan's last slice and settling it (see planRun).
  await nextTurn();
  return settleRun(options, gathered, opened, draft, check);
}
