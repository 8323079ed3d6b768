import type { InterruptedError, UserError } from "../../errors.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import type { Change } from "../model/report.js";
import type { SyncTarget } from "../model/target.js";
import type { Selection } from "../selection.js";
import type { FileHistory } from "../state/file-history.js";
import type { RecordClient } from "../state/id-map.js";
import type { PushPlan } from "./plan.js";

// What a push is told and what it answers (the run itself is sync/push.ts).

/** The part of the API client push uses. */
export type PushClient = RecordClient;

/** What push needs to know. */
export interface PushOptions extends SyncTarget {
  paths?: readonly string[] | undefined;
  /** Send nothing for the records of files outside this selection (--only/--ignore). */
  select?: Selection | undefined;
  dryRun?: boolean;
  /** The local side wins conflicts. */
  force?: boolean;
  maxDelete?: number | undefined;
  /** Asked once the plan is known and checked; false stops the push before any write. */
  confirm: (plan: PushPlan) => Promise<boolean>;
  /** Called as each operation ends. */
  onChange?: (change: Change) => void;
  /** Leave deletes out of the plan (watch without --delete); they are returned as held. */
  deletes?: boolean;
  /** Report invalid files through onInvalid and go on without them (watch). */
  skipInvalid?: boolean;
  onInvalid?: (problem: FileProblem) => void;
  /** Told what the scan of the tree skipped (a name that is not UTF-8), one message each. */
  onWarning?: ((message: string) => void) | undefined;
  /** How many updates or deletes, or courses' chapter creates, are under way at once (within a course creates go one at a time, in order). @default 4 */
  writeConcurrency?: number;
  /** How push waits (for a file an editor is saving). @default a setTimeout promise */
  sleep?: (ms: number) => Promise<void>;
  /**
   * What a clean verdict of the tree rests on besides its files, as status stamps it (see
   * PullOptions.stamp): with it, a push of the whole tree tells the stat cache where the tree
   * is as its new snapshot says, so the next status or pull reads only the rest; a push of
   * some paths keeps the mark the cache had, adding the folders it touched.
   */
  stamp?: (() => string | undefined) | undefined;
  /**
   * Make the site hold the tree (`coursesync restore`): plan against the site as it is now, so
   * that what it lost is created again, what differs is sent from the files, and what only it
   * has is deleted only with `deletes` (else left alone). @default false
   */
  restore?: boolean;
  /**
   * The committed versions of a tree file (git's), so that a new file an earlier run created
   * from an older version is found on the site and adopted, not created again. @default none
   */
  history?: FileHistory | undefined;
}

/** What a push did. */
export interface PushResult {
  plan: PushPlan;
  /** A restore: what the site lost of the last sync, and records only it has. */
  restored?: { lost: number; extra: number } | undefined;
  changes: Change[];
  /** Whether writes were sent (false for a dry run, a refusal, or nothing but conflicts). */
  applied: boolean;
  confirmed: boolean;
  dryRun: boolean;
  /** The delete guard's limit for this push. */
  deleteLimit?: number;
  /** Records the site had changed since the last sync: not written. */
  conflicts: Change[];
  /**
   * Every write held back, not sent (DESIGN 4: one conflict holds one record): the conflicts,
   * and the writes that depend on one (skipped, `heldBy` naming it); each says what resolves it.
   */
  held: Change[];
  /** Updates whose answer showed another writer's change made between the re-read and the write. */
  raced: Change[];
  failed: boolean;
  /**
   * The first failure that may pass on its own (network, a 5xx) or with a new token (a 401):
   * worth trying again later.
   */
  transient?: UserError;
  /** A dry run that could not check its plan against the site: why. */
  unchecked?: string;
  /** The run was asked to stop (Ctrl-C, SIGTERM) while it wrote: what was not sent waits. */
  interrupted?: InterruptedError;
}
