/**
 * `coursesync/emulator`: the API emulator `coursesync emulator` serves, for other projects'
 * tests. `startEmulator({ port: 0 })` gives the URL to give `coursesync init --url` (or the
 * library's `url` option) and a `close()`.
 */
import { packagePath } from "../cli/version.js";
import { ExitCode } from "../errors.js";
import { CoursesyncError, coursesyncError } from "../lib/error.js";
import { type EmulatorOptions, startEmulator as startServer } from "./server.js";

/** Random failures, each a probability from 0 to 1 (default 0): what `--fail-rate` and the rest set. */
export interface EmulatorFaults {
  /** A 500, 502 or 503 with nothing applied. */
  fail?: number;
  /** The connection dropped without an answer, nothing applied. */
  reset?: number;
  /** A create, update or delete applied, its answer lost. */
  lostWrite?: number;
  /** Seeds the random faults, so that a test sees the same ones on every run. */
  randomSeed?: number;
}

/** How to start the emulator; every field is optional. */
export interface StartEmulatorOptions {
  /** The port on 127.0.0.1. @default 0 (any free port) */
  port?: number;
  /**
   * A tree to load the site from (`courses/<folder>/course.yaml` and chapters), or null for an
   * empty site. @default the sample site this package ships, as `coursesync emulator`
   */
  seed?: string | null;
  /** Milliseconds added before every answer. @default 0 */
  latency?: number;
  /** Most requests in any second; past it, 429 with Retry-After. @default unlimited */
  rate?: number;
  /** Random failures. @default none */
  faults?: EmulatorFaults;
  /** Records per list page. @default 25 */
  pageSize?: number;
  /** The account's e-mail. @default demo@example.com */
  email?: string;
  /** The account's password. @default coursesync */
  password?: string;
  /** Serve the /__admin/ control routes (reset, state, faults). @default false */
  admin?: boolean;
}

/** A running emulator. */
export interface Emulator {
  /** The API root, `http://127.0.0.1:<port>/api/v1`: what `coursesync init --url` takes. */
  url: string;
  port: number;
  /** The account to log in with (COURSESYNC_EMAIL, COURSESYNC_PASSWORD). */
  email: string;
  password: string;
  /** Stop serving; resolves once the port is closed. */
  close(): Promise<void>;
}

/** The server's names of the options that differ, for the errors that name them. */
const SERVER_NAMES: Record<string, string> = {
  latencyMs: "latency",
  failRate: "faults.fail",
  resetRate: "faults.reset",
  lostWriteRate: "faults.lostWrite",
};
const KNOWN = ["port", "seed", "latency", "rate", "faults", "pageSize", "email", "password", "admin"];

function badOption(message: string): CoursesyncError {
  return new CoursesyncError(`startEmulator: ${message}`, {
    exitCode: ExitCode.usage,
    hint: `Its options are: ${KNOWN.join(", ")} (faults: fail, reset, lostWrite, randomSeed).`,
  });
}

/** The server's options for these. */
function serverOptions(options: StartEmulatorOptions): EmulatorOptions {
  const unknown = Object.keys(options).find((name) => !KNOWN.includes(name));
  if (unknown !== undefined) throw badOption(`unknown option "${unknown}"`);
  const { faults = {} } = options;
  const seed = options.seed === undefined ? packagePath("sample-site") : options.seed;
  return {
    port: options.port ?? 0,
    seedDir: seed,
    latencyMs: options.latency,
    rate: options.rate,
    failRate: faults.fail,
    resetRate: faults.reset,
    lostWriteRate: faults.lostWrite,
    randomSeed: faults.randomSeed,
    pageSize: options.pageSize,
    email: options.email,
    password: options.password,
    admin: options.admin === true,
  };
}

/** Start the emulator `coursesync emulator` runs; throws a CoursesyncError on a bad option. */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  const given = serverOptions(options);
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(defined);
  } catch (error) {
    if (!(error instanceof RangeError)) throw coursesyncError(error, () => undefined);
    const message = error.message.replace(
      /^emulator option (\w+)/,
      (_, name: string) => `option "${SERVER_NAMES[name] ?? name}"`,
    );
    throw badOption(message);
  }
  return {
    url: server.baseUrl,
    port: server.port,
    email: options.email ?? "demo@example.com",
    password: options.password ?? "coursesync",
    close: () => server.close(),
  };
}
