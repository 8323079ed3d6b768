import type { Command } from "commander";
import { resolveSite } from "../../config/config.js";
import { ExitCode, usageError } from "../../errors.js";
import { changedSinceClean, prereadFolders } from "../../sync/local/unchanged.js";
import { cleanStamp } from "../../sync/state/clean-mark.js";
import { guardIdsSite } from "../../sync/state/ids-owner.js";
import { snapshotCoursesFolder } from "../../sync/state/snapshot.js";
import { SiteState } from "../../sync/state/workspace.js";
import type { StatusEntry } from "../../sync/status.js";
import { guardedFs } from "../../tree/tree-fs.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { Output } from "../output.js";
import { treePaths } from "../paths.js";
import { recordName } from "../render/words.js";
import { openTree } from "../tree-root.js";

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

/** The two-character codes of `status --short`, like `git status --short`. */
const SHORT_CODES: Record<StatusEntry["state"], string> = {
  modified: " M",
  new: "A ",
  deleted: " D",
  renamed: "R ",
  moved: "RM",
  conflict: "UU",
  invalid: "!!",
  untracked: "??",
};

/** Which state a path shows when it has several entries (an invalid file with many problems). */
const SHORT_RANK: readonly StatusEntry["state"][] = ["invalid", "conflict"];

/** A path as `--short` prints it: quoted like JSON when it holds a quote, backslash, control character or " -> ". */
function shortPath(p: string): string {
  return /[\u0000-\u001f\u007f"\\]/.test(p) || p.includes(" -> ") ? JSON.stringify(p) : p;
}

/** `status --short`: one line per path, a two-character code and the path (`old -> new` for a rename). */
export function shortLines(entries: readonly StatusEntry[]): string[] {
  const byPath = new Map<string, StatusEntry>();
  const rank = (e: StatusEntry) => {
    const at = SHORT_RANK.indexOf(e.state);
    return at === -1 ? SHORT_RANK.length : at;
  };
  for (const entry of entries) {
    const seen = byPath.get(entry.path);
    if (!seen || rank(entry) < rank(seen)) byPath.set(entry.path, entry);
  }
  return [...byPath.values()].map((e) => {
    const where = e.from ? `${shortPath(e.from)} -> ${shortPath(e.path)}` : shortPath(e.path);
    return `${SHORT_CODES[e.state]} ${where}`;
  });
}

/** One status line for people. */
function statusLine(entry: StatusEntry, out: Output): string {
  const detail = [
    entry.kind === "file" ? undefined : recordName(entry.kind, entry.id),
    entry.from ? `from ${entry.from}` : undefined,
    entry.fields?.length ? `[${entry.fields.join(", ")}]` : undefined,
    entry.copy ? `site's version: ${entry.copy}` : undefined,
    entry.message,
  ]
    .filter(Boolean)
    .join("; ");
  return `  ${out.paint(STYLE[entry.state], entry.state.padEnd(9))} ${entry.path}${detail ? `  (${detail})` : ""}`;
}

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
    .description("show local changes against the last sync (offline, fast)")
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
      if (flags.short) {
        if (interrupted) {
          out.warn(
            "a push was interrupted: `coursesync push` (or `pull`) finishes it; until then what it sent may show as pending",
          );
        }
        out.results(shortLines(entries));
      } else if (flags.json) {
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
