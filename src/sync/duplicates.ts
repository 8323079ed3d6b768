import type { WireRecord } from "../api/wire.js";
import { titleKey } from "./state/recovery.js";
import type { Snapshot, SnapshotEntry } from "./state/snapshot-model.js";

// Records the site holds twice: two publishes that raced (a manual push beside CI), or a
// create made again by an older version of coursesync. Named by pull, check and doctor, so a
// copy is found before it spreads into backups as an ordinary file.

/** How close together two records of one title must have been made to look like one made twice. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

interface Made {
  id: string;
  entry: SnapshotEntry;
  at: number;
}

function madeAt(record: WireRecord): number {
  return Date.parse(String(record.created_at ?? ""));
}

/** What a pair looks like to a reader: `chapters 12 and 14 ("New", courses/web/03-new.md and …)`. */
function pairLine(kind: "course" | "chapter", a: Made, b: Made): string {
  const apart = Math.round(Math.abs(a.at - b.at) / 1000);
  return `likely made twice on the site: ${kind}s ${a.id} and ${b.id} (${JSON.stringify(a.entry.record.title)}, at ${a.entry.path} and ${b.entry.path}), made ${apart} s apart. If one is a copy, delete it on the site, then pull (its file goes with it)`;
}

/**
 * Pairs of records that look like one record made twice (pure): the same kind and title (as
 * sites store titles), in the same course for chapters, made within DUPLICATE_WINDOW_MS of each
 * other. One line each, oldest pair first.
 */
export function likelyDuplicates(snapshot: Snapshot, windowMs = DUPLICATE_WINDOW_MS): string[] {
  const lines: string[] = [];
  for (const kind of ["course", "chapter"] as const) {
    const groups = new Map<string, Made[]>();
    for (const [id, entry] of Object.entries(kind === "course" ? snapshot.courses : snapshot.chapters)) {
      const at = madeAt(entry.record);
      if (!Number.isFinite(at)) continue;
      const key = `${kind === "chapter" ? String(entry.record.course_id) : ""}\u0000${titleKey(entry.record.title)}`;
      const group = groups.get(key) ?? [];
      group.push({ id, entry, at });
      groups.set(key, group);
    }
    for (const group of groups.values()) {
      group.sort((a, b) => a.at - b.at || Number(a.id) - Number(b.id));
      for (let i = 1; i < group.length; i++) {
        const [a, b] = [group[i - 1]!, group[i]!];
        if (b.at - a.at <= windowMs) lines.push(pairLine(kind, a, b));
      }
    }
  }
  return lines;
}
