import path from "node:path";
import { resolveSite } from "../config/config.js";
import { UserError } from "../errors.js";
import { guardSnapshotSite } from "../sync/guards.js";
import type { SiteNames } from "../sync/push/other-site.js";
import { guardIdsSite } from "../sync/state/ids-owner.js";
import { STATE_DIR } from "../sync/state/paths.js";
import { loadSnapshot } from "../sync/state/snapshot.js";
import type { GlobalOptions } from "./io.js";
import type { TreeContext } from "./tree-root.js";

/**
 * The snapshot an offline command (status, diff) measures against: the chosen site's own,
 * never another's. A site this tree never synced (or a --url no snapshot was made for) is said
 * so, never reported as "nothing to push".
 */
export async function siteSnapshot(tree: TreeContext, globals: GlobalOptions) {
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
