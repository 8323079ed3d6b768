import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Command, Option } from "commander";
import { processGit, Repo } from "../../ci/git.js";
import { relativeTree, runJob, type Verdict } from "../../ci/job.js";
import { pinnedSpec, writePinnedInstall } from "../../ci/package.js";
import { backupMessage, backupVerdict, PUBLISH_MESSAGE, publishVerdict } from "../../ci/verdicts.js";
import {
  GENERATED_MARK,
  githubWorkflows,
  gitlabJobs,
  type RecipeFile,
  type RecipeOptions,
} from "../../ci/workflows.js";
import { resolveSite } from "../../config/config.js";
import { usageError } from "../../errors.js";
import { SiteState } from "../../sync/state/workspace.js";
import { COMMAND_LIST } from "../command-list.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliIO, CliRun, GlobalOptions } from "../io.js";
import { Output } from "../output.js";
import { openTree } from "../tree-root.js";
import { VERSION } from "../version.js";
import { githubFirstRun, gitlabFirstRun } from "./ci-first-run.js";
import { refreshSchemas } from "./init.js";

/** The default schedule of the backup: daily at 04:17 UTC (off the hour, when runners are busy). */
const BACKUP_CRON = "17 4 * * *";

/** The tree of a command and the git repository holding it. */
async function treeInRepo(run: CliRun, globals: GlobalOptions) {
  const tree = await openTree(run, globals);
  const git = run.git ?? processGit(run.env);
  const repo = await Repo.at(git, tree.root);
  return { tree, git, repo, rel: relativeTree(repo.top, realpathSync(tree.root)) };
}

/** Write the recipe files at the repository's top; refuse to overwrite any unless `force`. */
async function writeRecipes(top: string, files: readonly RecipeFile[], force: boolean): Promise<void> {
  const existing = files.filter((file) => existsSync(path.join(top, file.path)));
  if (existing.length > 0 && !force) {
    throw usageError(
      `${existing.map((file) => file.path).join(", ")} already exist${existing.length === 1 ? "s" : ""}`,
      `Pass --force to write over ${existing.length === 1 ? "it" : "them"} (edits there are lost), or move ${existing.length === 1 ? "it" : "them"} away first.`,
    );
  }
  for (const file of files) {
    await mkdir(path.dirname(path.join(top, file.path)), { recursive: true });
    await writeFile(path.join(top, file.path), file.text);
  }
}

const EXAMPLES = {
  ci: [
    { does: "write GitHub Actions workflows at the repository's top", line: "coursesync ci github" },
    { does: "or GitLab CI jobs", line: "coursesync ci gitlab" },
    { does: "what the backup job runs: pull, commit and push what changed", line: "coursesync ci backup" },
  ],
  github: [
    {
      does: "check pull requests, publish merges to the checked-out branch, back up daily",
      line: "coursesync ci github",
    },
    {
      does: "merges land on trunk; back up at 03:00 UTC; write over the old files",
      line: "coursesync ci github --branch trunk --cron '0 3 * * *' --force",
    },
  ],
  gitlab: [
    { does: "write .gitlab-ci.yml (or jobs to include beside your own)", line: "coursesync ci gitlab" },
    { does: "merges land on trunk", line: "coursesync ci gitlab --branch trunk" },
  ],
  publish: [
    {
      does: "in CI, after a merge: push --yes, commit the new ids and the snapshot back",
      line: "coursesync ci publish",
    },
    { does: "on another branch and remote", line: "coursesync ci publish --branch trunk --remote upstream" },
  ],
  backup: [
    {
      does: "in a scheduled CI job: pull the site and its events, commit and push what changed",
      line: "coursesync ci backup",
    },
    { does: "without the events", line: "coursesync ci backup --no-events" },
  ],
} satisfies Record<string, Example[]>;

interface RecipeFlags {
  force?: boolean;
  branch?: string;
  cron: string;
  from?: string;
}

/**
 * What writing either recipe starts from: the tree's default site (which must own the ids),
 * the recipe's options, and the steps both take after their files (pin, schemas).
 */
async function prepareRecipe(run: CliRun, flags: RecipeFlags, command: Command) {
  const globals = globalsOf(command);
  const { tree, repo, rel } = await treeInRepo(run, globals);
  // The jobs talk to the tree's default site: a --site they would not carry is refused, not dropped.
  const site = resolveSite(tree.config, globals).name;
  if (site !== tree.config.site) {
    throw usageError(
      `the CI recipes publish to and back up the default site "${tree.config.site}", not "${site}"`,
      `Drop --site, or make "${site}" the default first: coursesync site default ${site}`,
    );
  }
  // They commit the ids a publish gives new files back: that site must own the files' ids.
  if (site !== tree.config.ids) {
    throw usageError(
      `the CI recipes publish to the default site "${site}", but the files carry the ids of "${tree.config.ids}" (\`ids:\` in coursesync.yaml); a publish there could give no new file its id`,
      `Make "${tree.config.ids}" the default again (coursesync site default ${tree.config.ids}), or move the files' ids to "${site}" first: coursesync site move-ids ${site}`,
    );
  }
  const options: RecipeOptions = {
    pinned: pinnedSpec(flags.from ?? VERSION),
    tree: rel,
    branch: flags.branch ?? (await repo.currentBranch()) ?? "main",
    cron: flags.cron,
  };
  const out = new Output(run, globals.quiet);
  /** The editor schemas, made current: the jobs' `check` and the editors then agree. */
  const schemas = async () => {
    for (const file of await refreshSchemas(tree.root))
      out.result(`wrote ${rel === "." ? file : `${rel}/${file}`}`);
  };
  /** package.json pinning coursesync, .gitignore keeping the install out; what must exist first. */
  const pin = async (ignored: readonly string[]) => {
    const install = await writePinnedInstall(repo.top, options.pinned, ignored);
    for (const file of install.written) out.result(`wrote ${file}`);
    return { pinned: options.pinned, install, branch: options.branch };
  };
  return { out, top: repo.top, options, schemas, pin };
}

/** `ci github` and `ci gitlab`: write the recipes for the tree's repository. */
function registerRecipes(ci: Command, run: CliRun): void {
  const recipe = (name: "github" | "gitlab", description: string) =>
    ci
      .command(name)
      .description(description)
      .option("--force", "write over the files if they exist")
      .option("--branch <name>", "the branch merges land on (default: the checked-out branch, else main)")
      .option("--cron <schedule>", "when the backup runs (cron syntax, UTC)", BACKUP_CRON)
      .option(
        "--from <spec>",
        `what package.json pins coursesync to: an exact version (default ${VERSION}, this one) or a tarball in the repository, file:vendor/coursesync-${VERSION}.tgz`,
      )
      .addHelpText("after", examplesText(EXAMPLES[name]));
  recipe(
    "github",
    "write GitHub Actions workflows: check pull requests, publish merges, back up daily",
  ).action(async (flags: RecipeFlags, command: Command) => {
    const { out, top, options, schemas, pin } = await prepareRecipe(run, flags, command);
    const files = githubWorkflows(options);
    await writeRecipes(top, files, Boolean(flags.force));
    for (const file of files) out.result(`wrote ${file.path}`);
    const first = await pin(["node_modules/"]);
    await schemas();
    for (const line of githubFirstRun(first)) out.info(line);
  });
  recipe(
    "gitlab",
    "write GitLab CI jobs: check merge requests, publish merges, back up on a schedule",
  ).action(async (flags: RecipeFlags, command: Command) => {
    const { out, top, options, schemas, pin } = await prepareRecipe(run, flags, command);
    const main = path.join(top, ".gitlab-ci.yml");
    // A pipeline of the project's own is left alone: our jobs go beside it, to be included.
    const theirs = existsSync(main) && !(await readFile(main, "utf8")).includes(GENERATED_MARK);
    const file = gitlabJobs(options, theirs ? ".gitlab/coursesync.gitlab-ci.yml" : ".gitlab-ci.yml");
    await writeRecipes(top, [file], Boolean(flags.force));
    out.result(`wrote ${file.path}`);
    const first = await pin(["node_modules/", ".npm/"]);
    await schemas();
    if (theirs) {
      out.result(
        `.gitlab-ci.yml is your own: add to it\n\ninclude:\n  - local: ${file.path}\n\n` +
          "(its jobs use the stages test and deploy).",
      );
    }
    for (const line of gitlabFirstRun(first)) out.info(line);
  });
}

interface JobFlags {
  branch?: string;
  remote: string;
  attempts: string;
  events?: boolean;
}

/** The global options to hand on to the command a job runs in this process. */
function forwarded(globals: GlobalOptions, root: string): string[] {
  return [
    "-C",
    root,
    ...(globals.site ? ["--site", globals.site] : []),
    ...(globals.url ? ["--url", globals.url] : []),
    ...(globals.verbose ? ["--verbose"] : []),
    ...(globals.quiet ? ["--quiet"] : []),
    "--no-progress",
  ];
}

/** The CLI itself, which a publish or backup job runs its push or pull through. */
export type RunCli = (argv: readonly string[], io: CliIO) => Promise<number>;

/** Run a publish or backup job from its flags. */
async function job(
  run: CliRun,
  runCli: RunCli,
  command: Command,
  flags: JobFlags,
  spec: {
    args: readonly string[];
    verdict: (code: number, snapshotChanged: boolean, held: readonly string[]) => Verdict;
    message: (site: string) => string;
  },
) {
  const attempts = Number(flags.attempts);
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw usageError(`--attempts ${flags.attempts}: give a whole number of 1 or more`);
  }
  const globals = globalsOf(command);
  const out = new Output(run, globals.quiet);
  const { tree, git, repo, rel } = await treeInRepo(run, globals);
  const site = resolveSite(tree.config, globals).name;
  // The records the command of the last attempt left waiting on a conflict (it says so once).
  let held: readonly string[] = [];
  await runJob(
    {
      git,
      treeRoot: tree.root,
      remote: flags.remote,
      branch: flags.branch,
      attempts,
      command: spec.args,
      runCommand: (args) => {
        held = [];
        return runCli([...forwarded(globals, tree.root), ...args], {
          ...run,
          onHeld: (paths) => {
            held = paths;
          },
        });
      },
      verdict: (code, snapshotChanged) => spec.verdict(code, snapshotChanged, held),
      snapshot: path
        .relative(tree.root, SiteState.open(tree.root, site).paths.snapshot)
        .split(path.sep)
        .join("/"),
      message: spec.message(site),
      env: run.env,
      say: (line) => out.info(`coursesync ci: ${line}`),
    },
    { rel, repo },
  );
}

/** The options publish and backup share. */
function jobCommand(ci: Command, name: "publish" | "backup", description: string): Command {
  return ci
    .command(name)
    .description(description)
    .addHelpText("after", examplesText(EXAMPLES[name]))
    .option("--branch <name>", "the branch to work on (default: the checked-out branch)")
    .option("--remote <name>", "the git remote to fetch from and push to", "origin")
    .addOption(
      new Option("--attempts <n>", "how often to start again when the branch moves before the push").default(
        "5",
      ),
    );
}

/** `coursesync ci github|gitlab|publish|backup` */
export function registerCi(program: Command, run: CliRun, runCli: RunCli): void {
  const ci = program
    .command("ci")
    .description(COMMAND_LIST.ci.description)
    .addHelpText("after", examplesText(EXAMPLES.ci));
  registerRecipes(ci, run);
  jobCommand(
    ci,
    "publish",
    "for CI: push --yes the tip of the branch, commit the ids and the snapshot back, push (retries a race)",
  ).action((flags: JobFlags, command: Command) =>
    job(run, runCli, command, flags, {
      args: ["push", "--yes"],
      verdict: (code, _changed, held) => publishVerdict(code, held),
      message: () => PUBLISH_MESSAGE,
    }),
  );
  jobCommand(
    ci,
    "backup",
    "for CI: pull the site into the tip of the branch and commit and push only what changed",
  )
    .option("--no-events", "do not archive the site's events in events.ndjson")
    .action((flags: JobFlags, command: Command) =>
      job(run, runCli, command, flags, {
        // No markers: a backup commits only files a push can send (see backupVerdict).
        args: ["pull", "--no-markers", ...(flags.events === false ? [] : ["--events"])],
        verdict: backupVerdict,
        message: backupMessage,
      }),
    );
}
