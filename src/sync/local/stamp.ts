import { lstatSync } from "node:fs";
import { statePaths } from "../snapshot.js";

/**
 * A cheap signature of the committed snapshot of one site (size, mtime, ctime and inode of its
 * file), undefined when there is none: while it holds, the snapshot has not been rewritten, by
 * a sync or by git. A verdict that rests on the snapshot keeps it to know when to recompute.
 */
export function snapshotStamp(root: string, site: string): string | undefined {
  const stat = lstatSync(statePaths(root, site).snapshot, { throwIfNoEntry: false });
  return stat?.isFile() ? `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}` : undefined;
}
