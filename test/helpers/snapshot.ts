import { expect } from "vitest";
import { joinSnapshot } from "../../src/sync/state/shards.js";
import { loadSnapshot } from "../../src/sync/state/snapshot.js";
import type { Snapshot } from "../../src/sync/state/snapshot-model.js";

/** The files of a site's snapshot folder among a tree's files (as treeNow or readTree read them). */
export function snapshotFiles(files: Record<string, string>, site = "production"): Record<string, string> {
  const prefix = `.coursesync/${site}/`;
  return Object.fromEntries(
    Object.entries(files)
      .filter(([file]) => file.startsWith(prefix) && !file.endsWith(".tmp"))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** A site's snapshot joined from its folder's files among a tree's files. */
export function snapshotIn(files: Record<string, string>, site = "production"): Snapshot {
  const prefix = `.coursesync/${site}/`;
  const parsed = new Map(
    Object.entries(snapshotFiles(files, site)).map(([file, text]) => [
      file.slice(prefix.length),
      JSON.parse(text),
    ]),
  );
  return joinSnapshot(parsed);
}

/** A site's snapshot as the tool reads it; the test fails when there is none. */
export async function readSnapshot(root: string, site = "production"): Promise<Snapshot> {
  const snapshot = await loadSnapshot(root, site);
  expect(snapshot, `the snapshot of ${site}`).toBeDefined();
  return snapshot!;
}
