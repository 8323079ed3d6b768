/** Where a command reads and writes: injected so tests run the CLI in-process. */
export interface CliIO {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdinIsTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Resolves when the user asks to stop (Ctrl-C); long-running commands await it. */
  interrupted: Promise<void>;
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
