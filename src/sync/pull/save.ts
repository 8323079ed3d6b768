import type { TreeFs } from "../../tree/tree-fs.js";
import { jsonEqual } from "../reconcile.js";
import { type Snapshot, saveSnapshot, snapshotUnsettled } from "../state/snapshot.js";

// The end of a pull: the snapshot written when it changed, and what the content cache keeps.

/** The content hashes a snapshot's chapter records name. */
export function contentHashes(snapshot: Snapshot): Set<string> {
  const hashes = new Set<string>();
  for (const entry of Object.values(snapshot.chapters))
    if (typeof entry.record.content_sha256 === "string") hashes.add(entry.record.content_sha256);
  return hashes;
}

/** Write the snapshot unless it is the one on disk; whether it was written. */
export async function saveIfChanged(
  root: string,
  site: string,
  before: Snapshot | undefined,
  after: Snapshot,
  fs: TreeFs,
): Promise<boolean> {
  // An unchanged snapshot is written anyway while it is the single file of earlier versions,
  // or a save was cut short.
  if (before && jsonEqual(before, after) && !snapshotUnsettled(root, site)) return false;
  await saveSnapshot(root, site, after, fs);
  return true;
}
