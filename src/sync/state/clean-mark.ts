import type { Config, ResolvedSite } from "../../config/config.js";
import type { FolderData } from "../../tree/folder-thread.js";
import { snapshotStamp } from "./snapshot.js";

/** The tree a clean verdict is made of: its root and the settings status reads. */
export interface CleanTree {
  root: string;
  config: Pick<Config, "ignore" | "body" | "limits">;
}

/**
 * What a clean verdict of the tree rests on besides its files: the committed snapshot, and the
 * settings that change what status says (the site's address, ignore rules, body format, limits).
 * Status and pull both stamp the stat cache's verdict with it.
 */
export function cleanStamp(
  tree: CleanTree,
  site: ResolvedSite,
  /** The snapshot's course files as a thread read them (snapshotCoursesFolder), if it did. */
  courses?: FolderData | null,
): string | undefined {
  const snapshot = snapshotStamp(tree.root, site.name, courses);
  const { ignore, body, limits } = tree.config;
  return snapshot && `${snapshot} ${JSON.stringify({ url: site.url, ignore, body, limits })}`;
}
