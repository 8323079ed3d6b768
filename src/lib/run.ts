import { CommanderError } from "commander";
import type { CliRun, Prompts } from "../cli/io.js";
import { buildProgram, pathError } from "../cli/main.js";
import { ExitCode, type StopSignal } from "../errors.js";
import { CoursesyncError, coursesyncError } from "./error.js";
import { type CommandName, commandLine, type SiteOptions } from "./options.js";

/** A library run never asks: without a terminal no command prompts, and these say so if one tries. */
const NO_PROMPTS: Prompts = {
  input: () =>
    Promise.reject(new CoursesyncError("the library asks no questions", { exitCode: ExitCode.usage })),
  password: () =>
    Promise.reject(new CoursesyncError("the library asks no questions", { exitCode: ExitCode.usage })),
  confirm: () =>
    Promise.reject(new CoursesyncError("the library asks no questions", { exitCode: ExitCode.usage })),
};

/** The environment of a run: the given (or the process's) with the credentials of the options. */
function runEnv(options: SiteOptions): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...(options.env ?? process.env) };
  if (options.email !== undefined || options.password !== undefined) {
    // A login given outright is the one meant, not a token from the environment.
    delete env.COURSESYNC_TOKEN;
    env.COURSESYNC_EMAIL = options.email;
    env.COURSESYNC_PASSWORD = options.password;
  }
  if (options.token !== undefined) env.COURSESYNC_TOKEN = options.token;
  return env;
}

/** Resolves as Ctrl-C would once `signal` aborts; never without one. */
function stopped(signal: AbortSignal | undefined): Promise<StopSignal> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve("SIGINT");
    else signal?.addEventListener("abort", () => resolve("SIGINT"), { once: true });
  });
}

/** The IO of a library run: stdout kept for the result, stderr told as messages, no terminal. */
function silentRun(options: SiteOptions, stdout: string[]): CliRun {
  const tell = options.onProgress;
  const stderr = (text: string) => {
    for (const line of text.split("\n")) if (line.trim() !== "") tell?.({ type: "message", text: line });
    return true;
  };
  return {
    stdout: { write: (text: string) => stdout.push(text) > 0, isTTY: false },
    stderr: { write: stderr, isTTY: false },
    stdinIsTTY: false,
    env: runEnv(options),
    cwd: process.cwd(),
    interrupted: stopped(options.signal),
    prompts: NO_PROMPTS,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: Date.now,
    exitCode: ExitCode.ok,
    onProgress: tell,
  };
}

/**
 * Run `command` as the command line runs it with --json, printing nothing: returns the
 * document --json prints; throws a CoursesyncError when the command fails outright.
 */
export async function runCommand<T>(command: CommandName, options: SiteOptions): Promise<T> {
  const argv = commandLine(command, options);
  const stdout: string[] = [];
  const run = silentRun(options, stdout);
  try {
    const program = await buildProgram(run, command);
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      throw new CoursesyncError(`${command}: ${error.message.replace(/^error: /, "")}`, {
        exitCode: ExitCode.usage,
        cause: error,
      });
    }
    throw coursesyncError(error, pathError);
  }
  const text = stdout.join("");
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw coursesyncError(
      new Error(`${command} printed no JSON document: ${text.slice(0, 200)}`, { cause: error }),
      () => undefined,
    );
  }
}
