/**
 * The documents `--json` prints, by command: what scripts read on stdout and what the library's
 * functions return. The commands' builders are typed with them, so the two cannot drift apart.
 */
// Standalone on purpose: the library's declarations end here, not in the modules behind them.
// Each builder returns these types, so a change to what it is built from that no longer fits
// fails to compile.

/** The outcome of a record in a run. */
export type OutcomeJson =
  | "created"
  | "updated"
  | "renamed"
  | "deleted"
  | "unchanged"
  | "conflict"
  | "failed"
  | "skipped";

/** A record of the site named by kind, id and path. */
export interface RecordRefJson {
  kind: "course" | "chapter";
  id: number;
  path: string;
}

/** A record's outcome in a run, as --json gives it (fields that do not apply are left out). */
export interface ChangeJson {
  kind: "course" | "chapter";
  /** Left out for a record the site has no id for yet. */
  id?: number;
  /** The file or folder, relative to the tree root (after the run). */
  path: string;
  outcome: OutcomeJson;
  /** Fields that changed. */
  fields?: string[];
  /** The previous path of a rename. */
  from?: string;
  /** Why: a conflict's reason, a failure's message. */
  reason?: string;
  /** A conflict copy written beside the file. */
  copy?: string;
  /** For a conflict: what the run wrote to show it. */
  resolution?: "markers" | "beside" | "none";
  /** Fields another writer changed on the site between the re-read and the write. */
  raced?: string[];
  /** For a record push held back: what resolves it. */
  resolve?: string;
  /** A write held back because the write it depends on is held: that record's path. */
  heldBy?: string;
}

/** A path pending in the tree, as status sees it. */
export interface StatusEntryJson {
  state: "new" | "modified" | "moved" | "renamed" | "deleted" | "conflict" | "invalid" | "untracked";
  kind: "course" | "chapter" | "file";
  id?: number;
  path: string;
  fields?: string[];
  from?: string;
  /** The site's version of a conflicted record, written beside it by pull. */
  copy?: string;
  resolution?: "markers" | "beside" | "none";
  message?: string;
}

/** One problem of a file, as check finds it. */
export interface ProblemJson {
  file: string;
  line: number | null;
  column: number | null;
  /** What kind of problem (yaml-syntax, unknown-key, ...). */
  rule: string;
  message: string;
  hint: string | null;
}

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
  events?: { added: number; known: number; pages: number };
  counts: Record<OutcomeJson, number>;
  /** Every record that did not end unchanged. */
  changes: ChangeJson[];
  conflicts: ChangeJson[];
  invalid: InvalidFileJson[];
  /** The listing moved while pull paged through it (nothing was deleted); null when it did not. */
  listing_moved: { missed: RecordRefJson[]; deletes_waiting: RecordRefJson[] } | null;
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
  counts: Record<OutcomeJson, number>;
  changes: ChangeJson[];
  sent: ChangeJson[];
  held: ChangeJson[];
  conflicts: ChangeJson[];
  raced: ChangeJson[];
  kept: Array<{ kind: "course" | "chapter"; path: string; reason: string; conflict?: true }>;
  errors: ChangeJson[];
  /** API requests the run made, by method. */
  requests: Record<"GET" | "POST" | "PATCH" | "DELETE", number>;
}

/** `coursesync status --json`. */
export interface StatusJson {
  command: "status";
  site: string;
  /** Nothing is pending. */
  clean: boolean;
  interrupted_push: boolean;
  entries: StatusEntryJson[];
}

/** `coursesync check --json`. */
export interface CheckJson {
  command: "check";
  /** No problem was found. */
  ok: boolean;
  files_checked: number;
  /** Whether the site's snapshot was there to check against. */
  snapshot: boolean;
  problems: ProblemJson[];
}

/** One step of a run, as the library's `onProgress` is told it. */
export type ProgressEvent =
  /** A page of a site's list came: `records` of that list so far. */
  | { type: "listing"; list: string; page: number; records: number }
  /** A push or restore ended one of its `total` writes (`done` so far). */
  | { type: "write"; path: string; outcome: OutcomeJson; done: number; total: number }
  /**
   * A pull reached a step, in order: both lists are in and the tree is read (listed), every
   * chapter is converted to its file (converted), the plan is made (planned; a dry run ends
   * here), the files are in place (written), the snapshot is saved (committed).
   */
  | { type: "step"; step: "listed" | "converted" | "planned" | "written" | "committed" }
  /** A note or warning the command line would print on stderr. */
  | { type: "message"; text: string };
