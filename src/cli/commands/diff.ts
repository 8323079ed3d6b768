import type { Command } from "commander";
import { createTwoFilesPatch } from "diff";
import { ExitCode, usageError } from "../../errors.js";
import { type FileDiff, lineCounts, localDiffs, NO_FILE, remoteDiffs } from "../../sync/diff.js";
import { openSiteLocal } from "../../sync/local/open.js";
import type { LocalView } from "../../sync/local/view.js";
import type { ContentCache } from "../../sync/state/content-cache.js";
import { bodyCodec } from "../../tree/codecs.js";
import { guardedFs } from "../../tree/tree-fs.js";
import { connect } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun, GlobalOptions } from "../io.js";
import { Output } from "../output.js";
import { knownTreePaths } from "../paths.js";
import { recordName } from "../render/words.js";
import { siteSnapshot } from "../site-snapshot.js";
import { openTree, type TreeContext } from "../tree-root.js";

/** A unified diff of two texts, coloured on a terminal. */
function printPatch(out: Output, oldName: string, newName: string, before: string, after: string): void {
  const patch = createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { context: 3 });
  for (const line of patch.split("\n").slice(1)) {
    if (line === "") continue;
    const style =
      line.startsWith("+") && !line.startsWith("+++")
        ? "green"
        : line.startsWith("-") && !line.startsWith("---")
          ? "red"
          : line.startsWith("@@")
            ? "cyan"
            : undefined;
    out.result(style ? out.paint(style, line) : line);
  }
}

interface DiffFlags {
  remote?: boolean;
  nameOnly?: boolean;
  stat?: boolean;
  exitCode?: boolean;
}

/** The file a change is known by: the new path, or the old one for a delete. */
function shownName(d: FileDiff): string {
  return d.newName === NO_FILE ? d.oldName : d.newName;
}

/** The widest +/- bar of `--stat`; longer ones are scaled down, as git does. */
const STAT_WIDTH = 40;

/** `diff --stat`: ` path | n +++--` per file, then `k files changed, a insertions(+), r deletions(-)`. */
function printStat(out: Output, diffs: readonly FileDiff[]): void {
  if (diffs.length === 0) return;
  const rows = diffs.map((d) => {
    const name =
      d.oldName !== NO_FILE && d.newName !== NO_FILE && d.oldName !== d.newName
        ? `${d.oldName} => ${d.newName}`
        : shownName(d);
    return { name, counts: d.missingBase ? undefined : lineCounts(d.before, d.after) };
  });
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const most = Math.max(0, ...rows.map((r) => (r.counts ? r.counts.added + r.counts.removed : 0)));
  const numberWidth = Math.max(
    1,
    ...rows.map((r) => String(r.counts ? r.counts.added + r.counts.removed : "?").length),
  );
  const scale = most > STAT_WIDTH ? STAT_WIDTH / most : 1;
  let added = 0;
  let removed = 0;
  for (const { name, counts } of rows) {
    if (!counts) {
      out.result(` ${name.padEnd(nameWidth)} | ${"?".padStart(numberWidth)}`);
      continue;
    }
    added += counts.added;
    removed += counts.removed;
    const total = counts.added + counts.removed;
    // Scaled down, a side that changed keeps at least one mark.
    const plus = counts.added ? Math.max(1, Math.round(counts.added * scale)) : 0;
    const minus = counts.removed ? Math.max(1, Math.round(counts.removed * scale)) : 0;
    const bar = `${out.paint("green", "+".repeat(plus))}${out.paint("red", "-".repeat(minus))}`;
    out.result(
      ` ${name.padEnd(nameWidth)} | ${String(total).padStart(numberWidth)}${total ? ` ${bar}` : ""}`,
    );
  }
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  out.result(
    [
      ` ${plural(rows.length, "file changed", "files changed")}`,
      ...(added ? [`${plural(added, "insertion(+)", "insertions(+)")}`] : []),
      ...(removed ? [`${plural(removed, "deletion(-)", "deletions(-)")}`] : []),
    ].join(", "),
  );
}

/** The diffs in the form the flags ask for. */
function printDiffs(out: Output, diffs: readonly FileDiff[], flags: DiffFlags): void {
  if (flags.nameOnly) {
    for (const d of diffs) out.result(shownName(d));
    return;
  }
  if (flags.stat) {
    printStat(out, diffs);
    return;
  }
  for (const d of diffs) {
    out.result(out.paint("bold", `${recordName(d.kind, d.id)}: ${d.what}`));
    if (d.missingBase) {
      out.result(
        "  (the last synced body is neither in the local cache nor in git, e.g. in a shallow clone; `coursesync pull` restores it)",
      );
      continue;
    }
    printPatch(
      out,
      d.oldName === NO_FILE ? d.oldName : `${d.remote ? "site" : "a"}/${d.oldName}`,
      d.newName === NO_FILE ? d.newName : `b/${d.newName}`,
      d.before,
      d.after,
    );
  }
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
    .description("show local changes as unified diffs against the last sync (offline)")
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
