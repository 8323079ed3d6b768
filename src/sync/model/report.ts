import type { Conflict } from "../reconcile.js";

/** The fixed set of outcomes an entity can end a run with (feeds the summary and --json). */
export type Outcome =
  | "created"
  | "updated"
  | "renamed"
  | "deleted"
  | "unchanged"
  | "conflict"
  | "failed"
  | "skipped";

/**
 * What a run did about a conflict, so that what it says follows from it: both sides written
 * into the file between conflict markers, the site's version written beside the file (a
 * conflict copy), or nothing written (a delete against an edit; push and watch write no file).
 */
export type ConflictResolution = "markers" | "beside" | "none";

/** One entity's outcome in a run. */
export interface Change {
  kind: "course" | "chapter";
  id: number | undefined;
  /** The file or folder, relative to the tree root (after the run). */
  path: string;
  outcome: Outcome;
  /** Fields that changed, where it applies. */
  fields?: string[];
  /** The previous path of a rename. */
  from?: string;
  /** Why: a conflict's reason, a failure's message. */
  reason?: string;
  /** A conflict copy written beside the file. */
  copy?: string;
  /** For a conflict: what the run wrote to show it. */
  resolution?: ConflictResolution;
  /** Fields another writer changed on the site between this run's re-read and its write. */
  raced?: string[];
  /** For a record push held back (a conflict, or a write waiting on one): what resolves it. */
  resolve?: string;
  /** A write push held back because the write it depends on is held: that record's path. */
  heldBy?: string;
}

/** Counts of outcomes, for one summary line. */
export function countOutcomes(changes: readonly Change[]): Record<Outcome, number> {
  const counts: Record<Outcome, number> = {
    created: 0,
    updated: 0,
    renamed: 0,
    deleted: 0,
    unchanged: 0,
    conflict: 0,
    failed: 0,
    skipped: 0,
  };
  for (const change of changes) counts[change.outcome]++;
  return counts;
}

/** The words for a conflict, the same in pull, push, status and watch. */
export function conflictReason(conflict: Conflict): string {
  const fields = conflict.fields.join(", ");
  switch (conflict.reason) {
    case "both-changed":
      return `changed here and on the site since the last sync: ${fields}`;
    case "deleted-remotely-edited-locally":
      return "deleted on the site, edited here";
    case "deleted-locally-edited-remotely":
      return "deleted here, changed on the site";
    case "no-base":
      return `differs from the site and there is no snapshot to tell which side changed: ${fields}`;
    case "unknown-id":
      return "this id is not on the site";
  }
}
