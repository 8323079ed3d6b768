/** Exit codes of the command line, as DESIGN section 2 fixes them. */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  stopped: 3,
  /** Ctrl-C (SIGINT): 128 + 2, as shells report it. */
  interrupted: 130,
  /** SIGTERM (a CI cancel): 128 + 15. */
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * An error the user can fix: it says what happened and what to do next, and carries the exit
 * code the command line ends with. Anything that is not a UserError is a bug.
 */
export class UserError extends Error {
  override name = "UserError";
  readonly hint: string | undefined;
  readonly exitCode: ExitCode;

  constructor(message: string, options: { hint?: string; exitCode?: ExitCode; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? ExitCode.failed;
  }
}

/** A UserError that ends the command with exit 2: bad usage or configuration. */
export function usageError(message: string, hint?: string): UserError {
  return new UserError(message, { hint, exitCode: ExitCode.usage });
}

/** The signals that ask a run to stop. */
export type StopSignal = "SIGINT" | "SIGTERM";

/**
 * The run was asked to stop (Ctrl-C, SIGTERM, Ctrl-C at a prompt): it says what was left undone
 * and exits 130 (143 for SIGTERM). Not a failure of the command, and never printed as a bug.
 */
export class InterruptedError extends UserError {
  override name = "InterruptedError";
  constructor(
    readonly signal: StopSignal,
    message = "interrupted",
    hint?: string,
  ) {
    super(message, {
      hint,
      exitCode: signal === "SIGTERM" ? ExitCode.terminated : ExitCode.interrupted,
    });
  }
}
