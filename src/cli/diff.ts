import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { createTwoFilesPatch } from "diff";
import { resolveSite } from "../config/config.js";
import {
  chapterFileText,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
} from "../sync/entities.js";
import { courseFileOf, planLocalChanges } from "../sync/local-plan.js";
import { baseTextsFor, buildLocalView, knownHashes } from "../sync/local-view.js";
import { ContentCache, statePaths } from "../sync/snapshot.js";
import { bodyCodec } from "../tree/codecs.js";
import { abs } from "../tree/fs-ops.js";
import { scanTree } from "../tree/scan.js";
import { StatCache } from "../tree/stat-cache.js";
import { guardedFs } from "../tree/tree-fs.js";
import { openTree } from "./context.js";
import type { CliRun } from "./io.js";
import { globalsOf } from "./main.js";
import { Output } from "./output.js";
import { knownTreePaths } from "./paths.js";
import { requireSnapshot } from "./status.js";

async function readOrEmpty(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return "";
  }
}

/** `coursesync diff [paths...]`: field changes and a unified diff of each file against the last sync. */
export function registerDiff(program: Command, run: CliRun): void {
  program
    .command("diff")
    .description("show local changes as unified diffs against the last sync (offline)")
    .argument("[paths...]", "limit to these files or folders")
    .action(async (paths: string[], _flags: unknown, command: Command) => {
      const globals = globalsOf(command);
      const out = new Output(run, globals.quiet);
      const tree = await openTree(run, globals);
      const site = resolveSite(tree.config, globals);
      const snapshot = await requireSnapshot(tree.root, site.name);
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
      const bodies = bodyCodec(tree.config.body);
      const cache = new ContentCache(state.cache);
      const local = buildLocalView(scan, snapshot, bodies, await baseTextsFor(scan, snapshot, cache));
      const changes = planLocalChanges(
        snapshot,
        local,
        paths.length ? knownTreePaths(run, tree.root, paths, snapshot) : undefined,
      );
      for (const { plan, path: where, from } of changes) {
        if (plan.remote.type === "none" && !from) continue;
        const isCourse = plan.kind === "course";
        const file = isCourse ? courseFileOf(where) : where;
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
        const oldName = entry ? (isCourse ? courseFileOf(entry.path) : entry.path) : "/dev/null";
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
        const patch = createTwoFilesPatch(
          oldName === "/dev/null" ? oldName : `a/${oldName}`,
          newName === "/dev/null" ? newName : `b/${newName}`,
          before,
          after,
          undefined,
          undefined,
          { context: 3 },
        );
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
      await statCache.save();
    });
}
