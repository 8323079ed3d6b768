import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { createTwoFilesPatch, diffLines } from "diff";
import { ExitCode, usageError } from "../errors.js";
import {
  chapterFileText,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
} from "../sync/entities.js";
import { planLocalChanges } from "../sync/local-plan.js";
import { baseTextsFor, buildLocalView, knownHashes, type LocalView } from "../sync/local-view.js";
import { siteView } from "../sync/push/restore.js";
import { remotePairs } from "../sync/remote-diff.js";
import { loadSnapshot, type Snapshot, statePaths } from "../sync/snapshot.js";
import { ContentCache } from "../sync/state/content-cache.js";
import { rekeyProvisional } from "../sync/state/provisional.js";
import type { BodyCodec } from "../tree/bodies.js";
import { bodyCodec } from "../tree/codecs.js";
import { abs } from "../tree/fs-ops.js";
import { courseFilePath } from "../tree/layout.js";
import { scanTree } from "../tree/scan.js";
import { StatCache } from "../tree/stat-cache.js";
import { guardedFs } from "../tree/tree-fs.js";
import { connect } from "./context.js";
import { globalsOf } from "./globals.js";
import { type Example, examplesText } from "./help.js";
import type { CliRun, GlobalOptions } from "./io.js";
import { Output } from "./output.js";
import { knownTreePaths } from "./paths.js";
import { recordName } from "./render/words.js";
import { siteSnapshot } from "./site-snapshot.js";
import { openTree, type TreeContext } from "./tree-root.js";

async function readOrEmpty(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return "";
  }
}

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

/** One file's change, however it is shown. */
interface FileDiff {
  /** The bold line above its patch, e.g. `chapter 1: update [title]`. */
  header: string;
  /** The file before (`/dev/null` when new) and after (`/dev/null` when deleted), tree paths. */
  oldName: string;
  newName: string;
  before: string;
  after: string;
  /** The last synced text is not in the local cache: no patch can be shown. */
  missingBase?: boolean;
  /** Against the site's current version (`site/` before the old name) rather than the last sync. */
  remote?: boolean;
}

interface DiffFlags {
  remote?: boolean;
  nameOnly?: boolean;
  stat?: boolean;
  exitCode?: boolean;
}

const NULL = "/dev/null";

/** The file a change is known by: the new path, or the old one for a delete. */
function shownName(d: FileDiff): string {
  return d.newName === NULL ? d.oldName : d.newName;
}

/** Lines added and removed between two texts. */
function lineCounts(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}

/** The widest +/- bar of `--stat`; longer ones are scaled down, as git does. */
const STAT_WIDTH = 40;

/** `diff --stat`: ` path | n +++--` per file, then `k files changed, a insertions(+), r deletions(-)`. */
function printStat(out: Output, diffs: readonly FileDiff[]): void {
  if (diffs.length === 0) return;
  const rows = diffs.map((d) => {
    const name =
      d.oldName !== NULL && d.newName !== NULL && d.oldName !== d.newName
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
    out.result(out.paint("bold", d.header));
    if (d.missingBase) {
      out.result(
        "  (the last synced body is not in the local cache, e.g. in a fresh clone; `coursesync pull` restores it)",
      );
      continue;
    }
    printPatch(
      out,
      d.oldName === NULL ? d.oldName : `${d.remote ? "site" : "a"}/${d.oldName}`,
      d.newName === NULL ? d.newName : `b/${d.newName}`,
      d.before,
      d.after,
    );
  }
}

/** `diff --remote`: each file against the site's current version of its record. */
async function remoteDiffs(
  run: CliRun,
  globals: GlobalOptions,
  tree: TreeContext,
  local: LocalView,
  cache: ContentCache,
  paths: readonly string[] | undefined,
): Promise<FileDiff[]> {
  const { client } = await connect(run, globals, tree.config);
  try {
    const bodies = bodyCodec(tree.config.body);
    const pairs = await remotePairs(tree.root, local, { bodies, client, cache, paths });
    return pairs.map((pair) => {
      const what =
        pair.here === "" ? "on the site, not here" : pair.site === "" ? "not on the site" : "differs";
      return {
        header: `${recordName(pair.kind, pair.id)}: ${what}`,
        oldName: pair.site === "" ? NULL : pair.path,
        newName: pair.here === "" ? NULL : pair.path,
        before: pair.site,
        after: pair.here,
        remote: true,
      };
    });
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
      let { snapshot } = opened;
      const state = statePaths(tree.root, site.name);
      const statCache = await new StatCache(
        path.join(state.cache, "stat.json"),
        Date.now,
        guardedFs(tree.root, run.fs),
      ).load();
      const scan = await scanTree(tree.root, {
        ignore: tree.config.ignore,
        knownHashes: knownHashes(snapshot),
        statCache,
      });
      for (const warning of scan.warnings) out.warn(warning);
      if (other)
        snapshot = rekeyProvisional(
          snapshot,
          scan,
          await loadSnapshot(tree.root, names.defaultSite),
        ).snapshot;
      const bodies = bodyCodec(tree.config.body);
      const cache = new ContentCache(state.cache);
      const scanned = buildLocalView(scan, snapshot, bodies, await baseTextsFor(scan, snapshot, cache));
      const local = other ? siteView(scanned, snapshot) : scanned;
      const scope = paths.length ? knownTreePaths(run, tree.root, paths, snapshot) : undefined;
      const diffs = flags.remote
        ? await remoteDiffs(run, globals, tree, local, cache, scope)
        : await localDiffs(snapshot, local, scope, cache, bodies, tree.root);
      if (flags.remote && diffs.length === 0 && !flags.nameOnly && !flags.stat) {
        out.result("No difference: the tree matches the site.");
      }
      printDiffs(out, diffs, flags);
      await statCache.save();
      if (flags.exitCode && diffs.length > 0) run.exitCode = Math.max(run.exitCode, ExitCode.failed);
    });
}

/** Each local change against the last sync. */
async function localDiffs(
  snapshot: Snapshot,
  local: LocalView,
  scope: readonly string[] | undefined,
  cache: ContentCache,
  bodies: BodyCodec,
  root: string,
): Promise<FileDiff[]> {
  const diffs: FileDiff[] = [];
  const changes = planLocalChanges(snapshot, local, scope);
  for (const { plan, path: where, from } of changes) {
    if (plan.toSite.type === "none" && !from) continue;
    const isCourse = plan.kind === "course";
    const file = isCourse ? courseFilePath(where) : where;
    const entry = plan.id === undefined ? undefined : snapshot[isCourse ? "courses" : "chapters"][plan.id];
    let before = "";
    let missingBase = false;
    if (entry) {
      if (isCourse) before = courseFileText(plan.id, courseValuesOfRecord(entry.record));
      else {
        const text = await cache.get(String(entry.record.content_sha256));
        if (text === undefined) missingBase = true;
        else before = chapterFileText(plan.id, chapterValuesOfRecord(entry.record, text), bodies);
      }
    }
    const after = plan.toSite.type === "delete" ? "" : await readOrEmpty(abs(root, file));
    const fields = plan.toSite.type === "update" ? ` [${plan.toSite.fields.join(", ")}]` : "";
    diffs.push({
      header: `${recordName(plan.kind, plan.id)}: ${plan.toSite.type === "none" ? "renamed" : plan.toSite.type}${fields}`,
      oldName: entry ? (isCourse ? courseFilePath(entry.path) : entry.path) : NULL,
      newName: plan.toSite.type === "delete" ? NULL : file,
      before,
      after,
      ...(missingBase ? { missingBase } : {}),
    });
  }
  return diffs;
}
