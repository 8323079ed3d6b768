/**
 * The library's options, and how each becomes the flag of its command: a function runs what
 * its command runs, so an option means what its flag means (`coursesync <command> --help`).
 */
import type { ProgressEvent } from "../cli/render/json-types.js";
import { ExitCode } from "../errors.js";
import { CoursesyncError } from "./error.js";

/** What every function takes: where the tree is, which site, and how to log in. */
export interface TreeOptions {
  /** The tree. @default the nearest folder above the current one holding coursesync.yaml */
  dir?: string;
  /** The site of coursesync.yaml to work with. @default its `site` */
  site?: string;
  /** The site's API root, ending in /api/v1 (overrides coursesync.yaml). */
  url?: string;
  /**
   * The environment credentials and the config folder are read from, as the command line
   * reads them (COURSESYNC_TOKEN, COURSESYNC_EMAIL, COURSESYNC_PASSWORD, COURSESYNC_CONFIG_DIR).
   * @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Told how the run advances: pages listed, writes sent, and the notes and warnings of the run. */
  onProgress?: (event: ProgressEvent) => void;
  /** Stops the run as Ctrl-C stops the command: what is in flight ends, nothing more starts. */
  signal?: AbortSignal;
}

/**
 * What the networked functions take besides: credentials. Without them, the environment's
 * (COURSESYNC_TOKEN, or COURSESYNC_EMAIL with COURSESYNC_PASSWORD) or the token `coursesync
 * login` stored; there is never a prompt.
 */
export interface SiteOptions extends TreeOptions {
  /** An API token (as COURSESYNC_TOKEN). */
  token?: string;
  /** Log in with this e-mail and `password` (as COURSESYNC_EMAIL and COURSESYNC_PASSWORD). */
  email?: string;
  password?: string;
}

/** Limit a run to some files: globs relative to the tree root. */
export interface SelectOptions {
  /** Limit to these files or folders (relative to the current folder, as on the command line). */
  paths?: string[];
  /** Only files matching these globs. */
  only?: string[];
  /** Leave out files matching these globs. */
  ignore?: string[];
}

/** `coursesync pull`. */
export interface PullOptions extends SiteOptions, SelectOptions {
  /** Say what would change; write nothing anywhere. @default false */
  dryRun?: boolean;
  /** Take the site's side of every conflict. @default false */
  theirs?: boolean;
  /** false: never write conflict markers into a file (the site's version goes beside it). @default true */
  markers?: boolean;
  /** Also archive the site's events. @default false */
  events?: boolean;
  /** Most local files the pull may delete. @default 10, or 25% of the site if lower */
  maxDelete?: number;
}

/** `coursesync push`. */
export interface PushOptions extends SiteOptions, SelectOptions {
  /** Plan only; send and write nothing. @default false */
  dryRun?: boolean;
  /** Apply the plan; without it the plan is returned unapplied (`applied: false`). @default false */
  yes?: boolean;
  /** The local side wins conflicts with the site. @default false */
  force?: boolean;
  /** Most records the push may delete. @default 10, or 25% of the site if lower */
  maxDelete?: number;
}

/** `coursesync restore`. */
export interface RestoreOptions extends SiteOptions {
  /** Limit to these files or folders. */
  paths?: string[];
  /** Plan only; send and write nothing. @default false */
  dryRun?: boolean;
  /** Apply the plan; without it the plan is returned unapplied. @default false */
  yes?: boolean;
  /** Also delete on the site what only it has (the delete guard applies). @default false */
  delete?: boolean;
  /** With `delete`: most records it may delete. @default 10, or 25% of the site if lower */
  maxDelete?: number;
}

/** `coursesync status` (offline). */
export interface StatusOptions extends TreeOptions {
  /** Limit to these files or folders. */
  paths?: string[];
}

/** `coursesync check` (offline). */
export interface CheckOptions extends TreeOptions {
  /** Report only on these files or folders (ids are compared across the tree). */
  paths?: string[];
}

/** How an option becomes flags; `undefined` leaves the flag out. */
type Kind = "bool" | "string" | "strings" | "count";

const TREE: Record<string, Kind | "own"> = {
  dir: "string",
  site: "string",
  url: "string",
  env: "own",
  onProgress: "own",
  signal: "own",
};
const SITE = { ...TREE, token: "string", email: "string", password: "string" } as const;

/** The options of each function, and how each is checked. */
export const OPTIONS = {
  pull: {
    ...SITE,
    paths: "strings",
    only: "strings",
    ignore: "strings",
    dryRun: "bool",
    theirs: "bool",
    markers: "bool",
    events: "bool",
    maxDelete: "count",
  },
  push: {
    ...SITE,
    paths: "strings",
    only: "strings",
    ignore: "strings",
    dryRun: "bool",
    yes: "bool",
    force: "bool",
    maxDelete: "count",
  },
  restore: { ...SITE, paths: "strings", dryRun: "bool", yes: "bool", delete: "bool", maxDelete: "count" },
  status: { ...TREE, paths: "strings" },
  check: { ...TREE, paths: "strings" },
} as const satisfies Record<string, Record<string, Kind | "own">>;

/** The library's functions: the commands they run. */
export type CommandName = keyof typeof OPTIONS;

/** What each kind of value must be, for the error that names it. */
const EXPECTED: Record<Kind, string> = {
  bool: "true or false",
  string: "a string",
  strings: "an array of strings",
  count: "a whole number of 0 or more",
};

function fits(kind: Kind, value: unknown): boolean {
  if (kind === "bool") return typeof value === "boolean";
  if (kind === "string") return typeof value === "string" && value !== "";
  if (kind === "strings") return Array.isArray(value) && value.every((v) => typeof v === "string");
  return Number.isInteger(value) && (value as number) >= 0;
}

/** Throw a usage error naming the option, what it must be, and what came. */
function badOption(command: CommandName, message: string): never {
  throw new CoursesyncError(`${command}: ${message}`, {
    exitCode: ExitCode.usage,
    hint: `The options of ${command}() are: ${Object.keys(OPTIONS[command]).join(", ")}.`,
  });
}

/** The flag of an option: `dryRun` is `--dry-run`. */
const flagOf = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * The command line a function's options stand for (credentials and the rest go through the
 * run's environment, not flags). Throws a CoursesyncError (exit 2) on an unknown option or a
 * value of the wrong type.
 */
export function commandLine(command: CommandName, options: object): string[] {
  const kinds: Record<string, Kind | "own"> = OPTIONS[command];
  const globals: string[] = [];
  const args: string[] = [command];
  const paths: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    const kind = kinds[name];
    if (kind === undefined) badOption(command, `unknown option "${name}"`);
    if (value === undefined || kind === "own") continue;
    if (!fits(kind, value)) {
      badOption(
        command,
        `option "${name}" must be ${EXPECTED[kind]}, not ${JSON.stringify(value) ?? typeof value}`,
      );
    }
    if (name === "dir" || name === "site" || name === "url") globals.push(flagOf(name), String(value));
    else if (name === "token" || name === "email" || name === "password") continue;
    else if (name === "paths") paths.push(...(value as string[]));
    else if (name === "markers") args.push(...(value ? [] : ["--no-markers"]));
    else if (kind === "bool") args.push(...(value ? [flagOf(name)] : []));
    else if (kind === "strings") for (const v of value as string[]) args.push(flagOf(name), v);
    else args.push(flagOf(name), String(value));
  }
  // After `--`, a path that starts with a dash is still a path.
  return [...globals, ...args, "--json", "--", ...paths];
}
