import type { Command } from "commander";
import { ExitCode, usageError } from "../../errors.js";
import { type FileDiff, localDiffs, remoteDiffs } from "../../sync/diff.js";
import { openSiteLocal } from "../../sync/local/open.js";
import type { LocalView } from "../../sync/local/view.js";
import type { ContentCache } from "../../sync/state/content-cache.js";
import { siteSnapshot } from "../../sync/state/site-snapshot.js";
import { bodyCodec } from "../../tree/codecs.js";
import { guardedFs } from "../../tree/tree-fs.js";
import { COMMAND_LIST } from "../command-list.js";
import { connect } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun, GlobalOptions } from "../io.js";
import { Output } from "../output.js";
import { knownTreePaths } from "../paths.js";
import { printDiffs } from "../render/diff.js";
import { openTree, type TreeContext } from "../tree-root.js";

interface DiffFlags {
  remote?: boolean;
  nameOnly?: boolean;
  stat?: boolean;
  exitCode?: boolean;
}

/** `diff --remote`: each file against the site's current version of its record. */
async function siteDiffs(
  run: CliRun,
  globals: GlobalOptions,
  tree: TreeContext,
  local: LocalView,
  cache: ContentCache,
  paths: readonly string[] | undefined,
): Promise<FileDiff[]> {
  const { client } = await connect(run, globals, tree.config);
  try {
    return await remoteDiffs(tree.root, local, { bodies: bodyCodec(tree.config.body), client, cache, paths });
  } finally {
    client.close();
  }
}

const EXAMPLES: Example[] = [
  { does: "your edits since the last sync, as unified diffs", line: "coursesync diff" },
  { does: "your files against the site as it is now", line: "coursesync diff --remote" },
  {
    does: "a line per changed file, for one course",
    line: "coursesync diff --stat courses/data-analysis-with-python",
  },
];

/** `coursesync diff [paths...]`: field changes and a unified diff of each file against the last sync. */
export function registerDiff(program: Command, run: CliRun): void {
  program
    .command("diff")
    .description(COMMAND_LIST.diff.description)
    .argument("[paths...]", "limit to these files or folders")
    .option("--remote", "compare with the site's current version instead (reads the site)")
    .option("--name-only", "print only the name of each changed file, one a line")
    .option("--stat", "print a line per file (path | lines changed +/-) and a summary line, like git")
    .option("--exit-code", "exit 1 when there are differences, 0 when there are none")
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (paths: string[], flags: DiffFlags, command: Command) => {
      const globals = globalsOf(command);
      if (flags.nameOnly && flags.stat) throw usageError("diff takes --name-only or --stat, not both");
      const out = new Output(run, globals.quiet);
      const tree = await openTree(run, globals);
      const { site, names, other, ...opened } = await siteSnapshot(tree, globals);
      const bodies = bodyCodec(tree.config.body);
      const { snapshot, local, statCache, cache } = await openSiteLocal(
        tree.root,
        site.name,
        opened.snapshot,
        {
          ignore: tree.config.ignore,
          bodies,
          fs: guardedFs(tree.root, run.fs),
          other: other ? names : undefined,
          onWarning: (warning) => out.warn(warning),
        },
      );
      const scope = paths.length ? knownTreePaths(run, tree.root, paths, snapshot) : undefined;
      const diffs = flags.remote
        ? await siteDiffs(run, globals, tree, local, cache, scope)
        : await localDiffs(tree.root, snapshot, local, { scope, cache, bodies });
      if (flags.remote && diffs.length === 0 && !flags.nameOnly && !flags.stat) {
        out.result("No difference: the tree matches the site.");
      }
      printDiffs(out, diffs, flags);
      await statCache.save();
      if (flags.exitCode && diffs.length > 0) run.exitCode = Math.max(run.exitCode, ExitCode.failed);
    });
}
