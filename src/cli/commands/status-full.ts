import type { Config } from "../../config/config.js";
import { siteSnapshot } from "../../sync/state/site-snapshot.js";
import type { SiteState } from "../../sync/state/workspace.js";
import { type StatusEntry, treeStatus } from "../../sync/status.js";
import { bodyCodec } from "../../tree/codecs.js";
import { courseFolderContaining } from "../../tree/layout.js";
import type { CliRun, GlobalOptions } from "../io.js";
import { knownTreePaths } from "../paths.js";

/**
 * Status the long way: read the snapshot, scan the tree (the stat cache spares reading files
 * whose stat is unchanged), and reconcile; only in the course folders that changed since the
 * last clean status, when the stat cache can tell which. A whole-tree status tells the stat
 * cache the tree is clean at `stamp` but for the folders of what it listed, for the next run.
 */
export async function fullStatus(options: {
  run: CliRun;
  globals: GlobalOptions;
  tree: { root: string; config: Config };
  paths: readonly string[];
  /** The site's state, its stat cache loaded. */
  state: SiteState;
  stamp: string | undefined;
  /** Only these course folders differ from the last clean status (see treeStatus). */
  folders?: ReadonlySet<string> | undefined;
  warn: (message: string) => void;
}): Promise<StatusEntry[]> {
  const { run, tree, paths, state } = options;
  const { statCache } = state;
  const { snapshot, names, other } = await siteSnapshot(tree, options.globals);
  let warned = false;
  const look = (folders: ReadonlySet<string> | undefined) =>
    treeStatus({
      root: tree.root,
      snapshot,
      ignore: tree.config.ignore,
      bodies: bodyCodec(tree.config.body),
      paths: paths.length ? knownTreePaths(run, tree.root, paths, snapshot) : undefined,
      statCache,
      cache: state.cache,
      limits: tree.config.limits,
      onWarning: (message) => {
        warned = true;
        options.warn(message);
      },
      site: other ? names : undefined,
      folders,
    });
  const entries = (options.folders && (await look(options.folders))) ?? (await look(undefined)) ?? [];
  const dirty = foldersOf(entries);
  if (paths.length === 0) {
    if (dirty && !warned && options.stamp !== undefined) statCache.markClean(options.stamp, dirty);
    else statCache.forgetClean();
  }
  return entries;
}

/** The course folders (`courses/<name>`) of what status listed; undefined when one is elsewhere. */
function foldersOf(entries: readonly StatusEntry[]): string[] | undefined {
  const folders: string[] = [];
  for (const entry of entries) {
    for (const where of [entry.path, entry.from]) {
      if (where === undefined) continue;
      const folder = courseFolderContaining(where);
      if (folder === undefined) return undefined;
      folders.push(folder);
    }
  }
  return folders;
}
