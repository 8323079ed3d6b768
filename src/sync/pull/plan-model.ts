import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import type { Layout } from "../../tree/layout.js";
import type { LocalView } from "../local/view.js";
import type { ChapterPlan, CoursePlan, CourseValues, Rendered } from "../model/entities.js";
import type { Change } from "../model/report.js";
import type { ContentReader } from "../model/spilled.js";
import type { Winner } from "../reconcile.js";
import type { Snapshot } from "../state/snapshot-model.js";

// The pull planner's shapes, shared by its parts (plan, emit, place, held, synced).

/** Records pull leaves as they are, because a file of theirs here is invalid. */
export interface Held {
  courses: ReadonlySet<number>;
  chapters: ReadonlySet<number>;
}

/** Everything the pull planner reads: all data, no I/O. */
export interface PullInput {
  snapshot: Snapshot | undefined;
  site: string;
  local: LocalView;
  remoteCourses: readonly WireRecord[];
  remoteChapters: readonly WireRecord[];
  /** Base chapter texts from the content cache, by hash (for body merges). */
  baseTexts: ReadonlyMap<string, string>;
  bodies: BodyCodec;
  winner?: Winner | undefined;
  /**
   * false: a body both sides changed is never written with conflict markers; the site's
   * version goes beside the file, as for a field conflict, and the snapshot keeps the last
   * sync (ci backup: a commit never holds markers). @default true
   */
  markers?: boolean | undefined;
  /** Conflict copies now in the tree (`*.remote.md`, `course.remote.yaml`), to clean up. */
  existingCopies: ReadonlySet<string>;
  /** Course ids and new-course keys in scope (pull [paths...]); undefined = everything. */
  inScope?: ((course: { id: number | undefined; folders: string[] }) => boolean) | undefined;
  /** Records an invalid file holds back: not planned, their files and snapshot entries kept. */
  held?: Held | undefined;
  /** A chapter record's file as already rendered this run (its hash and body key), if it was. */
  rendered?: ((record: WireRecord) => Rendered | undefined) | undefined;
  /** The hash of a course record's file as already rendered this run, if it was. */
  courseHash?: ((record: WireRecord) => string | undefined) | undefined;
  /**
   * Reads the chapter texts a pull spilled (see pull/spill.ts) where the plan needs them: to
   * reconcile a chapter the tree or the last sync has, for merges, conflict copies and hashes.
   * Without it, no record may hold a spilled text.
   */
  reader?: ContentReader | undefined;
}

/** A file operation of the plan, relative paths with /. */
export type FileOp =
  | { op: "move-folder"; from: string; to: string }
  | WriteOp
  | { op: "move"; from: string; to: string }
  | { op: "delete"; path: string }
  | { op: "remove-folder-if-empty"; path: string }
  | { op: "copy"; path: string; text: string }
  | { op: "remove-copy"; path: string };

/** A file write of the plan: its text is made by `render()`, when the write is carried out. */
export interface WriteOp {
  op: "write";
  path: string;
  from?: string | undefined;
  /** The SHA-256 of the text, when known without making it (a file staged as its page came). */
  hash?: string | undefined;
  /** The file's text, made by this call (each time it is called); spilled texts read through `reader`. */
  render(reader?: ContentReader): string;
}

/** What a pull will do. */
export interface PullPlan {
  ops: FileOp[];
  changes: Change[];
  snapshot: Snapshot;
  /** Local files the pull deletes (for the delete guard). */
  deletes: number;
  /** Chapter HTML to keep in the content cache. */
  cacheTexts: string[];
  /** Chapters whose content the cache keeps too, read (from the spill) only as it is kept. */
  cacheRecords: WireRecord[];
  /**
   * Chapters whose entry has no git blob id (an older version wrote it, or a first mapping of a
   * site) and whose file holds the text the entry names: their blob ids are taken from the files
   * (see pull/blob-ids.ts).
   */
  blobless: number[];
}

/** What the planner knows once every record is reconciled: the input and each record's plan. */
export interface Planned {
  input: PullInput;
  local: LocalView;
  bodies: BodyCodec;
  /** The last sync (empty without a snapshot). */
  base: Snapshot;
  remoteCourses: ReadonlyMap<number, WireRecord>;
  remoteChapters: ReadonlyMap<number, WireRecord>;
  coursePlans: ReadonlyMap<number, CoursePlan>;
  chapterPlans: ReadonlyMap<number, ChapterPlan>;
  courseIds: ReadonlySet<number>;
  chapterIds: ReadonlySet<number>;
  /** coursesync.yaml's `body` differs from the one the snapshot was written with. */
  modeChanged: boolean;
}

/** What the plan is built into: file operations, changes, the next snapshot, counts. */
export interface PlanOutput {
  ops: FileOp[];
  changes: Change[];
  next: Snapshot;
  /** Local files deleted (for the delete guard). */
  deletes: number;
  cacheTexts: string[];
  /** Records whose content the cache keeps, read back from the spill only then. */
  cacheRecords: WireRecord[];
}

/** Where every record's file goes after the pull, and what could not be placed. */
export interface Placement {
  layout: Layout;
  /** A course's values after the pull, by id (for its course.yaml). */
  courseFinal: Map<number, CourseValues>;
  /** Chapters whose course has no folder here: their site versions wait as copies. */
  unplaceable: Set<number>;
}
