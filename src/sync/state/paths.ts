import { readdir } from "node:fs/promises";
import path from "node:path";
import { tempFileOwner } from "../../tree/fs-ops.js";

// Where a site's state lives under `.coursesync/`: the one place that names those paths (a run
// opens them through SiteState, state/workspace.ts).

/** Folder of the snapshot, lock and caches, at the tree root. */
export const STATE_DIR = ".coursesync";

/** The paths of one site's state under `.coursesync/`. */
export interface SitePaths {
  dir: string;
  /** The snapshot's folder (committed). */
  snapshot: string;
  /** The single-file snapshot of earlier versions (committed until the first save replaces it). */
  legacy: string;
  /** A save of the snapshot under way (see state/snapshot-folder.ts). */
  pending: string;
  lock: string;
  cache: string;
  journal: string;
}

/** Paths of the snapshot and its side files for one site. */
export function statePaths(root: string, site: string): SitePaths {
  const dir = path.join(root, STATE_DIR);
  return {
    dir,
    snapshot: path.join(dir, site),
    legacy: path.join(dir, `${site}.json`),
    pending: path.join(dir, `${site}.pending`),
    lock: path.join(dir, `${site}.lock`),
    cache: path.join(dir, "cache", site),
    journal: path.join(dir, `${site}.journal`),
  };
}

/** The stat cache file of a site's runs in the tree at `root`. */
export function statCachePath(root: string, site: string): string {
  return path.join(statePaths(root, site).cache, "stat.json");
}

/** Where `site move-ids` keeps its run while it lasts. */
export function moveIdsDir(root: string): string {
  return path.join(root, STATE_DIR, "cache", "_move-ids");
}

/**
 * Temp files that writes to the state folder and to this site's cache left (a run killed
 * mid-write), as tree paths: for `removeLeftoverTemps`, which spares those of live processes.
 */
export async function stateTemps(root: string, site: string): Promise<string[]> {
  const paths = statePaths(root, site);
  const names = async (dir: string, recursive: boolean) =>
    ((await readdir(dir, { recursive }).catch(() => [])) as string[]).map((name) =>
      path.relative(root, path.join(dir, name)).split(path.sep).join("/"),
    );
  const all = [
    ...(await names(paths.dir, false)),
    ...(await names(paths.cache, true)),
    ...(await names(paths.snapshot, true)),
  ];
  return all.filter((file) => tempFileOwner(file) !== undefined);
}
