import type { SetTimer } from "../../util/timer.js";
import type { Change } from "../model/report.js";
import type { SyncTarget } from "../model/target.js";
import type { Lister } from "../pull/index.js";
import type { PushClient } from "../push/index.js";
import type { PushPlan } from "../push/plan.js";
import type { EventsClient, RemoteOptions } from "./remote.js";

// What watch takes and what it tells: its options, its client, its events.

/** What watch needs of the API client: pushes, the lists of a pull, the events. */
export type WatchClient = PushClient & Lister & EventsClient;

/** Something watch wants the person (or a --json reader) to know. */
export type WatchEvent =
  | { type: "ready"; root: string }
  | { type: "change"; change: Change; ms: number }
  /** A change of the site written into the tree; `merged`: with edits of the author's kept. */
  | { type: "pulled"; change: Change; merged: boolean }
  /** The site changed a file right after each of the last `times` pushes of it: no longer sent. */
  | { type: "bouncing"; path: string; times: number }
  | { type: "invalid"; path: string; line: number | undefined; message: string }
  | { type: "held-delete"; path: string; kind: string; id: number | undefined }
  | { type: "paused"; deleted: number }
  | { type: "resumed" }
  | { type: "retrying"; message: string; inMs: number }
  /** The site refused the credentials and no stored token or login replaced them: said once. */
  | { type: "signed-out"; message: string; hint: string | undefined }
  /** The site took a token again (a stored one, or a login) after "signed-out". */
  | { type: "signed-in" }
  | { type: "stopped"; pending: Pending };

/** What a stopped watch leaves for a plain push or a pull. */
export interface Pending {
  /** Files whose edits are not sent (new, changed or invalid), sorted: a plain push sends them. */
  edits: string[];
  /** Those of the edits that are invalid: skipped until they are fixed. */
  invalid: string[];
  /** Whether the site was refusing the credentials at the stop: `coursesync login` comes first. */
  signedOut: boolean;
  /** Records whose files are gone here and that the site still has (not sent without --delete). */
  deletes: number;
  /** Files left because the site changed them too: a pull brings the site's version in. */
  conflicts: string[];
}

/** What watch needs. */
export interface WatchOptions extends SyncTarget, RemoteOptions {
  /** Bring the site's changes into the tree as they happen (false: watch --no-pull). @default true */
  pull?: boolean;
  /** How many updates or deletes are under way at once (see push). */
  writeConcurrency?: number;
  /**
   * What a clean verdict of the tree rests on besides its files (see PushOptions.stamp): each
   * push keeps the stat cache's clean mark, so that status and pull after watch read only the
   * course folders it touched.
   */
  stamp?: (() => string | undefined) | undefined;
  /** Send deletes (watch --delete); otherwise they wait for a plain push. */
  deletes: boolean;
  /** Asked about the pending plan when watch starts (as push asks). */
  confirm: (plan: PushPlan) => Promise<boolean>;
  report: (event: WatchEvent) => void;
  /** Resolves when the person asks to stop (Ctrl-C). */
  stop: Promise<unknown>;
  /** Quiet time after the last save before pushing; default 300 ms. */
  debounceMs?: number;
  /** Files deleted in one burst that pause watching (a branch checkout); default 5. */
  burst?: number;
  /** How a push waits (for a file an editor is saving); default a setTimeout promise. */
  sleep?: (ms: number) => Promise<void>;
  /** The clock, in milliseconds: how long each push took; default Date.now. */
  now?: () => number;
  /** Schedules the coalescer's flushes and the retry after a failed push; default setTimeout. */
  setTimer?: SetTimer;
}
