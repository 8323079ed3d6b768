import { readFile } from "node:fs/promises";
import { abs } from "../../tree/fs-ops.js";
import { gitBlobId, sha256 } from "../../util/hash.js";
import type { Snapshot } from "../state/snapshot-model.js";

/** Files read at once. */
const AT_ONCE = 16;

/**
 * Give the entries an older version wrote their git blob ids (SnapshotEntry.blob), from their
 * files: only where a file still holds exactly the text the entry's hash names (else it is left
 * without one, and a clone lacking its text in the cache says so when it cannot merge).
 */
export async function addBlobIds(root: string, snapshot: Snapshot, ids: readonly number[]): Promise<void> {
  for (let at = 0; at < ids.length; at += AT_ONCE) {
    await Promise.all(
      ids.slice(at, at + AT_ONCE).map(async (id) => {
        const entry = snapshot.chapters[id];
        if (!entry || entry.blob !== undefined) return;
        const bytes = await readFile(abs(root, entry.path)).catch(() => undefined);
        if (bytes === undefined || sha256(bytes.toString("utf8")) !== entry.hash) return;
        // A new entry: the one the snapshot loaded stays as it was (saving compares the two).
        snapshot.chapters[id] = { ...entry, blob: gitBlobId(bytes) };
      }),
    );
  }
}
