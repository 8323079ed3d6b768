import { resolve } from "node:path";
import type { Command } from "commander";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../emulator/server.js";
import { UserError, usageError } from "../../errors.js";
import { FileProblem } from "../../tree/yaml-text.js";
import { watchParent } from "../../util/process.js";
import { COMMAND_LIST } from "../command-list.js";
import { type Example, examplesText } from "../help.js";
import type { CliIO } from "../io.js";
import { DEFAULT_EMAIL, DEFAULT_PASSWORD, emulatorBanner } from "../render/emulator.js";
import { packagePath } from "../version.js";

/** The flags of `coursesync emulator`, as commander hands them over (all text). */
export interface EmulatorFlags {
  port: string;
  seed?: string;
  empty?: boolean;
  pageSize?: string;
  latency?: string;
  rate?: string;
  failRate?: string;
  resetRate?: string;
  lostWriteRate?: string;
  admin?: boolean;
  email?: string;
  password?: string;
  tokenTtl?: string;
  responseShape?: string;
  pagingHeaders?: string;
  listOrder?: string;
  rateHeaders?: string;
  tokenUses?: string;
  randomSeed?: string;
  placeOrdinals?: boolean;
  trimTitles?: boolean;
  /** False with --no-events (commander's default for it is true). */
  events?: boolean;
  eventsKept?: string;
}

/** The package's sample-site folder. */
export function defaultSeedDir(): string {
  return packagePath("sample-site");
}

function number(flag: string, raw: string, expected: string, ok: (n: number) => boolean): number {
  const value = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(value) || !ok(value)) throw usageError(`${flag} must be ${expected}, not "${raw}"`);
  return value;
}

function choice<T extends string>(flag: string, raw: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  throw usageError(`${flag} must be one of ${choices.join(", ")}, not "${raw}"`);
}

const whole =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (n: number) =>
    Number.isInteger(n) && n >= min && n <= max;
const probability = (n: number) => n >= 0 && n <= 1;

/** Turn the command-line flags into emulator options; bad values are usage errors. */
export function emulatorOptions(flags: EmulatorFlags, cwd = "."): EmulatorOptions {
  if (flags.empty && flags.seed !== undefined) {
    throw usageError("--empty and --seed do not go together", "Give one: --seed <dir> or --empty.");
  }
  if (flags.events === false && flags.eventsKept !== undefined) {
    throw usageError(
      "--no-events and --events-kept do not go together",
      "Give one: --no-events (no events at all) or --events-kept <n> (only the newest n).",
    );
  }
  const options: EmulatorOptions = {
    port: number("--port", flags.port, "a whole number from 0 to 65535", whole(0, 65535)),
    seedDir: flags.empty ? null : flags.seed === undefined ? defaultSeedDir() : resolve(cwd, flags.seed),
    admin: flags.admin === true,
  };
  addPacingFlags(flags, options);
  addSiteFlags(flags, options);
  for (const [flag, value] of [
    ["--email", flags.email],
    ["--password", flags.password],
  ] as const) {
    if (value !== undefined && value.trim() === "") throw usageError(`${flag} must not be empty`);
  }
  if (flags.placeOrdinals || flags.trimTitles) {
    options.normalise = {
      ...(flags.placeOrdinals ? { ordinals: "place" as const } : {}),
      ...(flags.trimTitles ? { titles: "trim" as const } : {}),
    };
  }
  if (flags.events === false) options.events = false;
  if (flags.eventsKept !== undefined) {
    options.eventsKept = number("--events-kept", flags.eventsKept, "a whole number, 1 or more", whole(1));
  }
  if (flags.email !== undefined) options.email = flags.email;
  if (flags.password !== undefined) options.password = flags.password;
  return options;
}

/** Paging, latency, the rate limit and the random faults. */
function addPacingFlags(flags: EmulatorFlags, options: EmulatorOptions): void {
  if (flags.pageSize !== undefined) {
    options.pageSize = number("--page-size", flags.pageSize, "a whole number, 1 or more", whole(1));
  }
  if (flags.latency !== undefined) {
    options.latencyMs = number(
      "--latency",
      flags.latency,
      "milliseconds, 0 or more",
      (n) => n >= 0 && n < 2 ** 31,
    );
  }
  if (flags.rate !== undefined) {
    options.rate = number("--rate", flags.rate, "a whole number of requests per second, 1 or more", whole(1));
  }
  if (flags.failRate !== undefined) {
    options.failRate = number("--fail-rate", flags.failRate, "a probability from 0 to 1", probability);
  }
  if (flags.resetRate !== undefined) {
    options.resetRate = number("--reset-rate", flags.resetRate, "a probability from 0 to 1", probability);
  }
  if (flags.lostWriteRate !== undefined) {
    options.lostWriteRate = number(
      "--lost-write-rate",
      flags.lostWriteRate,
      "a probability from 0 to 1",
      probability,
    );
  }
}

/** Tokens, list order, headers, answer shapes and the faults' random seed. */
function addSiteFlags(flags: EmulatorFlags, options: EmulatorOptions): void {
  if (flags.tokenTtl !== undefined) {
    options.tokenTtlMs =
      number("--token-ttl", flags.tokenTtl, "a number of seconds, more than 0", (n) => n > 0 && n < 2 ** 31) *
      1000;
  }
  if (flags.tokenUses !== undefined) {
    options.tokenUses = number("--token-uses", flags.tokenUses, "a whole number, 1 or more", whole(1));
  }
  if (flags.listOrder !== undefined) {
    options.listOrder = choice("--list-order", flags.listOrder, ["id", "updated_at"] as const);
  }
  if (flags.rateHeaders !== undefined) {
    options.rateHeaders = choice("--rate-headers", flags.rateHeaders, ["none", "ietf", "x"] as const);
  }
  if (flags.randomSeed !== undefined) {
    options.randomSeed = number("--random-seed", flags.randomSeed, "a whole number", whole(-(2 ** 53) + 1));
  }
  if (flags.responseShape !== undefined) {
    options.responseShape = choice("--response-shape", flags.responseShape, [
      "bare",
      "wrapped",
      "empty",
    ] as const);
  }
  if (flags.pagingHeaders !== undefined) {
    options.pagingHeaders = choice("--paging-headers", flags.pagingHeaders, [
      "none",
      "link",
      "total",
    ] as const);
  }
}

async function start(options: EmulatorOptions): Promise<RunningEmulator> {
  try {
    return await startEmulator(options);
  } catch (error) {
    if (error instanceof FileProblem) {
      throw new UserError(`cannot seed the emulator: ${error.message}`, {
        hint: error.hint ?? "Fix the file, give another tree with --seed <dir>, or start empty with --empty.",
        cause: error,
      });
    }
    if ((error as { code?: unknown } | null)?.code === "EADDRINUSE") {
      throw new UserError(`port ${options.port} is already in use`, {
        hint: "Pick another with --port, or --port 0 for any free port.",
        cause: error,
      });
    }
    throw error;
  }
}

const EXAMPLES: Example[] = [
  {
    does: "serve the sample site on a fixed port; then: coursesync init demo --url http://127.0.0.1:4000/api/v1",
    line: "coursesync emulator --port 4000",
  },
  {
    does: "an empty site, slow and failing now and then",
    line: "coursesync emulator --empty --latency 50 --fail-rate 0.1",
  },
  { does: "seeded from a tree of your own", line: "coursesync emulator --seed my-school" },
];

/** `coursesync emulator [flags]`: serve the API from memory until interrupted. */
export function registerEmulator(program: Command, io: CliIO): void {
  program
    .command("emulator")
    .description(COMMAND_LIST.emulator.description)
    .option("--port <n>", "port to listen on; 0 = any free port", "0")
    .option(
      "--seed <dir>",
      "tree to seed from (courses/<folder>/course.yaml + HTML chapters) (default: sample-site)",
    )
    .option("--empty", "start with no courses")
    .option("--page-size <n>", "records per list page (default: 25)")
    .option("--latency <ms>", "delay added before every API response (default: 0)")
    .option("--rate <n>", "most API requests per second; more get 429 + Retry-After (default: unlimited)")
    .option(
      "--rate-headers <s>",
      "with --rate, rate-limit headers on every answer: none, ietf (RateLimit-*) or x (X-RateLimit-*) (default: none)",
    )
    .option("--fail-rate <p>", "probability 0..1 of a 500/502/503 (default: 0)")
    .option("--reset-rate <p>", "probability 0..1 of a dropped connection (default: 0)")
    .option(
      "--lost-write-rate <p>",
      "probability 0..1 that a write is applied but its response lost (default: 0)",
    )
    .option(
      "--admin",
      "serve the /__admin/ control routes (reset, state, requests, edit, renumber, faults); GET /__admin/ lists them",
    )
    .option("--email <e>", `the account e-mail (default: ${DEFAULT_EMAIL})`)
    .option("--password <p>", `the account password (default: ${DEFAULT_PASSWORD})`)
    .option("--token-ttl <seconds>", "tokens expire this long after login (default: never)")
    .option("--token-uses <n>", "tokens expire after this many API requests (default: never)")
    .option("--response-shape <s>", "show/create/update bodies: bare, wrapped or empty (default: bare)")
    .option("--paging-headers <s>", "list paging headers: none, link or total (default: none)")
    .option(
      "--list-order <s>",
      "lists ordered by id, or by updated_at (an edit moves a record last) (default: id)",
    )
    .option("--random-seed <n>", "seed for the random faults, for reproducible runs")
    .option(
      "--place-ordinals",
      "put a new chapter at the end of its course, whatever ordinal it was sent (acts_as_list)",
    )
    .option("--trim-titles", "store titles trimmed, runs of white space collapsed to one space")
    .option("--no-events", "record no events; GET /events answers 404, as on a site without them")
    .option(
      "--events-kept <n>",
      "keep only the newest n events; older ones drop as new ones come (default: all)",
    )
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (flags: EmulatorFlags, command: Command) => {
      const options = emulatorOptions(flags, io.cwd);
      const emulator = await start(options);
      // A test or script that started the emulator and died (kill -9) leaves no one to stop
      // it: it stops itself once its parent is gone, as on Ctrl-C or SIGTERM.
      let stopWatching = () => {};
      const orphaned = new Promise<void>((gone) => {
        stopWatching = watchParent(gone, io.setTimer ? { setTimer: io.setTimer } : {});
      });
      try {
        io.stdout.write(`${emulator.baseUrl}\n`);
        const quiet = (command.optsWithGlobals() as { quiet?: boolean }).quiet === true;
        if (!quiet) io.stderr.write(emulatorBanner(emulator, options));
        await Promise.race([io.interrupted, orphaned]);
      } finally {
        stopWatching();
        await emulator.close();
      }
    });
}
