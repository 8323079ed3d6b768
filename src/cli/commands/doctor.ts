import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { ApiClient, type Credentials } from "../../api/client.js";
import { probeSite } from "../../api/probe.js";
import { apiError, type Exchange, isOk, pageRecords } from "../../api/responses.js";
import { scrubSecrets } from "../../api/secrets.js";
import { CONFIG_FILE, type ResolvedSite, resolveSite } from "../../config/config.js";
import { CredentialStore, configDir } from "../../config/credentials.js";
import { UserError } from "../../errors.js";
import { likelyDuplicates } from "../../sync/duplicates.js";
import { lockState } from "../../sync/state/lock.js";
import { loadSnapshot, snapshotIsLegacy } from "../../sync/state/snapshot.js";
import type { Snapshot } from "../../sync/state/snapshot-model.js";
import { CONFLICT_COPY_PATTERNS } from "../../tree/layout.js";
import { counted } from "../../util/words.js";
import { COMMAND_LIST } from "../command-list.js";
import { resolveCredentials } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun, GlobalOptions } from "../io.js";
import { Output } from "../output.js";
import { type DoctorCheck, doctorJson, doctorText } from "../render/doctor.js";
import { maybeOpenTree } from "../tree-root.js";

/** How long doctor waits for each answer: it diagnoses, so a hanging site is a finding, not a wait. */
const DOCTOR_TIMEOUT_MS = 10_000;

const EXAMPLES: Example[] = [
  {
    does: "something fails and the message is not enough: what is wrong, and what to do",
    line: "coursesync doctor",
  },
  { does: "the same for another site of the tree", line: "coursesync doctor --site staging" },
  { does: "in a script", line: "coursesync doctor --json" },
];

/** `coursesync doctor [--json]`: the tree, the site URL, the credentials and the account, in order. */
export function registerDoctor(program: Command, run: CliRun): void {
  program
    .command("doctor")
    .description(COMMAND_LIST.doctor.description)
    .option("--json", "print one JSON document on stdout: {ok, checks: [{check, status, message, hint}]}")
    .addHelpText(
      "after",
      "\nChecks, in order: coursesync.yaml, the snapshot, the lock, .gitignore; the site URL (one\n" +
        "request without a login); the credentials (COURSESYNC_TOKEN, the stored token, or\n" +
        "COURSESYNC_EMAIL/COURSESYNC_PASSWORD; never a prompt); the first page of courses and\n" +
        "chapters. A check that cannot run after one that failed says `skip`. Writes nothing.\n" +
        "Exit 0 when every check is ok, 1 otherwise.",
    )
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (options: { json?: boolean }, command: Command) => {
      const checks = await runChecks(run, globalsOf(command));
      const out = new Output(run, globalsOf(command).quiet);
      if (options.json) out.json(doctorJson(checks));
      else out.result(doctorText(checks));
      run.exitCode = checks.every((c) => c.status === "ok" || c.status === "skip") ? 0 : 1;
    });
}

/** Every check, in order; a failure never throws, it is a line. */
async function runChecks(run: CliRun, globals: GlobalOptions): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const site = await treeChecks(run, globals, checks);
  if (site === undefined) {
    for (const check of ["url", "credentials", "account"]) checks.push(skip(check, "no site to check"));
    return checks;
  }
  const probe = await probeSite(site.url, { timeoutMs: DOCTOR_TIMEOUT_MS, now: run.now });
  if (probe.kind !== "api") {
    checks.push(failed("url", probe.error));
    for (const check of ["credentials", "account"]) checks.push(skip(check, "the site URL failed"));
    return checks;
  }
  const wants = probe.status === 401 || probe.status === 403 ? "it wants a login" : `${probe.status}`;
  checks.push({ check: "url", status: "ok", message: `${site.url} answers as the API (${wants})` });
  const listed = await accountChecks(run, site, checks);
  const held = site.courses ?? 0;
  if (listed === 0 && held > 0)
    checks.push({
      check: "account",
      status: "warn",
      message: `the site lists no course, but the last sync knew ${counted(held, "course")}`,
      hint: "If the site lost them, `coursesync restore` brings the tree back into it (try --dry-run first).",
    });
  return checks;
}

function skip(check: string, why: string): DoctorCheck {
  return { check, status: "skip", message: `not checked: ${why}` };
}

function failed(check: string, error: unknown): DoctorCheck {
  if (!(error instanceof UserError)) throw error;
  return { check, status: "fail", message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
}

/** coursesync.yaml, the snapshot, the lock and .gitignore; returns the site to check, if any. */
async function treeChecks(
  run: CliRun,
  globals: GlobalOptions,
  checks: DoctorCheck[],
): Promise<(ResolvedSite & { courses?: number }) | undefined> {
  let tree: Awaited<ReturnType<typeof maybeOpenTree>>;
  let site: ResolvedSite;
  try {
    tree = await maybeOpenTree(run, globals);
    site = resolveSite(tree?.config, globals);
  } catch (error) {
    checks.push(failed("config", error));
    for (const check of ["snapshot", "lock", ".gitignore"]) checks.push(skip(check, `${CONFIG_FILE} failed`));
    return undefined;
  }
  if (tree === undefined) {
    checks.push(skip("config", `no ${CONFIG_FILE} here or above; checking --url alone`));
    for (const check of ["snapshot", "lock", ".gitignore"]) checks.push(skip(check, "no tree"));
    return site;
  }
  const root = tree.root;
  checks.push({
    check: "config",
    status: "ok",
    message: `${path.join(root, CONFIG_FILE)} is valid: site "${site.name}" at ${site.url}`,
  });
  const { check, courses } = await snapshotCheck(root, site.name);
  checks.push(check);
  checks.push(await lockCheck(root, site.name, run.now));
  checks.push(await gitignoreCheck(root));
  return { ...site, ...(courses === undefined ? {} : { courses }) };
}

/** The snapshot check, and how many courses the snapshot holds (when it reads). */
async function snapshotCheck(root: string, site: string): Promise<{ check: DoctorCheck; courses?: number }> {
  let snapshot: Snapshot | undefined;
  try {
    snapshot = await loadSnapshot(root, site);
  } catch (error) {
    return { check: unreadable(site, error) };
  }
  if (snapshot === undefined) {
    return {
      check: { check: "snapshot", status: "ok", message: "none yet: the first `coursesync pull` makes it" },
    };
  }
  return { check: readableCheck(root, site, snapshot), courses: Object.keys(snapshot.courses).length };
}

/** The snapshot check of a snapshot that reads: its size, or the records it holds twice. */
function readableCheck(root: string, site: string, snapshot: Snapshot): DoctorCheck {
  const courses = Object.keys(snapshot.courses).length;
  const chapters = Object.keys(snapshot.chapters).length;
  const copies = likelyDuplicates(snapshot);
  if (copies.length > 0) {
    return {
      check: "snapshot",
      status: "warn",
      message: `${counted(copies.length, "pair")} of records ${copies.length === 1 ? "looks" : "look"} made twice on the site: ${copies.join("; ")}`,
      hint: "Two publishes that raced (a push by hand beside CI) make such pairs. Delete the copy on the site, then run `coursesync pull`.",
    };
  }
  return {
    check: "snapshot",
    status: "ok",
    message: `${snapshotIsLegacy(root, site) ? `.coursesync/${site}.json` : `.coursesync/${site}/`} is readable: ${counted(courses, "course")}, ${counted(chapters, "chapter")}`,
  };
}

/** The snapshot check of a snapshot that does not read. */
function unreadable(site: string, error: unknown): DoctorCheck {
  if (error instanceof UserError) return failed("snapshot", error);
  const reason = error instanceof Error ? error.message : String(error);
  return {
    check: "snapshot",
    status: "fail",
    message: `.coursesync/${site}.json cannot be read: ${reason}`,
    hint: "Check its permissions, or restore it (`git checkout -- .coursesync`).",
  };
}

async function lockCheck(root: string, site: string, now: () => number): Promise<DoctorCheck> {
  const state = await lockState(root, site, now);
  if (state.kind === "free") return { check: "lock", status: "ok", message: "no run holds the tree" };
  const rel = path.relative(root, state.lock);
  const who = state.holder
    ? `coursesync ${state.holder.command} (pid ${state.holder.pid} on ${state.holder.host}, since ${state.holder.since})`
    : "a run that never named itself";
  if (state.kind === "abandoned") {
    return {
      check: "lock",
      status: "warn",
      message: `${rel} was left by ${who}, which is gone`,
      hint: "Nothing is lost: the next command takes the lock over. To clear it now, remove that folder.",
    };
  }
  return {
    check: "lock",
    status: "warn",
    message: `${rel} is held by ${who}`,
    hint: "Wait for it to finish; commands that write to the tree wait for nothing and stop while it runs.",
  };
}

/** The lines of init's .gitignore block that matter: without them, transient files get committed. */
const NEEDED_IGNORES = [".coursesync/*", "!.coursesync/*.json"];

async function gitignoreCheck(root: string): Promise<DoctorCheck> {
  const file = path.join(root, ".gitignore");
  const lines = existsSync(file) ? (await readFile(file, "utf8")).split(/\r?\n/).map((l) => l.trim()) : [];
  const missing = NEEDED_IGNORES.filter((line) => !lines.includes(line));
  if (missing.length === 0) return { check: ".gitignore", status: "ok", message: "has the coursesync block" };
  return {
    check: ".gitignore",
    status: "warn",
    message: existsSync(file) ? `.gitignore lacks ${missing.join(" and ")}` : "there is no .gitignore",
    hint: `Add the lines ${NEEDED_IGNORES.join(", ")} (and !.coursesync/schemas/, ${CONFLICT_COPY_PATTERNS.join(", ")}), as \`coursesync init\` writes them: else the lock, journal and cache get committed.`,
  };
}

/**
 * The credentials (a token accepted, or a login that works), then the first page of each list;
 * returns how many courses that page listed, when it could be read.
 */
async function accountChecks(
  run: CliRun,
  site: ResolvedSite,
  checks: DoctorCheck[],
): Promise<number | undefined> {
  let credentials: Credentials & { source: string };
  try {
    // Doctor never asks: it reports what a command run now, without a terminal, would use.
    credentials = await resolveCredentials(
      { ...run, stdinIsTTY: false },
      site,
      new CredentialStore(configDir(run.env)),
    );
  } catch (error) {
    checks.push(failed("credentials", error));
    checks.push(skip("account", "no credentials"));
    return;
  }
  const usesToken = credentials.token !== undefined;
  // A token is checked alone: with a login beside it, a refused token would pass unnoticed.
  const client = new ApiClient({
    baseUrl: site.url,
    credentials: usesToken ? { token: credentials.token, source: credentials.source } : credentials,
    retries: 1,
    timeoutMs: DOCTOR_TIMEOUT_MS,
    sleep: run.sleep,
    now: run.now,
  });
  const scrub = (text: string) => scrubSecrets(text, [credentials.token, credentials.password]);
  try {
    try {
      if (usesToken) await client.firstPage("courses", true);
      else await client.login();
    } catch (error) {
      checks.push(failed("credentials", error));
      checks.push(skip("account", "the credentials failed"));
      return;
    }
    const as = credentials.email ? ` (${credentials.email})` : "";
    checks.push({
      check: "credentials",
      status: "ok",
      message: usesToken
        ? `the site accepts the token from ${credentials.source === "COURSESYNC_TOKEN" ? "COURSESYNC_TOKEN" : "the store"}`
        : `login works${as}, with ${credentials.source}`,
    });
    try {
      const courses = firstPageRecords(await client.firstPage("courses", true), scrub);
      const chapters = firstPageRecords(await client.firstPage("chapters", true), scrub);
      checks.push({
        check: "account",
        status: "ok",
        message: `lists the first page of courses (${courses}) and chapters (${chapters})`,
      });
      return courses;
    } catch (error) {
      checks.push(failed("account", error));
    }
  } finally {
    client.close();
  }
}

/** How many records a first page holds; an error naming the request when it is not a list. */
function firstPageRecords(exchange: Exchange, scrub: (text: string) => string): number {
  if (!isOk(exchange.status)) throw apiError(exchange, "GET", scrub);
  return pageRecords(exchange).length;
}
