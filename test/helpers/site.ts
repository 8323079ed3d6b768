import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import type { EmulatorOptions, RequestLogEntry, RunningEmulator } from "../../src/emulator/server.js";
import type { Outcome } from "../../src/emulator/state.js";
import { type CliResult, runCli } from "./cli.js";
import { manualClock, type TestEmulator, type useEmulators } from "./emulator.js";
import { readTree, testdir } from "./testdir.js";

/** The start function `useEmulators()` returns. */
export type StartEmulator = ReturnType<typeof useEmulators>;

/** The environment a CLI run in a test reads: its user config folder and the account to log in with. */
export type CliEnv = {
  COURSESYNC_CONFIG_DIR: string;
  COURSESYNC_EMAIL: string;
  COURSESYNC_PASSWORD: string;
};

/** Fields of a course or chapter as a create call or an edit sends them. */
export type Fields = Record<string, unknown>;

/** The emulator's default account, as the CLI reads it from the environment. */
export const LOGIN = { COURSESYNC_EMAIL: "demo@example.com", COURSESYNC_PASSWORD: "coursesync" } as const;

/** The CLI environment for a test folder: user config in `<dir>/config`, and the given login. */
export function cliEnv(
  dir: string,
  login: Pick<CliEnv, "COURSESYNC_EMAIL" | "COURSESYNC_PASSWORD"> = LOGIN,
): CliEnv {
  return { COURSESYNC_CONFIG_DIR: path.join(dir, "config"), ...login };
}

/** The value of an emulator store outcome; throws with the outcome when the store refused. */
export function ok<T>(outcome: Outcome<T>): T {
  if (outcome.kind !== "ok") throw new Error(`emulator refused: ${JSON.stringify(outcome)}`);
  return outcome.value;
}

/** Create a course in the emulator's store; returns its id. */
export function addCourse(emulator: RunningEmulator, fields: Fields): number {
  return ok(emulator.state.createCourse({ course: fields })).id;
}

/** Create a chapter in the emulator's store (`course_id` among the fields); returns its id. */
export function addChapter(emulator: RunningEmulator, fields: Fields): number {
  return ok(emulator.state.createChapter({ chapter: fields })).id;
}

/** Change a record as another user of the site would (the store's `edit`, which must succeed). */
export function edit(
  emulator: RunningEmulator,
  resource: "courses" | "chapters",
  id: number,
  fields: object,
): void {
  ok(emulator.state.edit(resource, id, fields as Fields));
}

/** What a site holds: courses created first, then chapters, each in the order given. */
export interface SiteRecords {
  courses?: Fields[];
  chapters?: Fields[];
}

/** The ids the store gave the records of a `SiteRecords`, in the same order. */
export interface SiteIds {
  courses: number[];
  chapters: number[];
}

/** Create the courses, then the chapters, in the emulator's store; returns their ids in order. */
export function seedSite(emulator: RunningEmulator, site: SiteRecords): SiteIds {
  const courses = (site.courses ?? []).map((fields) => addCourse(emulator, fields));
  const chapters = (site.chapters ?? []).map((fields) => addChapter(emulator, fields));
  return { courses, chapters };
}

/** Write `<root>/coursesync.yaml` for the site at `url`: HTML bodies, concurrency 4, nothing ignored. */
export async function writeConfig(root: string, url: string): Promise<void> {
  await mkdir(root, { recursive: true });
  await writeFile(
    path.join(root, "coursesync.yaml"),
    `site: production\nsites:\n  production:\n    url: ${url}\nbody: html\nconcurrency: 4\nignore: []\n`,
  );
}

/** A tree made by `coursesync init tree` in a new temp folder, and the CLI environment for it. */
export interface InitTree {
  /** The temp folder: the tree and the user config folder are in it. */
  dir: string;
  /** `<dir>/tree` */
  root: string;
  env: CliEnv;
}

/** Run `coursesync init tree --url <the emulator>` in a new temp folder (it must exit 0); no pull. */
export async function initTree(emulator: { baseUrl: string }): Promise<InitTree> {
  const dir = await testdir();
  const tree = { dir, root: path.join(dir, "tree"), env: cliEnv(dir) };
  // Setup only: the URL check of init would show in the request log and spend faults set up front.
  const init = await runCli(["init", "tree", "--url", emulator.baseUrl, "--no-check"], {
    cwd: dir,
    env: tree.env,
  });
  expect(init.code, init.stderr).toBe(0);
  return tree;
}

/** `initTree` (with coursesync.yaml's `body` set when given), then `coursesync pull` (it must exit 0). */
export async function pullNewTree(
  emulator: { baseUrl: string },
  body?: "markdown" | "html",
): Promise<InitTree> {
  const tree = await initTree(emulator);
  if (body) {
    const config = path.join(tree.root, "coursesync.yaml");
    await writeFile(config, (await readFile(config, "utf8")).replace(/^body: .*$/m, `body: ${body}`));
  }
  const pulled = await runCli(["pull"], { cwd: tree.root, env: tree.env });
  expect(pulled.code, pulled.stderr).toBe(0);
  return tree;
}

/** The requests the emulator logged that could change the site: neither GETs nor logins. */
export function writeRequests(emulator: RunningEmulator): RequestLogEntry[] {
  return emulator.state.requests.filter((r) => r.method !== "GET" && r.path !== "/api/login");
}

/** What a test starts from: a site, a tree pulled from it, and shortcuts into both. */
export interface PulledSite extends InitTree {
  emulator: TestEmulator;
  /** The ids of the records the site was seeded with, in the order given. */
  ids: SiteIds;
  /** Run the CLI with the tree as the working folder. */
  cli(...args: string[]): Promise<CliResult>;
  /** The absolute path of a tree-relative path such as `courses/web/course.yaml`. */
  file(rel: string): string;
  /** Read a file of the tree. */
  read(rel: string): Promise<string>;
  /** Write a file of the tree, making its folders. */
  write(rel: string, text: string): Promise<void>;
  /** Replace the first `from` in a file of the tree by `to`; throws when the file does not hold it. */
  replace(rel: string, from: string, to: string): Promise<void>;
  /** Every file of the tree but the content cache, by relative path. */
  tree(): Promise<Record<string, string>>;
  /** The write requests the site got since the pull, as `METHOD path`. */
  writes(): string[];
  /** Every request the site got since the pull, as `METHOD path status-or-fault`. */
  log(): string[];
}

/** The site `pulledSite` starts: emulator options, and the records it holds. */
export interface SiteSpec extends SiteRecords {
  /** Passed to the emulator over `{ seedDir: null }` (a site holding only the records given). */
  options?: EmulatorOptions;
  /** coursesync.yaml's `body` for the tree (default: what init writes, markdown). */
  body?: "markdown" | "html";
}

/** A small site on a clock that stands still: course "Web" (1) with Intro (1) and Tags (2), HTML bodies. */
export function webSite(): SiteSpec {
  return {
    body: "html",
    options: { now: manualClock().now },
    courses: [{ title: "Web" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>one</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
    ],
  };
}

/**
 * Two courses on a clock that stands still, HTML bodies: "Web" (1, published, excerpt "HTML")
 * with Intro (1, three paragraphs a, b, c) and Tags (2), and "Go" (2) with Tour (3).
 */
export function webAndGoSite(options: EmulatorOptions = {}): SiteSpec {
  return {
    // HTML bodies: the tests write and read chapter HTML in the files (Markdown has its own tests).
    body: "html",
    options: { admin: true, now: manualClock().now, ...options },
    courses: [
      { title: "Web", status: 1, excerpt: "HTML" },
      { title: "Go", excerpt: "Gophers" },
    ],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>a</p>\n<p>b</p>\n<p>c</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
    ],
  };
}

/**
 * Start an emulator holding the given records, init a tree for it in a temp folder and pull it
 * (both must exit 0); the request log is emptied after the pull.
 */
export async function pulledSite(start: StartEmulator, spec: SiteSpec = {}): Promise<PulledSite> {
  const emulator = await start({ seedDir: null, ...spec.options });
  const ids = seedSite(emulator, spec);
  const { dir, root, env } = await pullNewTree(emulator, spec.body);
  emulator.state.clearRequests();
  const file = (rel: string) => path.join(root, ...rel.split("/"));
  const read = (rel: string) => readFile(file(rel), "utf8");
  return {
    emulator,
    ids,
    dir,
    root,
    env,
    cli: (...args) => runCli(args, { cwd: root, env }),
    file,
    read,
    write: async (rel, text) => {
      await mkdir(path.dirname(file(rel)), { recursive: true });
      await writeFile(file(rel), text);
    },
    replace: async (rel, from, to) => {
      const text = await read(rel);
      if (!text.includes(from)) throw new Error(`${rel} does not hold ${from}`);
      await writeFile(file(rel), text.replace(from, to));
    },
    tree: () => readTree(root, [".coursesync/cache"]),
    writes: () => writeRequests(emulator).map((r) => `${r.method} ${r.path}`),
    log: () => emulator.state.requests.map((r) => `${r.method} ${r.path} ${r.status ?? r.fault}`),
  };
}

/** One create or update the emulator's store applied: which call, and the body it was sent. */
export interface AppliedWrite {
  call: string;
  body: unknown;
}

type WriteCall = "POST" | "PATCH";

/** Wrap the store's create and update methods to report each call before it is applied. */
function onStoreWrite(
  emulator: RunningEmulator,
  calls: readonly WriteCall[],
  report: (method: WriteCall, resource: "courses" | "chapters", body: unknown, id?: number) => void,
): void {
  const state = emulator.state;
  const { createCourse, createChapter, updateCourse, updateChapter } = state;
  if (calls.includes("POST")) {
    state.createCourse = (body) => {
      report("POST", "courses", body);
      return createCourse.call(state, body);
    };
    state.createChapter = (body) => {
      report("POST", "chapters", body);
      return createChapter.call(state, body);
    };
  }
  if (calls.includes("PATCH")) {
    state.updateCourse = (id, body) => {
      report("PATCH", "courses", body, id);
      return updateCourse.call(state, id, body);
    };
    state.updateChapter = (id, body) => {
      report("PATCH", "chapters", body, id);
      return updateChapter.call(state, id, body);
    };
  }
}

/** From now on, record the body of every PATCH the store applies, as `{ call: "chapters/1", body }`. */
export function recordPatches(emulator: RunningEmulator): AppliedWrite[] {
  const patches: AppliedWrite[] = [];
  onStoreWrite(emulator, ["PATCH"], (_method, resource, body, id) => {
    patches.push({ call: `${resource}/${id}`, body });
  });
  return patches;
}

/**
 * From now on, record every create and update the store applies, with its body, as
 * `{ call: "POST courses", body }` or `{ call: "PATCH chapters/1", body }`.
 */
export function recordWrites(emulator: RunningEmulator): AppliedWrite[] {
  const writes: AppliedWrite[] = [];
  onStoreWrite(emulator, ["POST", "PATCH"], (method, resource, body, id) => {
    writes.push({ call: id === undefined ? `${method} ${resource}` : `${method} ${resource}/${id}`, body });
  });
  return writes;
}

/**
 * Run `action` once, right after the emulator has handled the first request named `call`
 * (`"GET /api/v1/chapters/2"`) and before its answer leaves: a moment between that request
 * and whatever the client sends next, with no sleep.
 */
export function afterRequest(emulator: RunningEmulator, call: string, action: () => void, nth = 1): void {
  const state = emulator.state;
  const log = state.logRequest.bind(state);
  let seen = 0;
  state.logRequest = (entry) => {
    log(entry);
    if (`${entry.method} ${entry.path}` !== call) return;
    seen += 1;
    if (seen === nth) action();
  };
}

/**
 * From now on, answer every create of `resource` with the record `answer` returns (given the
 * record the store made, or undefined with `apply: false`, when nothing is made), as a site or
 * a proxy in front of it that answers a create with another record would. Returns a function
 * that puts the store's own answers back.
 */
export function answerCreatesWith(
  emulator: RunningEmulator,
  resource: "courses" | "chapters",
  answer: (made: Fields | undefined) => Fields,
  options: { apply?: boolean } = {},
): () => void {
  const state = emulator.state as unknown as Record<string, (body: unknown) => Outcome<Fields>>;
  const method = resource === "courses" ? "createCourse" : "createChapter";
  const create = state[method]!;
  state[method] = (body) => {
    const made = options.apply === false ? undefined : create.call(emulator.state, body);
    if (made && made.kind !== "ok") return made;
    return { kind: "ok", value: answer(made?.value) };
  };
  return () => {
    state[method] = create;
  };
}

/** Poll `check` every 20 ms until it returns something truthy, and return that; fails after `ms` (a bound, not a wait). */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 10_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for the expected state`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Inode and mtime (ns) of every file but the content cache, to tell an untouched file from a rewritten one. */
export async function stamps(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of Object.keys(await readTree(root, [".coursesync/cache"]))) {
    const s = await stat(path.join(root, file), { bigint: true });
    out[file] = `${s.ino}:${s.mtimeNs}`;
  }
  return out;
}
