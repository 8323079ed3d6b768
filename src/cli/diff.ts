import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { createTwoFilesPatch } from "diff";
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
import { ContentCache, loadSnapshot, statePaths } from "../sync/snapshot.js";
import { rekeyProvisional } from "../sync/state/provisional.js";
import { bodyCodec } from "../tree/codecs.js";
import { abs } from "../tree/fs-ops.js";
import { courseFilePath } from "../tree/layout.js";
import { scanTree } from "../tree/scan.js";
import { StatCache } from "../tree/stat-cache.js";
import { guardedFs } from "../tree/tree-fs.js";
import { connect, openTree, type TreeContext } from "./context.js";
import { globalsOf } from "./globals.js";
import type { CliRun, GlobalOptions } from "./io.js";
import { Output } from "./output.js";
import { knownTreePaths } from "./paths.js";
import { siteSnapshot } from "./site-snapshot.js";

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

/** `diff --remote`: each file against the site's current version of its record. */
async function printRemoteDiff(
  run: CliRun,
  globals: GlobalOptions,
  tree: TreeContext,
  local: LocalView,
  cache: ContentCache,
  paths: readonly string[] | undefined,
  out: Output,
): Promise<void> {
  const { client } = await connect(run, globals, tree.config);
  try {
    const bodies = bodyCodec(tree.config.body);
    const pairs = await remotePairs(tree.root, local, { bodies, client, cache, paths });
    if (pairs.length === 0) out.result("No difference: the tree matches the site.");
    for (const pair of pairs) {
      const what =
        pair.here === "" ? "on the site, not here" : pair.site === "" ? "not on the site" : "differs";
      out.result(out.paint("bold", `${pair.kind} ${pair.id ?? "(new)"}: ${what}`));
      const siteName = pair.site === "" ? "/dev/null" : `site/${pair.path}`;
      const hereName = pair.here === "" ? "/dev/null" : `b/${pair.path}`;
      printPatch(out, siteName, hereName, pair.site, pair.here);
    }
  } finally {
    client.close();
  }
}

/** `coursesync diff [paths...]`: field changes and a unified diff of each file against the last sync. */
export function registerDiff(program: Command, run: CliRun): void {
  program
    .command("diff")
    .description("show local changes as unified diffs against the last sync (offline)")
    .argument("[paths...]", "limit to these files or folders")
    .option("--remote", "compare with the site's current version instead (reads the site)")
    .action(async (paths: string[], flags: { remote?: boolean }, command: Command) => {
      const globals = globalsOf(command);
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
      if (flags.remote) {
        await printRemoteDiff(run, globals, tree, local, cache, scope, out);
        await statCache.save();
        return;
      }
      const changes = planLocalChanges(snapshot, local, scope);
      for (const { plan, path: where, from } of changes) {
        if (plan.remote.type === "none" && !from) continue;
        const isCourse = plan.kind === "course";
        const file = isCourse ? courseFilePath(where) : where;
        const entry =
          plan.id === undefined ? undefined : snapshot[isCourse ? "courses" : "chapters"][plan.id];
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
        const after = plan.remote.type === "delete" ? "" : await readOrEmpty(abs(tree.root, file));
        const oldName = entry ? (isCourse ? courseFilePath(entry.path) : entry.path) : "/dev/null";
        const newName = plan.remote.type === "delete" ? "/dev/null" : file;
        const fields = plan.remote.type === "update" ? ` [${plan.remote.fields.join(", ")}]` : "";
        out.result(
          out.paint(
            "bold",
            `${plan.kind} ${plan.id ?? "(new)"}: ${plan.remote.type === "none" ? "renamed" : plan.remote.type}${fields}`,
          ),
        );
        if (missingBase) {
          out.result(
            "  (the last synced body is not in the local cache, e.g. in a fresh clone; `coursesync pull` restores it)",
          );
          continue;
        }
        printPatch(
          out,
          oldName === "/dev/null" ? oldName : `a/${oldName}`,
          newName === "/dev/null" ? newName : `b/${newName}`,
          before,
          after,
        );
      }
      await statCache.save();
    });
}
