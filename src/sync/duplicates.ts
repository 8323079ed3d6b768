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
    const table = kind === "course" ? snapshot.courses : snapshot.chapters;
    const ids = Object.keys(table);
    // Each group's lines, in the order the group's first record with a time comes.
    const found: Array<{ first: number; lines: string[] }> = [];
    for (const group of sameTitles(ids, table, kind === "chapter")) {
      const made: Made[] = [];
      let first = -1;
      for (const index of group) {
        const id = ids[index]!;
        const entry = table[id]!;
        const at = madeAt(entry.record);
        if (!Number.isFinite(at)) continue;
        if (first < 0) first = index;
        made.push({ id, entry, at });
      }
      made.sort((a, b) => a.at - b.at || Number(a.id) - Number(b.id));
      const pairs: string[] = [];
      for (let i = 1; i < made.length; i++) {
        const [a, b] = [made[i - 1]!, made[i]!];
        if (b.at - a.at <= windowMs) pairs.push(pairLine(kind, a, b));
      }
      if (pairs.length > 0) found.push({ first, lines: pairs });
    }
    for (const group of found.sort((a, b) => a.first - b.first)) lines.push(...group.lines);
  }
  return lines;
}

/**
 * The records (indices into `ids`) that share a title, in the same course when `byCourse`: the
 * groups of two or more. A site of thousands of
 * records has few such groups: a lone record costs a map entry, not an object or a date.
 */
function sameTitles(ids: readonly string[], table: Snapshot["courses"], byCourse: boolean): number[][] {
  const courses = new Map<unknown, Map<string, number | number[]>>();
  const groups: number[][] = [];
  for (const [index, id] of ids.entries()) {
    const record = table[id]!.record;
    const course = byCourse ? String(record.course_id) : "";
    let titles = courses.get(course);
    if (!titles) {
      titles = new Map();
      courses.set(course, titles);
    }
    const key = plainTitle(record.title) ?? titleKey(record.title);
    const seen = titles.get(key);
    if (seen === undefined) titles.set(key, index);
    else if (typeof seen === "number") {
      const group = [seen, index];
      titles.set(key, group);
      groups.push(group);
    } else seen.push(index);
  }
  return groups;
}

/** A title titleKey would leave as it is (printable ASCII, single spaces inside): itself. */
function plainTitle(title: unknown): string | undefined {
  return typeof title === "string" && /^[!-~]+(?: [!-~]+)*$/.test(title) ? title : undefined;
}
