import { Command, CommanderError, Help, Option } from "commander";
import { redactUrl } from "../api/login-url.js";
import { ExitCode, UserError } from "../errors.js";
import { fileSystemError } from "../tree/tree-fs.js";
import { COMMAND_LIST } from "./command-list.js";
import { EXAMPLE_URL, type Example, examplesText } from "./help.js";
import type { CliIO, CliRun } from "./io.js";
import { VERSION } from "./version.js";

/** The three jobs and the commands of each, for `coursesync --help`. */
const JOBS = `
The three jobs, and their commands (each command's --help shows examples):
  content as code in git:  init, login, pull, check, ci github (or gitlab), push
  backups and restores:    pull --events, ci backup, site add, push --site <name>
  editing in an editor:    watch (= push --watch), preview, status, diff`;

const EXAMPLES: Example[] = [
  { does: "start a tree for the site's content", line: `coursesync init my-school --url ${EXAMPLE_URL}` },
  { does: "after `coursesync login`: write every course and chapter into it", line: "coursesync pull" },
  {
    does: "check pull requests, publish merges and back up daily from GitHub Actions",
    line: "coursesync ci github",
  },
  { does: "push each chapter as you save it", line: "coursesync watch" },
];

type Register = (program: Command, io: CliRun) => void;

/**
 * Each command's module, loaded only when it runs (or for help): `status` need not load the
 * HTTP client, nor `pull` the emulator. In the order `--help` lists them.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  init: async () => (await import("./commands/init.js")).registerInit,
  login: async () => (await import("./commands/login.js")).registerLogin,
  logout: async () => (await import("./commands/login.js")).registerLogout,
  site: async () => (await import("./commands/site.js")).registerSite,
  pull: async () => (await import("./commands/pull.js")).registerPull,
  status: async () => (await import("./commands/status.js")).registerStatus,
  diff: async () => (await import("./commands/diff.js")).registerDiff,
  push: async () => (await import("./commands/push.js")).registerPush,
  watch: async () => (await import("./commands/watch.js")).registerWatch,
  preview: async () => (await import("./commands/preview.js")).registerPreview,
  restore: async () => (await import("./commands/push.js")).registerRestore,
  check: async () => (await import("./commands/check.js")).registerCheck,
  doctor: async () => (await import("./commands/doctor.js")).registerDoctor,
  emulator: async () => (await import("./commands/emulator.js")).registerEmulator,
  ci: async () => {
    const { registerCi } = await import("./commands/ci.js");
    return (program, io) => registerCi(program, io, main);
  },
  completion: async () => (await import("./commands/completion.js")).registerCompletion,
};

/** Global options that take a value, which the command name never is. */
const VALUE_OPTIONS = new Set(["-C", "--dir", "--site", "--url"]);

/** The command an argument list runs, when it names one of ours; else undefined (help, a typo). */
function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUE_OPTIONS.has(arg)) i++;
    else if (arg === "help") continue;
    else if (!arg.startsWith("-")) return Object.hasOwn(COMMANDS, arg) ? arg : undefined;
  }
  return undefined;
}

/**
 * The commands as the top-level help lists them, from COMMAND_LIST, none of their modules
 * loaded: for a command line that names none (`--help`, `--version`, a typo).
 */
function listCommands(program: Command): void {
  const terms = new Map<Command, string>();
  for (const [name, summary] of Object.entries(COMMAND_LIST)) {
    terms.set(program.command(name).description(summary.description), summary.term);
  }
  program.configureHelp({
    showGlobalOptions: true,
    subcommandTerm(this: Help, command: Command) {
      return terms.get(command) ?? Help.prototype.subcommandTerm.call(this, command);
    },
  });
}

/**
 * Build the commander program: global options plus every command, or only the one named; with
 * `listed`, the commands as COMMAND_LIST lists them instead (help and version, loading none).
 */
export async function buildProgram(io: CliRun, only?: string, listed = false): Promise<Command> {
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
  if (listed) listCommands(program);
  else {
    // The completion script is made from the whole command line.
    const names = only === undefined || only === "completion" ? Object.keys(COMMANDS) : [only];
    const registers = await Promise.all(names.map((name) => COMMANDS[name]!()));
    for (const register of registers) register(program, io);
  }
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
  const only = commandOf(argv);
  const program = await buildProgram(run, only, only === undefined);
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
export function pathError(error: unknown): UserError | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.path !== "string") return undefined;
  return fileSystemError(error, `${e.syscall ?? "use"} ${e.path}`);
}
