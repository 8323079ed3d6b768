import { redactUrl } from "../api/login-url.js";
import { ExitCode, UserError } from "../errors.js";

/**
 * The one error the library throws: what happened, what to do next (`hint`), and the exit code
 * the command line would end with (2: bad options or configuration; 1: a failure; 130: stopped).
 */
export class CoursesyncError extends Error {
  override name = "CoursesyncError";
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: { exitCode: number; hint?: string | undefined; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode;
    this.hint = options.hint;
  }
}

/** The CoursesyncError for what a run threw: a UserError's words and code, or a bug said as one. */
export function coursesyncError(
  error: unknown,
  userError: (error: unknown) => UserError | undefined,
): CoursesyncError {
  if (error instanceof CoursesyncError) return error;
  const user = error instanceof UserError ? error : userError(error);
  if (user) {
    return new CoursesyncError(redactUrl(user.message), {
      exitCode: user.exitCode,
      hint: user.hint === undefined ? undefined : redactUrl(user.hint),
      cause: error,
    });
  }
  const text = error instanceof Error ? error.message : String(error);
  return new CoursesyncError(`internal error: ${redactUrl(text)}`, {
    exitCode: ExitCode.failed,
    hint: "This is a bug in coursesync; please report it (the error's cause holds its stack).",
    cause: error,
  });
}
