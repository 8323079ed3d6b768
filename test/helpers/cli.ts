import { realSleep } from "../../src/api/gate.js";
import type { GitRunner } from "../../src/ci/git.js";
import type { HeapStage } from "../../src/cli/heap.js";
import type { Prompts } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import type { StopSignal } from "../../src/errors.js";
import type { TreeFs } from "../../src/tree/tree-fs.js";

/** What one in-process run of the CLI printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** With `terminal`: stdout and stderr as the terminal got them, in the order written. */
  screen?: string;
}

/** Options for an in-process CLI run: a working folder, environment, and terminal fakes. */
export interface RunOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  tty?: boolean;
  /** stdout and stderr are one terminal this wide (isTTY), as when the user runs coursesync by hand. */
  terminal?: { columns: number };
  prompts?: Partial<Prompts>;
  interrupted?: Promise<StopSignal>;
  /** How often the API client retries a request itself (default 5). */
  apiRetries?: number;
  /** The file system writes to the tree go through (default: Node's). */
  fs?: TreeFs;
  /** How `coursesync ci` runs git (default: the git on PATH). */
  git?: GitRunner;
  /** Every wait of the run (retry backoff, 429 pauses); default a real timer. See `fakeTime`. */
  sleep?: (ms: number) => Promise<void>;
  /** The run's clock; default Date.now. See `fakeTime`. */
  now?: () => number;
  /** Told when a command bounds the heap (the entry point sets node's heap growth then). */
  boundHeap?: (stage?: HeapStage) => void;
}

const noPrompts: Prompts = {
  input: () => Promise.reject(new Error("unexpected prompt")),
  password: () => Promise.reject(new Error("unexpected prompt")),
  confirm: () => Promise.reject(new Error("unexpected prompt")),
};

/** Run the CLI in this process with captured output; never touches the real terminal or home. */
export async function runCli(args: string[], options: RunOptions): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  let screen = "";
  const isTTY = options.terminal !== undefined;
  const columns = options.terminal?.columns;
  /** A stream that keeps its own text and shares the screen with the other one. */
  const stream = (keep: (text: string) => void) => ({
    write: (text: string) => {
      screen += text;
      keep(text);
    },
    isTTY,
    columns,
  });
  const code = await main(args, {
    stdout: stream((text) => {
      stdout += text;
    }),
    stderr: stream((text) => {
      stderr += text;
    }),
    stdinIsTTY: options.tty ?? false,
    env: options.env ?? {},
    cwd: options.cwd,
    interrupted: options.interrupted ?? new Promise(() => {}),
    prompts: { ...noPrompts, ...options.prompts },
    sleep: options.sleep ?? realSleep,
    now: options.now ?? Date.now,
    ...(options.apiRetries === undefined ? {} : { apiRetries: options.apiRetries }),
    ...(options.fs ? { fs: options.fs } : {}),
    ...(options.git ? { git: options.git } : {}),
    ...(options.boundHeap ? { boundHeap: options.boundHeap } : {}),
  });
  return { code, stdout, stderr, ...(isTTY ? { screen } : {}) };
}
