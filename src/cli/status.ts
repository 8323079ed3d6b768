import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { ExitCode } from "../errors.js";
import { ContentCache, statePaths } from "../sync/snapshot.js";
import { type StatusEntry, treeStatus } from "../sync/status.js";
import { bodyCodec } from "../tree/codecs.js";
import { StatCache } from "../tree/stat-cache.js";
import { guardedFs } from "../tree/tree-fs.js";
import { openTree } from "./context.js";
import { globalsOf } from "./globals.js";
import type { CliRun } from "./io.js";
import { Output } from "./output.js";
import { knownTreePaths } from "./paths.js";
import { siteSnapshot } from "./site-snapshot.js";

const STYLE = {
  new: "green",
  modified: "yellow",
  moved: "cyan",
  renamed: "cyan",
  deleted: "red",
  conflict: "magenta",
  invalid: "red",
  untracked: "gray",
} as const;

/** One status line for people. */
export function statusLine(entry: StatusEntry, out: Output): string {
  const detail = [
    entry.kind === "file" ? undefined : `${entry.kind} ${entry.id ?? "(new)"}`,
    entry.from ? `from ${entry.from}` : undefined,
    entry.fields?.length ? `[${entry.fields.join(", ")}]` : undefined,
    entry.copy ? `site's version: ${entry.copy}` : undefined,
    entry.message,
  ]
    .filter(Boolean)
    .join("; ");
  return `  ${out.paint(STYLE[entry.state], entry.state.padEnd(9))} ${entry.path}${detail ? `  (${detail})` : ""}`;
}

/** `coursesync status [paths...]` */
export function registerStatus(program: Command, run: CliRun): void {
  program
    .command("status")
    .description("show local changes against the last sync (offline, fast)")
    .argument("[paths...]", "limit to these files or folders")
    .option("--json", "print one JSON document on stdout")
    .option("--exit-code", "exit 1 when anything is pending")
    .action(async (paths: string[], flags: { json?: boolean; exitCode?: boolean }, command: Command) => {
      const globals = globalsOf(command);
      const out = new Output(run, globals.quiet || flags.json);
      const tree = await openTree(run, globals);
      const { site, snapshot, names, other } = await siteSnapshot(tree, globals);
      const statCache = await new StatCache(
        path.join(statePaths(tree.root, site.name).cache, "stat.json"),
        Date.now,
        guardedFs(tree.root, run.fs),
      ).load();
      const entries = await treeStatus({
        root: tree.root,
        snapshot,
        ignore: tree.config.ignore,
        bodies: bodyCodec(tree.config.body),
        paths: paths.length ? knownTreePaths(run, tree.root, paths, snapshot) : undefined,
        statCache,
        cache: new ContentCache(statePaths(tree.root, site.name).cache),
        limits: tree.config.limits,
        onWarning: (message) => out.warn(message),
        site: other ? names : undefined,
      });
      await statCache.save();
      // A push killed part-way: status reads the last sync alone, so what it sent may show here
      // as pending until the next push or pull folds its journal in.
      const interrupted = existsSync(statePaths(tree.root, site.name).journal);
      if (flags.json) {
        out.json({
          command: "status",
          site: site.url,
          clean: entries.length === 0,
          interrupted_push: interrupted,
          entries,
        });
      } else {
        out.result(`Site "${site.name}" (${site.url})`);
        if (interrupted) {
          out.result(
            "A push was interrupted: `coursesync push` (or `pull`) finishes it; until then what it sent may show as pending.",
          );
        }
        if (entries.length === 0) out.result("Nothing to push: the tree matches the last sync.");
        for (const entry of entries) out.result(statusLine(entry, out));
        if (entries.length) {
          const invalid = new Set(entries.filter((e) => e.state === "invalid").map((e) => e.path)).size;
          out.result(
            `${entries.length} pending` +
              (invalid
                ? `; ${invalid} invalid file${invalid === 1 ? "" : "s"} must be fixed before a push`
                : "") +
              ". `coursesync diff` shows the changes; `coursesync push` sends them.",
          );
        }
      }
      if (flags.exitCode && entries.length > 0) run.exitCode = Math.max(run.exitCode, ExitCode.failed);
    });
}
