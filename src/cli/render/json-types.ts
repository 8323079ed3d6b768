/**
 * The documents `--json` prints, by command: what scripts read on stdout and what the library's
 * functions return. The commands' builders are typed with them, so the two cannot drift apart.
 */
import type { Method } from "../../api/transport.js";
import type { EventsResult } from "../../sync/events.js";
import type { Change, Outcome } from "../../sync/model/report.js";
import type { RecordRef } from "../../sync/pull/unlisted.js";
import type { StatusEntry } from "../../sync/status.js";
import type { ProblemRecord } from "./problems.js";

/** A record's outcome in a run, as --json gives it: a Change with its unset fields left out. */
export type ChangeJson = Change;

/** An invalid file pull left as it is: its path, line, what is wrong and what to do. */
export interface InvalidFileJson {
  path: string;
  line?: number;
  message: string;
  hint?: string;
}

/** `coursesync pull --json`. */
export interface PullJson {
  command: "pull";
  /** The site's API root. */
  site: string;
  dry_run: boolean;
  /** No snapshot of the site was here before this pull (a first pull). */
  snapshot_missing: boolean;
  /** The records the site listed. */
  remote: { courses: number; chapters: number };
  requests: number;
  files_written: number;
  /** With `events: true`: the site's events archived. */
  events?: EventsResult;
  counts: Record<Outcome, number>;
  /** Every record that did not end unchanged. */
  changes: ChangeJson[];
  conflicts: ChangeJson[];
  invalid: InvalidFileJson[];
  /** The listing moved while pull paged through it (nothing was deleted); null when it did not. */
  listing_moved: { missed: RecordRef[]; deletes_waiting: RecordRef[] } | null;
  errors: never[];
}

/** One write of a push's plan. */
export interface PlanOpJson {
  type: "create" | "update" | "delete";
  kind: "course" | "chapter";
  /** null for a create. */
  id: number | null;
  path: string;
  /** For an update: the fields it sends. */
  fields?: string[];
  /** For an update of a chapter's content: what the new content leaves out. */
  removes?: string[];
}

/** `coursesync push --json` and `coursesync restore --json` (`command` says which). */
export interface PushJson {
  command: "push" | "restore";
  site: string;
  /** restore only: the records the site lost and those only it has; null when it held the tree. */
  restored?: { lost: number; extra: number } | null;
  dry_run: boolean;
  /** Whether the plan was applied (false for a dry run, or without `yes`). */
  applied: boolean;
  plan: PlanOpJson[];
  counts: Record<Outcome, number>;
  changes: ChangeJson[];
  sent: ChangeJson[];
  held: ChangeJson[];
  conflicts: ChangeJson[];
  raced: ChangeJson[];
  kept: Array<{ kind: "course" | "chapter"; path: string; reason: string; conflict?: true }>;
  errors: ChangeJson[];
  /** API requests the run made, by method. */
  requests: Record<Method, number>;
}

/** `coursesync status --json`. */
export interface StatusJson {
  command: "status";
  site: string;
  /** Nothing is pending. */
  clean: boolean;
  interrupted_push: boolean;
  entries: StatusEntry[];
}

/** `coursesync check --json`. */
export interface CheckJson {
  command: "check";
  /** No problem was found. */
  ok: boolean;
  files_checked: number;
  /** Whether the site's snapshot was there to check against. */
  snapshot: boolean;
  problems: ProblemRecord[];
}
