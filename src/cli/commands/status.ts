import type { Command } from "commander";
import { resolveSite } from "../../config/config.js";
import { ExitCode, usageError } from "../../errors.js";
import { changedSinceClean, prereadFolders } from "../../sync/local/unchanged.js";
import { cleanStamp } from "../../sync/state/clean-mark.js";
import { guardIdsSite } from "../../sync/state/ids-owner.js";
import { snapshotCoursesFolder } from "../../sync/state/snapshot.js";
import { SiteState } from "../../sync/state/workspace.js";
import { guardedFs } from "../../tree/tree-fs.js";
import { COMMAND_LIST } from "../command-list.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { Output } from "../output.js";
import { treePaths } from "../paths.js";
import { renderStatus } from "../render/status.js";
import { openTree } from "../tree-root.js";

interface StatusFlags {
  json?: boolean;
  exitCode?: boolean;
  short?: boolean;
}

const EXAMPLES: Example[] = [
  { does: "what is pending against the last sync", line: "coursesync status" },
  { does: "one line a path, as git status --short", line: "coursesync status -s" },
  { does: "in a script: exit 1 when anything is pending", line: "coursesync status --exit-code" },
];

/** `coursesync status [paths...]` */
export function registerStatus(program: Command, run: CliRun): void {
  program
    .command("status")
    .description(COMMAND_LIST.status.description)
    .argument("[paths...]", "limit to these files or folders")
    .option("--json", "print one JSON document on stdout")
    .option("--exit-code", "exit 1 when anything is pending")
    .option("-s, --short", "one line per path: a two-character code and the path (see below)")
    .addHelpText(
      "after",
      `
Codes of --short (stable for scripts; nothing else is printed on stdout):
  " M" modified    "A " new         " D" deleted     "R " renamed (old -> new)
  "RM" moved to another course (old -> new)          "UU" conflict
  "!!" invalid (must be fixed before a push)         "??" untracked (an id the last sync does not know)
A path holding a quote, backslash, control character or " -> " is printed as a JSON string.`,
    )
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (paths: string[], flags: StatusFlags, command: Command) => {
      const globals = globalsOf(command);
      if (flags.json && flags.short) throw usageError("status takes --json or --short, not both");
      const out = new Output(run, globals.quiet || flags.json || flags.short);
      const tree = await openTree(run, globals);
      const site = resolveSite(tree.config, globals);
      await guardIdsSite(tree.root, Object.keys(tree.config.sites), tree.config.ids);
      // Another site's status also reads the ids' site's snapshot: it always takes the long way.
      const fast = site.name === tree.config.ids;
      // A walk of the whole tree starts its second thread now, so that its start-up overlaps
      // loading the stat cache; that thread also stats the snapshot's files for the stamp.
      const snapshotCourses = snapshotCoursesFolder(site.name);
      const state = SiteState.open(tree.root, site.name, { fs: guardedFs(tree.root, run.fs), now: run.now });
      const preread =
        fast && paths.length === 0 && state.hasStatCache()
          ? prereadFolders(tree.root, { first: [snapshotCourses] })
          : undefined;
      const statCache = state.loadStatCache();
      const stamp = !fast
        ? undefined
        : preread
          ? preread.first.then((read) => cleanStamp(tree, site, read?.get(snapshotCourses)))
          : cleanStamp(tree, site);
      const rels = paths.length ? treePaths(run, tree.root, paths) : undefined;
      const changed = await changedSinceClean(tree.root, statCache, stamp, tree.config.ignore, rels, {
        preread,
      });
      preread?.stop();
      const entries =
        changed?.size === 0
          ? []
          : await (await import("./status-full.js")).fullStatus({
              run,
              globals,
              tree,
              paths,
              state,
              stamp: await stamp,
              folders: changed,
              warn: (message) => out.warn(message),
            });
      await statCache.save();
      // A push killed part-way: status reads the last sync alone, so what it sent may show here
      // as pending until the next push or pull folds its journal in.
      const interrupted = state.hasJournal();
      renderStatus(out, site, entries, interrupted, flags.short ? "short" : flags.json ? "json" : "human");
      if (flags.exitCode && entries.length > 0) run.exitCode = Math.max(run.exitCode, ExitCode.failed);
    });
}
