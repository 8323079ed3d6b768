import path from "node:path";
import { type Config, resolveSite } from "../../config/config.js";
import { UserError } from "../../errors.js";
import { guardSnapshotSite } from "../guards.js";
import type { SiteNames } from "../push/other-site.js";
import { guardIdsSite } from "./ids-owner.js";
import { STATE_DIR } from "./paths.js";
import { loadSnapshot } from "./snapshot.js";
import type { Snapshot } from "./snapshot-model.js";

/** A site as resolved, its snapshot, and the names another site's runs need. */
export interface SiteSnapshot {
  site: ReturnType<typeof resolveSite>;
  snapshot: Snapshot;
  names: SiteNames;
  /** The site is not the one whose ids the files carry. */
  other: boolean;
}

/**
 * The snapshot an offline command (status, diff) measures against: the chosen site's own,
 * never another's. A site this tree never synced (or a --url no snapshot was made for) is said
 * so, never reported as "nothing to push".
 */
export async function siteSnapshot(
  tree: { root: string; config: Config },
  globals: { site?: string | undefined; url?: string | undefined },
): Promise<SiteSnapshot> {
  const site = resolveSite(tree.config, globals);
  await guardIdsSite(tree.root, Object.keys(tree.config.sites), tree.config.ids);
  const names: SiteNames = { site: site.name, siteUrl: site.url, idsSite: tree.config.ids };
  const snapshot = await loadSnapshot(tree.root, site.name);
  if (!snapshot) {
    const other = site.name !== tree.config.ids;
    throw new UserError(
      `site "${site.name}" (${site.url}) has never been synced from this tree: no snapshot in ${path.join(tree.root, STATE_DIR)}`,
      {
        hint: other
          ? `\`coursesync push --site ${site.name}\` restores the tree into it when it is empty.`
          : "Run `coursesync pull` first: the snapshot is the base every local change is measured against.",
      },
    );
  }
  guardSnapshotSite(
    `the snapshot of site "${site.name}"`,
    snapshot.site,
    site.url,
    "Add the site to coursesync.yaml's `sites:` under its own name and use --site <name>.",
    `: this tree has never synced ${site.url}`,
  );
  return { site, snapshot, names, other: site.name !== tree.config.ids };
}
