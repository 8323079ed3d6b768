import { removeLeftoverTemps } from "../../tree/fs-ops.js";
import { giveWay } from "../../util/steps.js";
import { type ContentReader, isSpilled, readContent } from "../model/spilled.js";
import type { SiteState } from "../state/workspace.js";
import { applyOps } from "./apply.js";
import { addBlobIds } from "./blob-ids.js";
import type { Staging } from "./gather.js";
import type { PullOptions } from "./options.js";
import type { PlannedRun } from "./plan-run.js";
import { WrittenFiles } from "./written.js";

// Execute and commit: the plan's files written in a crash-safe order (see pull/apply.ts), the
// texts the content cache keeps beside them, then the state committed once, the snapshot last.

/** How long texts are read back and staged in the content cache in one turn of the event loop, at most (ms). */
const CACHING_SLICE_MS = 10;

/** Write the plan's files and cache its texts (spilled ones read through `reader`); the number of files written. */
export async function executePlan(
  options: Pick<PullOptions, "root">,
  state: SiteState,
  planned: Pick<PlannedRun, "plan" | "existing" | "temps">,
  run: Staging,
  reader?: ContentReader,
): Promise<number> {
  const { root } = options;
  const { plan, existing } = planned;
  const { fs, cache } = state;
  // Temp files of a run killed mid-write go before this run writes.
  await removeLeftoverTemps(root, await planned.temps, fs);
  await run.staged?.stop();
  const written = new WrittenFiles(root);
  const applying = applyOps(root, plan.ops, existing, fs, run.staged, written, reader);
  // The texts the cache keeps go in while the files are moved into place (on the staging
  // thread, for the most part): other files, and this thread would wait.
  const caching = (async () => {
    // The staging thread's answers get their turn now and then: the files are moved into
    // place meanwhile, not after thousands of texts.
    const turn = giveWay({ sliceMs: CACHING_SLICE_MS });
    for (const text of plan.cacheTexts) {
      await cache.stage(text);
      await turn();
    }
    for (const record of plan.cacheRecords) {
      const { content } = record;
      // A spilled text's hash was taken as it was spilled: not again.
      await cache.stage(
        String(readContent(content, reader) ?? ""),
        isSpilled(content) ? content.sha256 : undefined,
      );
      await turn();
    }
    await cache.flush();
  })();
  // A failure of either is thrown once both are done (the tree's first).
  const [applied, cached] = await Promise.allSettled([applying, caching]);
  if (applied.status === "rejected") throw applied.reason;
  if (cached.status === "rejected") throw cached.reason;
  written.record(state.loadStatCache());
  return applied.value;
}

/** Commit the state the written plan leaves: blob ids, snapshot, cache, journal, stat cache. */
export async function commitPlan(
  options: PullOptions,
  state: SiteState,
  planned: PlannedRun,
): Promise<boolean> {
  const { plan, pending } = planned;
  // The files are written and the texts cached: the listing and the file operations are not
  // read again. Let them go before the snapshot and the stat cache are written.
  planned.release();
  plan.ops.length = 0;
  plan.cacheTexts.length = 0;
  plan.cacheRecords.length = 0;
  await addBlobIds(options.root, plan.snapshot, plan.blobless);
  return state.commit({
    loaded: planned.loaded,
    snapshot: plan.snapshot,
    // A pull of the whole site knows every text the snapshot needs: the rest of the cache goes.
    prune: planned.wholeSite,
    // The tree is now the snapshot but where something stays pending: said as status says it,
    // for the next pull and status to read only the folders that changed since.
    clean: pending && options.stamp ? { dirty: pending, stamp: options.stamp } : undefined,
  });
}
