import { Command, CommanderError, Option } from "commander";
import { redactUrl } from "../api/login-url.js";
import { ExitCode, UserError } from "../errors.js";
import { fileSystemError } from "../tree/tree-fs.js";
import { registerCheck } from "./commands/check.js";
import { registerCi } from "./commands/ci.js";
import { registerCompletion } from "./commands/completion.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerSite } from "./commands/site.js";
import { registerDiff } from "./diff.js";
import { registerEmulator } from "./emulator.js";
import { EXAMPLE_URL, type Example, examplesText } from "./help.js";
import { registerInit } from "./init.js";
import type { CliIO, CliRun } from "./io.js";
import { registerLogin, registerLogout } from "./login.js";
import { registerPull } from "./pull.js";
import { registerPush } from "./push.js";
import { registerStatus } from "./status.js";
import { VERSION } from "./version.js";
import { registerWatch } from "./watch.js";

/** The three jobs and the commands of each, for `coursesync --help`. */
const JOBS = `
The three jobs, and their commands (each command's --help shows examples):
  content as code in git:  init, login, pull, check, ci github (or gitlab), push
  backups and restores:    pull --events, ci backup, site add, push --site <name>
  editing in an editor:    watch (= push --watch), status, diff`;

const EXAMPLES: Example[] = [
  { does: "start a tree for the site's content", line: `coursesync init my-school --url ${EXAMPLE_URL}` },
  { does: "after `coursesync login`: write every course and chapter into it", line: "coursesync pull" },
  {
    does: "check pull requests, publish merges and back up daily from GitHub Actions",
    line: "coursesync ci github",
  },
  { does: "push each chapter as you save it", line: "coursesync watch" },
];

/** Build the commander program: global options plus every command. */
export function buildProgram(io: CliRun): Command {
  const program = new Command("coursesync")
    .description("Mirror a course-hosting site's courses and chapters into files, and push local edits back.")
    .version(VERSION, "-V, --version")
    .option(
      "-C, --dir <path>",
      "the tree to work on (default: the nearest folder above holding coursesync.yaml)",
    )
    .option("--site <name>", "the site in coursesync.yaml to talk to (default: its `site`)")
    .option("--url <api-base-url>", "the site's API root ending in /api/v1 (overrides coursesync.yaml)")
    .option("-v, --verbose", "log one line per HTTP request (method, path, status, ms; secrets redacted)")
    .option("-q, --quiet", "print only errors and results")
    .addOption(new Option("--no-progress", "no progress bars"))
    .configureHelp({ showGlobalOptions: true })
    .addHelpText("after", `${JOBS}\n${examplesText(EXAMPLES)}`)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  registerInit(program, io);
  registerLogin(program, io);
  registerLogout(program, io);
  registerSite(program, io);
  registerPull(program, io);
  registerStatus(program, io);
  registerDiff(program, io);
  registerPush(program, io);
  registerWatch(program, io);
  registerCheck(program, io);
  registerDoctor(program, io);
  registerEmulator(program, io);
  registerCi(program, io, main);
  registerCompletion(program, io);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Print an error the way every command does: what happened, then what to do. */
export function reportError(error: unknown, io: CliIO, json = false): number {
  const user = error instanceof UserError ? error : pathError(error);
  if (user) {
    io.stderr.write(`coursesync: ${redactUrl(user.message)}\n`);
    if (user.hint) io.stderr.write(`${redactUrl(user.hint)}\n`);
    if (json) {
      const errors = [
        { message: redactUrl(user.message), ...(user.hint ? { hint: redactUrl(user.hint) } : {}) },
      ];
      io.stdout.write(`${JSON.stringify({ ok: false, exit_code: user.exitCode, errors }, null, 2)}\n`);
    }
    return user.exitCode;
  }
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ ok: false, exit_code: ExitCode.failed, errors: [{ message: "internal error" }] }, null, 2)}\n`,
    );
  }
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(
    `coursesync: internal error: ${redactUrl(text)}\nThis is a bug in coursesync; please report it.\n`,
  );
  return ExitCode.failed;
}

/** Run the command line; returns the exit code. The only caller of process.exit is bin.ts. */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const run: CliRun = { ...io, exitCode: ExitCode.ok };
  const program = buildProgram(run);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return run.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return ExitCode.ok;
      if (error.code === "commander.help") return ExitCode.ok;
      return ExitCode.usage;
    }
    return reportError(error, io, argv.includes("--json"));
  }
}

/** A file-system failure that escaped with its path (a read, a lock): named with that path. */
function pathError(error: unknown): UserError | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.path !== "string") return undefined;
  return fileSystemError(error, `${e.syscall ?? "use"} ${e.path}`);
}
