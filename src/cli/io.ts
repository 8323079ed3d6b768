import type { GitRunner } from "../ci/git.js";
import type { StopSignal } from "../errors.js";
import type { TreeFs } from "../tree/tree-fs.js";
import type { SetTimer } from "../util/timer.js";
import type { HeapStage } from "./heap.js";
import type { ProgressEvent } from "./render/json-types.js";

/** Where a command reads and writes: injected so tests run the CLI in-process. */
export interface CliIO {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stdinIsTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Resolves with the signal when the user (Ctrl-C) or CI (SIGTERM) asks to stop. */
  interrupted: Promise<StopSignal>;
  /** Questions asked on a terminal; used only when stdinIsTTY is true. */
  prompts: Prompts;
  /**
   * Every wait of a run: retry backoff, a 429's Retry-After, a file an editor is still saving.
   * Tests pass one that records the wait and resolves at once.
   */
  sleep: (ms: number) => Promise<void>;
  /** The clock, in milliseconds since the epoch: Retry-After dates, request times, times shown. */
  now: () => number;
  /**
   * What schedules watch's timed work (the quiet time after saves, the retry after a failed
   * push); default Node's setTimeout. Tests pass one they fire themselves.
   */
  setTimer?: SetTimer;
  /** For tests: how often the API client retries a request itself (default 5). */
  apiRetries?: number;
  /** The file system writes to the tree go through (default: Node's); tests make it fail. */
  fs?: TreeFs;
  /** How `coursesync ci` runs git (default: the git on PATH); tests wrap it to stage a race. */
  git?: GitRunner;
  /**
   * Called by pull before it lists a site, and again once the listing is whole: the entry point
   * bounds how node's heap grows (see cli/heap.ts). A setting of the whole process, so tests
   * that run the CLI in theirs leave it out.
   */
  boundHeap?: (stage?: HeapStage) => void;
  /**
   * Told the tree paths of the records a push or pull left waiting on a conflict (held back,
   * or in conflict with the site), once per run: `coursesync ci` names them as its job ends.
   */
  onHeld?: (paths: readonly string[]) => void;
  /**
   * Opens a URL in the person's browser (`preview`); the entry point gives one, tests never do,
   * so a test run opens nothing.
   */
  openBrowser?: (url: string) => void;
  /**
   * Told how a run advances: the library's `onProgress`. The command line leaves it out and
   * draws its bars instead.
   */
  onProgress?: (event: ProgressEvent) => void;
}

/** The questions the CLI may ask a person at a terminal. */
export interface Prompts {
  input(message: string): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string): Promise<boolean>;
}

/** The global options every command sees (DESIGN section 2). */
export interface GlobalOptions {
  dir?: string;
  site?: string;
  url?: string;
  verbose?: boolean;
  quiet?: boolean;
  progress: boolean;
}

/** One run of the command line: its IO plus the exit code an action ends with. */
export interface CliRun extends CliIO {
  /** Set by actions that finish with something other than 0 (e.g. 3 on conflicts). */
  exitCode: number;
}
