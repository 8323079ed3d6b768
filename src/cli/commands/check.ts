import { execFile } from "node:child_process";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Command } from "commander";
import { resolveSite } from "../../config/config.js";
import { ExitCode, usageError } from "../../errors.js";
import { checkTree } from "../../sync/check.js";
import { loadSnapshot } from "../../sync/state/snapshot.js";
import { bodyCodec } from "../../tree/codecs.js";
import { COMMAND_LIST } from "../command-list.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { Output } from "../output.js";
import { knownTreePaths } from "../paths.js";
import type { CheckJson } from "../render/json-types.js";
import { githubProblems, humanProblems, problemRecords, problemSummary } from "../render/problems.js";
import { openTree } from "../tree-root.js";

const FORMATS = ["human", "github", "json"] as const;
type Format = (typeof FORMATS)[number];

/** The output format: --json, else --format, else github under GitHub Actions, else human. */
function formatOf(flags: { json?: boolean; format?: string }, run: CliRun): Format {
  if (flags.json) return "json";
  if (flags.format === undefined) return run.env.GITHUB_ACTIONS === "true" ? "github" : "human";
  if (!(FORMATS as readonly string[]).includes(flags.format)) {
    throw usageError(`--format "${flags.format}": use ${FORMATS.join(", ")}`);
  }
  return flags.format as Format;
}

/**
 * The tree's folder within its git repository, so annotations name files as the pull request
 * does: from `git rev-parse --show-toplevel` (right even when the checkout is in a subfolder
 * of the workspace), else GITHUB_WORKSPACE, else the tree is taken for the repository root.
 */
async function repositoryPrefix(root: string, run: CliRun): Promise<string> {
  const top = await promisify(execFile)("git", ["rev-parse", "--show-toplevel"], { cwd: root })
    .then(({ stdout }) => stdout.trim() || undefined)
    .catch(() => undefined);
  const base = top ?? run.env.GITHUB_WORKSPACE;
  if (!base) return "";
  const rel = path.relative(await realpath(base).catch(() => base), await realpath(root).catch(() => root));
  if (rel.startsWith("..") || path.isAbsolute(rel)) return "";
  return rel.split(path.sep).join("/");
}

const EXAMPLES: Example[] = [
  { does: "validate every file before a commit or a push", line: "coursesync check" },
  { does: "in a pull request's CI job: annotations on the lines", line: "coursesync check --format github" },
  { does: "one course, as JSON", line: "coursesync check courses/data-analysis-with-python --json" },
];

/** `coursesync check [paths...] [--json] [--format github]` */
export function registerCheck(program: Command, run: CliRun): void {
  program
    .command("check")
    .description(COMMAND_LIST.check.description)
    .argument("[paths...]", "report only on these files or folders (ids are compared across the tree)")
    .option("--json", "print one JSON document on stdout: {file, line, column, rule, message, hint} each")
    .option(
      "--format <format>",
      "human, github (::error workflow commands; the default when GITHUB_ACTIONS=true) or json",
    )
    .addHelpText(
      "after",
      "\nNo credentials, network or lock; writes nothing. Uses the committed snapshot, when there\n" +
        "is one, to leave the site's own values alone as push does. Exit 0: no problem; 1: problems.",
    )
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (paths: string[], flags: { json?: boolean; format?: string }, command: Command) => {
      const globals = globalsOf(command);
      const format = formatOf(flags, run);
      const out = new Output(run, globals.quiet || format === "json");
      const tree = await openTree(run, globals);
      const site = resolveSite(tree.config, globals);
      const given = paths.length
        ? knownTreePaths(run, tree.root, paths, await loadSnapshot(tree.root, site.name))
        : undefined;
      const result = await checkTree({
        root: tree.root,
        site: site.name,
        ignore: tree.config.ignore,
        bodies: bodyCodec(tree.config.body),
        limits: tree.config.limits,
        paths: given,
      });
      for (const warning of result.warnings) out.warn(warning);
      const records = problemRecords(result.problems);
      if (records.length > 0) run.exitCode = Math.max(run.exitCode, ExitCode.failed);
      if (format === "json") {
        out.json({
          command: "check",
          ok: records.length === 0,
          files_checked: result.files,
          snapshot: result.snapshot,
          problems: records,
        } satisfies CheckJson);
        return;
      }
      if (!result.snapshot) {
        out.info(
          `No snapshot for site "${site.name}": every value is checked, as for a new record (run \`coursesync pull\` to take the site's own values as they are).`,
        );
      }
      if (records.length > 0) {
        out.result(
          format === "github"
            ? githubProblems(records, await repositoryPrefix(tree.root, run))
            : `${humanProblems(records)}\n\n`,
        );
      }
      const checked = `${result.files} file${result.files === 1 ? "" : "s"} checked`;
      out.result(
        records.length > 0 ? `${problemSummary(records)} (${checked})` : `No problems (${checked}).`,
      );
    });
}
