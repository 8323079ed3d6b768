import type { Config } from "../config/config.js";
import { ContentCache, statePaths } from "../sync/snapshot.js";
import { type StatusEntry, treeStatus } from "../sync/status.js";
import { bodyCodec } from "../tree/codecs.js";
import type { StatCache } from "../tree/stat-cache.js";
import type { CliRun, GlobalOptions } from "./io.js";
import { knownTreePaths } from "./paths.js";
import { siteSnapshot } from "./site-snapshot.js";

/**
 * Status the long way: read the snapshot, scan the tree (the stat cache spares reading files
 * whose stat is unchanged), and reconcile. A whole-tree status that finds nothing pending, and
 * nothing to warn of, tells the stat cache the tree is clean at `stamp`, for the next run's fast
 * path; one that finds something forgets it.
 */
export async function fullStatus(options: {
  run: CliRun;
  globals: GlobalOptions;
  tree: { root: string; config: Config };
  paths: readonly string[];
  statCache: StatCache;
  stamp: string | undefined;
  warn: (message: string) => void;
}): Promise<StatusEntry[]> {
  const { run, tree, paths, statCache } = options;
  const { site, snapshot, names, other } = await siteSnapshot(tree, options.globals);
  let warned = false;
  const entries = await treeStatus({
    root: tree.root,
    snapshot,
    ignore: tree.config.ignore,
    bodies: bodyCodec(tree.config.body),
    paths: paths.length ? knownTreePaths(run, tree.root, paths, snapshot) : undefined,
    statCache,
    cache: new ContentCache(statePaths(tree.root, site.name).cache),
    limits: tree.config.limits,
    onWarning: (message) => {
      warned = true;
      options.warn(message);
    },
    site: other ? names : undefined,
  });
  if (paths.length === 0) {
    if (entries.length === 0 && !warned && options.stamp !== undefined) statCache.markClean(options.stamp);
    else statCache.forgetClean();
  }
  return entries;
}
