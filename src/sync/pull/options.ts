import type { FileProblem } from "../../tree/yaml-text.js";
import type { Change } from "../model/report.js";
import type { SyncTarget } from "../model/target.js";
import type { Selection } from "../selection.js";
import type { RecordReader } from "./complete.js";
import type { ListClient, ListingCallbacks, StartedListing } from "./listing.js";
import type { NamedRecords } from "./named.js";
import type { ListingMoved } from "./unlisted.js";

// What a pull is told and what it answers: shared by its steps (gather, recover, plan, execute).

/**
 * The steps of a pull, in the order it reaches them: both lists are in and the tree is read
 * (`listed`); every chapter of the lists is converted to its file (`converted`); the plan is
 * made (`planned`); the files are in place (`written`); the snapshot is saved (`committed`).
 * A dry run ends at `planned`; a run that fails ends at the last step it reached.
 */
export type PullStep = "listed" | "converted" | "planned" | "written" | "committed";

/** The part of the API client pull uses: the lists, and single reads for summary lists. */
export interface Lister extends RecordReader, ListClient {}

/** What pull needs to know. */
export interface PullOptions extends SyncTarget, ListingCallbacks {
  /** The lists, when started before pull loaded (see pull/listing.ts); else pull starts them. */
  listing?: Promise<StartedListing> | undefined;
  /** Limit to these course folders (relative to the root). */
  paths?: readonly string[] | undefined;
  /**
   * Pull these records only, each read on its own instead of the lists (watch, told by the
   * site's events): every other record stays as the last sync has it. Default site only.
   */
  records?: NamedRecords | undefined;
  /** Leave the records of files outside this selection (--only/--ignore) as they are. */
  select?: Selection | undefined;
  dryRun?: boolean;
  /** Take the site's side of every conflict. */
  theirs?: boolean;
  /** false: write the site's version of a body conflict beside the file, never markers in it. */
  markers?: boolean;
  /** Most local files a pull may delete; default DESIGN's guard. */
  maxDelete?: number | undefined;
  /** Told what the scan of the tree skipped (a name that is not UTF-8), one message each. */
  onWarning?: ((message: string) => void) | undefined;
  /** Told what pull does beyond the plain listing (reading records one by one). */
  onNote?: ((line: string) => void) | undefined;
  /** Told once the site's lists are whole (and their pages rendered), before the plan is made. */
  onListed?: (() => void) | undefined;
  /** Told as the pull reaches each of its steps, in order (see PullStep). */
  onStep?: ((step: PullStep) => void) | undefined;
  /**
   * What a clean verdict of the tree rests on besides its files (the snapshot on disk and the
   * settings status reads), as status stamps it: with it, a pull of the whole site tells the
   * stat cache where the tree is clean after it, and the next pull or status reads only the
   * course folders that changed since. @default no such verdict: every pull reads the whole tree
   */
  stamp?: (() => string | undefined) | undefined;
  /** The clock the stat cache's racy-file rule reads. @default Date.now */
  now?: (() => number) | undefined;
}

/** What a pull did (or, with --dry-run, would do). */
export interface PullResult {
  changes: Change[];
  /** The problems of the tree's invalid files: left as they are, the records behind them held. */
  invalid: FileProblem[];
  /** Files created, rewritten, moved or removed in the tree. */
  filesWritten: number;
  snapshotWritten: boolean;
  snapshotMissing: boolean;
  dryRun: boolean;
  requests: number;
  pages: { courses: number; chapters: number };
  counts: { courses: number; chapters: number };
  /**
   * The course folders read, when the stat cache vouched for the rest (see pull/narrow.ts), and
   * how many the tree has; undefined when the whole tree was read.
   */
  foldersRead?: { read: number; of: number } | undefined;
  /**
   * Why files stopped being written while the listing arrived (see pull/stage.ts), when they
   * did: they were written after it, as the plan wrote the rest.
   */
  stagingStopped?: string | undefined;
  /**
   * The listing left out records the site still has (it moved while pull paged through it):
   * nothing was deleted from it, and the records it left out were kept as they are.
   */
  listingMoved?: ListingMoved | undefined;
}
