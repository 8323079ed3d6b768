import type { Command } from "commander";
import { parseBaseUrl } from "../../api/login-url.js";
import { CONFIG_FILE, type Config, resolveSite, validSiteName } from "../../config/config.js";
import { CredentialStore, configDir } from "../../config/credentials.js";
import { writeConfigEdit } from "../../config/edit.js";
import { ExitCode, UserError, usageError } from "../../errors.js";
import { acquireLock } from "../../sync/state/lock.js";
import { removeSiteState, snapshotInfo, unfinishedWrites } from "../../sync/state/sites.js";
import { SiteState } from "../../sync/state/workspace.js";
import { counted } from "../../util/words.js";
import { COMMAND_LIST } from "../command-list.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun, GlobalOptions } from "../io.js";
import { Output } from "../output.js";
import { siteLines, siteRecord } from "../render/sites.js";
import { openTree } from "../tree-root.js";
import { registerMoveIds } from "./site-move-ids.js";

const EXAMPLE_URL = "https://staging.academy.example.com/api/v1";

const PRODUCTION_URL = EXAMPLE_URL.replace("staging.", "");

/** What `--help` adds below each site command: what to expect, then its examples. */
const HELP = {
  list: "\nLast sync is when the site's snapshot file was written (a fresh clone shows the checkout's time).\nTokens are never printed.",
  add: "\n--url is the site's API root, ending in /api/v1.",
  remove:
    "\nThe default site cannot be removed: make another the default first (coursesync site default <name>).\n" +
    "Nor can the site whose ids the files carry (ids: in coursesync.yaml): coursesync site move-ids <name> first.\n" +
    "A stored token is kept: coursesync logout --url <api-base-url> forgets it.",
  setUrl:
    "\nA snapshot made for the old URL is not read for the new one: pull and push refuse it. If the\n" +
    "same site moved (same records and ids), --moved carries the snapshot over; if it is another\n" +
    "site, add it under a name of its own.",
};

const EXAMPLES = {
  site: [
    {
      does: "add a second site: a staging copy, or a new site to restore a backup into",
      line: `coursesync site add staging --url ${EXAMPLE_URL}`,
    },
    { does: "list the sites, their last sync and whether a token is stored", line: "coursesync site list" },
    {
      does: "restore the tree into that site (push --site creates every course and chapter)",
      line: "coursesync push --site staging --yes",
    },
  ],
  list: [
    { does: "one line a site", line: "coursesync site list" },
    { does: "the same as JSON, for scripts", line: "coursesync site list --json" },
  ],
  add: [
    { does: "add a site", line: `coursesync site add staging --url ${EXAMPLE_URL}` },
    { does: "then log in to it", line: "coursesync login --site staging" },
    { does: "and pull from it, or push to it", line: "coursesync pull --site staging" },
  ],
  remove: [
    { does: "remove a site; asks first", line: "coursesync site remove staging" },
    { does: "in a script", line: "coursesync site remove staging --yes" },
  ],
  default: [
    { does: "talk to staging when no --site is given", line: "coursesync site default staging" },
    { does: "and back", line: "coursesync site default production" },
  ],
  setUrl: [
    {
      does: "the same site moved to a new address: keep its snapshot",
      line: `coursesync site set-url production ${PRODUCTION_URL} --moved`,
    },
    {
      does: "give --url instead of the argument",
      line: `coursesync site set-url staging --url ${EXAMPLE_URL}`,
    },
  ],
} satisfies Record<string, Example[]>;

/**
 * The global options of a site command. It names its site as an argument, so --site is refused
 * rather than ignored; so is --url, but where the command takes a URL (add, set-url).
 */
function siteGlobals(command: Command, url: "allowed" | "refused"): GlobalOptions {
  const globals = globalsOf(command);
  const name = command.name();
  if (globals.site !== undefined) {
    throw usageError(
      `coursesync site ${name} takes the site's name as an argument, not --site`,
      `Example: coursesync site ${name}${name === "list" ? "" : ` ${globals.site}`}`,
    );
  }
  if (url === "refused" && globals.url !== undefined) {
    throw usageError(
      `--url has no meaning for coursesync site ${name}`,
      "Give it to `coursesync site add <name> --url ...` or `coursesync site set-url <name> <url>`.",
    );
  }
  return globals;
}

/** The site of this name, or exit 2 naming the known ones. */
function knownSite(config: Config, name: string): string {
  return resolveSite(config, { site: name }).url;
}

/** The tree's path of a site's snapshot, for messages. */
function snapshotPath(name: string): string {
  return SiteState.open("", name).paths.snapshot;
}

/** `coursesync site add <name> --url <api-base-url>` */
async function addSite(run: CliRun, globals: GlobalOptions, name: string): Promise<void> {
  const out = new Output(run, globals.quiet);
  const tree = await openTree(run, globals);
  if (!validSiteName(name)) {
    throw usageError(
      `site name "${name}": use letters, digits, . _ - (starting with a letter or digit; not cache or schemas)`,
      "It names the site's snapshot folder under .coursesync/. Example: staging",
    );
  }
  // Compared without case: on macOS and Windows "Staging" and "staging" would share one snapshot.
  const same = Object.keys(tree.config.sites).find((known) => known.toLowerCase() === name.toLowerCase());
  if (same !== undefined) {
    throw usageError(
      `site "${same}" is already in ${CONFIG_FILE} (${tree.config.sites[same]?.url})`,
      `Pick another name, or change its URL: coursesync site set-url ${same} <api-base-url>`,
    );
  }
  if (globals.url === undefined) {
    throw usageError(
      `site add needs --url <api-base-url>`,
      `Example: coursesync site add ${name} --url ${EXAMPLE_URL}`,
    );
  }
  const url = parseBaseUrl(globals.url).toString();
  const { snapshot, problem } = await snapshotInfo(tree.root, name);
  if (problem !== undefined || (snapshot && snapshot.url !== url)) {
    throw usageError(
      `${snapshot?.file ?? snapshotPath(name)} is already there, ${problem === undefined ? `made for ${snapshot?.url}` : "and cannot be read"}: a site's snapshot is never read as another's`,
      "Pick another name, or delete that snapshot (git rm) if the site it was made for is gone.",
    );
  }
  const twin = Object.entries(tree.config.sites).find(([, site]) => site.url === url)?.[0];
  await writeConfigEdit(tree.config, { op: "add-site", name, url });
  out.result(`Added site "${name}" (${url}) to ${CONFIG_FILE}.`);
  if (twin) out.warn(`site "${twin}" has the same URL; each name keeps its own snapshot of it`);
  if (snapshot) {
    out.info(
      `Its snapshot from an earlier sync is there: ${counted(snapshot.courses, "course")}, ${counted(snapshot.chapters, "chapter")}.`,
    );
  }
  out.info(
    `Next: coursesync login --site ${name} (unless a token for it is stored or COURSESYNC_TOKEN is set).`,
  );
}

/** `coursesync site list [--json]` */
async function listSites(run: CliRun, globals: GlobalOptions, json: boolean): Promise<void> {
  const out = new Output(run, globals.quiet || json);
  const tree = await openTree(run, globals);
  const store = new CredentialStore(configDir(run.env));
  const records = [];
  for (const [name, site] of Object.entries(tree.config.sites)) {
    const state = await snapshotInfo(tree.root, name);
    const tokenStored = (await store.get(site.url)) !== undefined;
    records.push(siteRecord(name, site.url, name === tree.config.site, tokenStored, state));
  }
  const envToken = Boolean(run.env.COURSESYNC_TOKEN);
  if (json)
    out.json({
      command: "site list",
      default: tree.config.site,
      ids: tree.config.ids,
      env_token: envToken,
      sites: records,
    });
  else for (const line of siteLines(records, envToken, tree.config.ids)) out.result(line);
}

/** Ask before a removal: on a terminal; elsewhere --yes is needed (exit 3, as push's plan). */
async function confirmRemoval(run: CliRun, name: string, url: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!run.stdinIsTTY) {
    throw new UserError(`removing site "${name}" needs confirmation, and there is no terminal to ask`, {
      hint: `Nothing was changed. Run again with --yes: coursesync site remove ${name} --yes`,
      exitCode: ExitCode.stopped,
    });
  }
  const ok = await run.prompts.confirm(
    `Remove site "${name}" (${url}) from ${CONFIG_FILE}, with its snapshot, journal and cache under .coursesync? The tree's files stay.`,
  );
  if (!ok) throw new UserError("nothing was removed", { exitCode: ExitCode.stopped });
}

/** `coursesync site remove <name> [--yes] [--force]` */
async function removeSite(
  run: CliRun,
  globals: GlobalOptions,
  name: string,
  flags: { yes?: boolean; force?: boolean },
): Promise<void> {
  const out = new Output(run, globals.quiet);
  const tree = await openTree(run, globals);
  const url = knownSite(tree.config, name);
  // A site never synced gave the files no ids: `ids:` then simply follows the default.
  const owner = name === tree.config.ids && name !== tree.config.site;
  if (owner && (await snapshotInfo(tree.root, name)).snapshot) {
    throw usageError(
      `the ids in the files are those of site "${name}" (\`ids:\` in ${CONFIG_FILE}); removing it would leave them meaning nothing. Nothing was changed`,
      `Move the files' ids to the site that stays first, then remove this one: coursesync site move-ids ${tree.config.site} && coursesync site remove ${name}`,
    );
  }
  if (name === tree.config.site) {
    const others = Object.keys(tree.config.sites).filter((other) => other !== name);
    throw usageError(
      `site "${name}" is the default site (\`site:\` in ${CONFIG_FILE}); nothing was changed`,
      others.length > 0
        ? `Make another site the default first: coursesync site default ${others[0]}`
        : "A tree needs a site: add the one to use instead (coursesync site add <name> --url ...), make it the default (coursesync site default <name>), then remove this one.",
    );
  }
  const release = await acquireLock(tree.root, name, "site remove");
  try {
    const pending = await unfinishedWrites(tree.root, name);
    if (pending > 0 && !flags.force) {
      throw new UserError(
        `.coursesync/${name}.journal holds ${counted(pending, "write")} to ${url} that its snapshot does not record yet (a push that did not finish); removing the site would lose them`,
        {
          hint: `Finish that push first (coursesync push --site ${name}), or pass --force to remove the site anyway.`,
          exitCode: ExitCode.stopped,
        },
      );
    }
    await confirmRemoval(run, name, url, flags.yes === true);
    const current = owner
      ? await writeConfigEdit(tree.config, { op: "set-ids", name: tree.config.site })
      : tree.config;
    const config = await writeConfigEdit(current, { op: "remove-site", name });
    const removed = await removeSiteState(tree.root, name);
    out.result(`Removed site "${name}" (${url}) from ${CONFIG_FILE}.`);
    out.info(
      removed.length > 0
        ? `Deleted ${removed.join(", ")}; the tree's files are unchanged.`
        : "It had no snapshot; the tree's files are unchanged.",
    );
    const shared = Object.values(config.sites).some((site) => site.url === url);
    if (!shared && (await new CredentialStore(configDir(run.env)).get(url))) {
      out.info(
        `Its stored token is kept (other trees may use it); to forget it: coursesync logout --url ${url}`,
      );
    }
  } finally {
    await release();
  }
}

/** `coursesync site default <name>` */
async function setDefault(run: CliRun, globals: GlobalOptions, name: string): Promise<void> {
  const out = new Output(run, globals.quiet);
  const tree = await openTree(run, globals);
  const url = knownSite(tree.config, name);
  if (tree.config.site === name) {
    out.result(`Site "${name}" is already the default; nothing to do.`);
    return;
  }
  const config = await writeConfigEdit(tree.config, { op: "set-default", name });
  out.result(`Site "${name}" (${url}) is now the default: commands without --site talk to it.`);
  if (config.ids !== name) {
    out.info(
      `The ids in the files stay those of "${config.ids}" (\`ids:\` in ${CONFIG_FILE}); "${name}" is read and written through its own snapshot's id map.${tree.config.idsSet ? "" : ` ${CONFIG_FILE} now says so.`}`,
    );
  }
}

/**
 * `coursesync site set-url <name> <url> [--moved]`: a snapshot made for the old URL is never
 * read as the new one's; with --moved (the same site at a new address) it is carried over.
 */
async function setUrl(
  run: CliRun,
  globals: GlobalOptions,
  name: string,
  given: string | undefined,
  moved: boolean,
): Promise<void> {
  const out = new Output(run, globals.quiet);
  const tree = await openTree(run, globals);
  const old = knownSite(tree.config, name);
  if (given !== undefined && globals.url !== undefined && given !== globals.url) {
    throw usageError("site set-url: two URLs given (an argument and --url)", "Give the new URL once.");
  }
  const raw = given ?? globals.url;
  if (raw === undefined) {
    throw usageError(
      "site set-url needs the new URL",
      `Example: coursesync site set-url ${name} ${EXAMPLE_URL}`,
    );
  }
  const url = parseBaseUrl(raw, given === undefined ? "--url" : "<api-base-url>").toString();
  if (url === old) {
    out.result(`Site "${name}" already has the URL ${url}; nothing to do.`);
    return;
  }
  const release = await acquireLock(tree.root, name, "site set-url");
  try {
    const { snapshot, problem } = await snapshotInfo(tree.root, name);
    if (problem !== undefined) throw new UserError(problem, { exitCode: ExitCode.usage });
    if (snapshot && !moved) {
      throw usageError(
        `${snapshot.file} was made for ${snapshot.url}; a site at another URL is another site, whose records it does not describe. Nothing was changed`,
        `If the same site moved to ${url} (same records and ids), run again with --moved to carry the snapshot over. ` +
          `If it is another site, add it under its own name: coursesync site add <name> --url ${url}`,
      );
    }
    const pending = snapshot ? await unfinishedWrites(tree.root, name) : 0;
    if (pending > 0) {
      throw new UserError(`.coursesync/${name}.journal holds a push that did not finish`, {
        hint: `Finish it first with coursesync push --site ${name}, then move the site.`,
        exitCode: ExitCode.stopped,
      });
    }
    await writeConfigEdit(tree.config, { op: "set-url", name, url });
    const state = SiteState.open(tree.root, name);
    const loaded = snapshot ? await state.loadSnapshot() : undefined;
    if (loaded) await state.saveSnapshot({ ...loaded, site: url });
    out.result(`Site "${name}" now has the URL ${url}${loaded ? `; ${snapshot?.file} moved with it` : ""}.`);
    out.info(`Tokens are stored per URL: coursesync login --site ${name}, unless COURSESYNC_TOKEN is set.`);
  } finally {
    await release();
  }
}

/** `coursesync site add|list|remove|default|set-url`: the sites of a tree, like git remotes. */
export function registerSite(program: Command, run: CliRun): void {
  const site = program
    .command("site")
    .description(COMMAND_LIST.site.description)
    .addHelpText("after", examplesText(EXAMPLES.site));
  site
    .command("list")
    .description("list the sites: URL, default, last sync, records known, whether a token is stored")
    .option("--json", "print one JSON document on stdout: the sites as a list of objects")
    .addHelpText("after", HELP.list)
    .addHelpText("after", examplesText(EXAMPLES.list))
    .action(async (flags: { json?: boolean }, command: Command) =>
      listSites(run, siteGlobals(command, "refused"), flags.json === true),
    );
  site
    .command("add")
    .description("add a site to coursesync.yaml (its comments and layout are kept)")
    .argument("<name>", "the site's name: letters, digits, . _ -")
    .usage("<name> --url <api-base-url>")
    .addHelpText("after", HELP.add)
    .addHelpText("after", examplesText(EXAMPLES.add))
    .action(async (name: string, _flags: unknown, command: Command) =>
      addSite(run, siteGlobals(command, "allowed"), name),
    );
  site
    .command("remove")
    .description("remove a site and its snapshot, journal and cache under .coursesync; the tree's files stay")
    .argument("<name>", "a site in coursesync.yaml, not the default one")
    .option("-y, --yes", "remove without asking (needed without a terminal)")
    .option("--force", "remove even when a push to the site did not finish (its journal is lost)")
    .addHelpText("after", HELP.remove)
    .addHelpText("after", examplesText(EXAMPLES.remove))
    .action(async (name: string, flags: { yes?: boolean; force?: boolean }, command: Command) =>
      removeSite(run, siteGlobals(command, "refused"), name, flags),
    );
  site
    .command("default")
    .description("make a site the default: the one commands talk to without --site")
    .argument("<name>", "a site in coursesync.yaml")
    .addHelpText("after", examplesText(EXAMPLES.default))
    .action(async (name: string, _flags: unknown, command: Command) =>
      setDefault(run, siteGlobals(command, "refused"), name),
    );
  site
    .command("set-url")
    .description("change a site's URL; its snapshot is kept only with --moved")
    .argument("<name>", "a site in coursesync.yaml")
    .argument("[api-base-url]", "the new API root, ending in /api/v1 (or give --url)")
    .option("--moved", "the same site at a new address: carry its snapshot over to the new URL")
    .addHelpText("after", HELP.setUrl)
    .addHelpText("after", examplesText(EXAMPLES.setUrl))
    .action(async (name: string, url: string | undefined, flags: { moved?: boolean }, command: Command) =>
      setUrl(run, siteGlobals(command, "allowed"), name, url, flags.moved === true),
    );
  registerMoveIds(site, run);
}
