import type { WireRecord } from "../../api/wire.js";
import { newestTime } from "../state/recovery.js";
import type { Snapshot } from "../state/snapshot-model.js";

// `listed` in a snapshot: the newest time (the site's own clock) that a whole listing saw on the
// site. A record made before it that no sync knows is not one a run of this tree made (see
// recovery.ts, createdCandidates). It moves on only when the site's records changed since the
// snapshot, so a pull with nothing new writes nothing; an older time is only a looser bound.

/** The `listed` a pull's new snapshot carries (undefined: none yet). */
export function listedAfter(
  snapshot: Snapshot | undefined,
  listed: { courses: readonly WireRecord[]; chapters: readonly WireRecord[] },
  /** The listing was whole and consistent, and the pull was of the whole site. */
  whole: boolean,
): string | undefined {
  const moved = whole && siteMoved(snapshot, listed.courses, listed.chapters);
  const seen = moved ? newestTime([...listed.courses, ...listed.chapters]) : undefined;
  return seen ?? snapshot?.listed;
}

/**
 * Whether the site changed since the snapshot's last sync, by the records alone (not the files,
 * so a pull stopped part-way and run again decides as one that was not): a record made, edited
 * or deleted there.
 */
function siteMoved(
  snapshot: Snapshot | undefined,
  courses: readonly WireRecord[],
  chapters: readonly WireRecord[],
): boolean {
  if (!snapshot) return true;
  for (const [table, records] of [
    [snapshot.courses, courses],
    [snapshot.chapters, chapters],
  ] as const) {
    if (records.length !== Object.keys(table).length) return true;
    for (const record of records) if (table[record.id]?.record.updated_at !== record.updated_at) return true;
  }
  return false;
}
