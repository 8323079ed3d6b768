import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ExitCode, UserError } from "../../errors.js";
import { unfinishedMove } from "./move-ids-journal.js";
import { statePaths } from "./paths.js";
import { SITE_FILE } from "./shards.js";
import { loadSnapshot, snapshotIsLegacy } from "./snapshot.js";

// The ids in the files belong to one named site (`ids:` in coursesync.yaml). Its snapshot keeps
// records under those ids directly; every other site's snapshot maps them to its own. A tree
// whose snapshots say otherwise (a default switched by hand before `ids:` was recorded, a
// snapshot copied from another tree) would read one site's ids as another's: refused here,
// before anything is read from the site or written.

/**
 * How a site's snapshot holds ids: none at all, the files' ids directly, or through an id map;
 * or it cannot be read (the command that loads it says why).
 */
export type SnapshotIds = "none" | "direct" | "mapped" | "unreadable";

/** Whether a site's snapshot holds the files' ids directly or through an id map (read cheaply). */
export async function snapshotIds(root: string, site: string): Promise<SnapshotIds> {
  const paths = statePaths(root, site);
  try {
    if (snapshotIsLegacy(root, site) || existsSync(paths.pending)) {
      const loaded = await loadSnapshot(root, site);
      return loaded === undefined ? "none" : loaded.ids ? "mapped" : "direct";
    }
    const text = await readFile(path.join(paths.snapshot, SITE_FILE), "utf8").catch(() => undefined);
    if (text === undefined) return "none";
    const head = JSON.parse(text) as { id_map?: unknown } | null;
    return head?.id_map === true ? "mapped" : "direct";
  } catch {
    return "unreadable";
  }
}

/**
 * Refuse a tree whose `ids:` site cannot own the files' ids: its snapshot maps them (it was made
 * as another site's), or it has none while another site's snapshot holds ids directly (the
 * files' ids are that site's). Nothing is read from a site or written before this passes.
 */
export async function guardIdsSite(root: string, sites: readonly string[], idsSite: string): Promise<void> {
  const moving = await unfinishedMove(root);
  if (moving !== undefined) {
    throw new UserError(
      `a \`coursesync site move-ids ${moving}\` was cut short: some files may carry the new ids and some the old; nothing was read or written`,
      { hint: `Finish it: coursesync site move-ids ${moving}`, exitCode: ExitCode.usage },
    );
  }
  const kinds = await Promise.all(sites.map(async (site) => [site, await snapshotIds(root, site)] as const));
  const own = kinds.find(([site]) => site === idsSite)?.[1] ?? "none";
  if (own === "direct" || own === "unreadable") return;
  const direct = kinds.filter(([site, kind]) => site !== idsSite && kind === "direct").map(([site]) => site);
  if (own === "none" && direct.length === 0) return;
  const owner = direct.length === 1 ? direct[0] : undefined;
  const why =
    own === "mapped"
      ? `the snapshot of "${idsSite}" (.coursesync/${idsSite}/) maps the files' ids to its own, so the files' ids are not "${idsSite}"'s`
      : `"${idsSite}" has never been synced, but the snapshot of ${direct.map((s) => `"${s}"`).join(" and ")} holds the files' ids`;
  throw new UserError(
    `coursesync.yaml says the ids in the files are those of site "${idsSite}" (\`ids:\`, or the default site when unset), but ${why}; nothing was read or written`,
    {
      hint:
        owner !== undefined
          ? `The files carry "${owner}"'s ids: set \`ids: ${owner}\` in coursesync.yaml (the default site, \`site:\`, can stay as it is). To make "${idsSite}"'s ids the files' own, run \`coursesync site move-ids ${idsSite}\` after that.`
          : `Set \`ids:\` in coursesync.yaml to the site the tree was pulled from: the one whose snapshot has no id map (.coursesync/<name>/site.json without "id_map").`,
      exitCode: ExitCode.usage,
    },
  );
}
