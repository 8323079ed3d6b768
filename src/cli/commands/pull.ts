import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { Option } from "commander";
import type { ApiClient } from "../../api/client.js";
import type { ResolvedSite } from "../../config/config.js";
import { ExitCode, InterruptedError, usageError } from "../../errors.js";
import { archiveEvents, EVENTS_FILE } from "../../sync/events.js";
import { FIX_INVALID_FILES, invalidFilesMessage } from "../../sync/guards.js";
import { type Change, countOutcomes, type Outcome } from "../../sync/model/report.js";
import type { PullResult } from "../../sync/pull/index.js";
import { startListing } from "../../sync/pull/listing.js";
import { cleanStamp } from "../../sync/state/clean-mark.js";
import { acquireLock } from "../../sync/state/lock.js";
import { courseFolderContaining } from "../../tree/layout.js";
import { counted } from "../../util/words.js";
import { COMMAND_LIST } from "../command-list.js";
import { connect, stopRequestsOnSignal, syncTarget } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun, GlobalOptions } from "../io.js";
import { Output } from "../output.js";
import { ignoreOption, maxDeleteFlag, onlyOption, type SelectionFlags, treePaths } from "../paths.js";
import { listingProgress } from "../progress.js";
import { conflictSummaryLines } from "../render/conflicts.js";
import type { PullJson } from "../render/json-types.js";
import {
  changeJson,
  changeLines,
  countsLine,
  listingMovedJson,
  listingMovedMessage,
  problemJson,
} from "../summary.js";
import { openTree, type TreeContext } from "../tree-root.js";

/** Pull works on whole course folders: a file stands for its folder; anything else is an error. */
function courseFolders(root: string, paths: readonly string[]): string[] {
  return paths.map((p) => {
    if (p === "." || p === "courses") return p;
    const folder = courseFolderContaining(p);
    if (folder === undefined) {
      throw usageError(`${p} is not a course folder`, "Give folders under courses/, e.g. courses/my-course.");
    }
    if (!existsSync(path.join(root, folder))) {
      throw usageError(
        `${folder}: no such course folder`,
        "Run `coursesync pull` without paths to fetch new courses.",
      );
    }
    return folder;
  });
}

interface PullFlags extends SelectionFlags {
  events?: boolean;
  dryRun?: boolean;
  theirs?: boolean;
  markers?: boolean;
  json?: boolean;
  maxDelete?: string;
}

const EXAMPLES: Example[] = [
  {
    does: "write the site's courses and chapters into the tree (only what changed)",
    line: "coursesync pull",
  },
  { does: "see what a pull would change, writing nothing", line: "coursesync pull --dry-run" },
  {
    does: "a backup (from cron, with COURSESYNC_TOKEN set): also archive the site's events",
    line: "coursesync pull --events",
  },
  {
    does: "only the intro courses, and none of the drafts in them",
    line: "coursesync pull --only 'courses/intro-*/**' --ignore '**/*draft*.md'",
  },
];

/** `coursesync pull [paths...]` */
export function registerPull(program: Command, run: CliRun): void {
  program
    .command("pull")
    .description(COMMAND_LIST.pull.description)
    .argument("[paths...]", "limit to these course folders")
    .option("-n, --dry-run", "print what would change; write nothing anywhere")
    .option("--theirs", "take the site's side of every conflict")
    .option(
      "--no-markers",
      "never write conflict markers into a file: the site's version of a body conflict goes beside it (ci backup)",
    )
    .option("--events", `also archive the site's events in ${EVENTS_FILE} (append-only, deduplicated)`)
    .option("--json", "print one JSON summary on stdout")
    .addOption(onlyOption("pull"))
    .addOption(ignoreOption())
    .addOption(
      new Option(
        "--max-delete <n>",
        "most local files the pull may delete (default: 10, or 25% of the site if lower)",
      ),
    )
    .addHelpText(
      "after",
      `
With --site <name> (a site of coursesync.yaml other than the default one), pull reads that site
through its snapshot's id map; records made there alone come in as files without an id line.
The first pull from a site that holds records and has no snapshot here maps them to the files
by content (courses by title, chapters by title and ordinal in their course): what is equal is
mapped, what differs is a conflict with the site's version written beside the file, and what
only the site has is pulled. Titles that do not pair one to one stop it (exit 3) and nothing is
written. It never creates or deletes anything on either side.

Once a pull or status has found the tree clean, the next pull reads only the course folders
whose files changed since and those the site's changes touch (-v says how many); removing
.coursesync/cache/<site>/stat.json makes it read the whole tree.`,
    )
    .addHelpText("after", examplesText(EXAMPLES))
    .action((paths: string[], flags: PullFlags, command: Command) => runPull(run, paths, flags, command));
}

/** `coursesync pull`: lock the site, pull it (and archive its events), report. */
async function runPull(run: CliRun, paths: string[], flags: PullFlags, command: Command): Promise<void> {
  run.boundHeap?.("listing");
  const globals = globalsOf(command);
  const out = new Output(run, globals.quiet || flags.json);
  const tree = await openTree(run, globals);
  const maxDelete = maxDeleteFlag(flags.maxDelete);
  const scope = paths.length ? courseFolders(tree.root, treePaths(run, tree.root, paths)) : undefined;
  const { site, client } = await connect(run, globals, tree.config);
  const release = flags.dryRun ? async () => {} : await acquireLock(tree.root, site.name, "pull");
  stopRequestsOnSignal(
    run,
    client,
    "interrupted while reading the site: nothing was changed",
    "Run `coursesync pull` again.",
  );
  const progress = listingProgress(run, globals);
  try {
    const result = await pullSite({ run, tree, site, client, progress, out }, flags, scope, maxDelete);
    const events = flags.events ? await archived(tree.root, client, flags.dryRun) : undefined;
    progress.stop();
    reportPull(run, out, globals, flags, { site, result, events });
  } finally {
    progress.stop();
    client.close();
    await release();
  }
}

/** What a pull of the site talks to and through. */
interface PullRun {
  run: CliRun;
  tree: TreeContext;
  site: ResolvedSite;
  client: ApiClient;
  progress: ReturnType<typeof listingProgress>;
  out: Output;
}

/** Start the lists, load pull while the first pages come, and pull. */
async function pullSite(
  { run, tree, site, client, progress, out }: PullRun,
  flags: PullFlags,
  scope: string[] | undefined,
  maxDelete: number | undefined,
): Promise<PullResult> {
  // The lists go out first; the rest of pull (the Markdown converter, the planner) loads
  // while the first pages are on their way.
  const listing = startListing(
    {
      root: tree.root,
      site: site.name,
      siteUrl: site.url,
      onPage: (list, page, count) => progress.page(list, page, count),
      onExpected: (list, records) => progress.expect(list, records),
    },
    client,
  );
  listing.catch(() => {});
  // The converter first, then the rest: each runs its modules' top-level code in a block of its
  // own, so the answers that come meanwhile wait for the shorter one (together they were one
  // block of 40-50 ms while the login was out).
  const target = await syncTarget(run, tree, site);
  const [{ pull }, { fileSelection }] = await Promise.all([
    import("../../sync/pull/index.js"),
    import("../../sync/selection.js"),
  ]);
  return pull(
    {
      ...target,
      listing,
      paths: scope,
      select: fileSelection(flags.only ?? [], flags.ignore ?? []),
      dryRun: flags.dryRun,
      theirs: flags.theirs,
      markers: flags.markers,
      maxDelete,
      onNote: (line) => out.info(line),
      onWarning: (message) => out.warn(message),
      onListed: run.boundHeap && (() => run.boundHeap?.("writing")),
      onStep: run.onProgress && ((step) => run.onProgress?.({ type: "step", step })),
      // Another site's verdict would rest on the default site's snapshot too: none.
      stamp: site.name === tree.config.ids ? () => cleanStamp(tree, site) : undefined,
      now: run.now,
    },
    client,
  );
}

/** Archive the site's events after the pull; an interruption says the pull itself is done. */
function archived(root: string, client: ApiClient, dryRun: boolean | undefined) {
  return archiveEvents(root, client, { dryRun }).catch((error: unknown) => {
    if (!(error instanceof InterruptedError)) throw error;
    throw new InterruptedError(
      error.signal,
      "interrupted: the pull is done, but the events were not archived",
      "Run `coursesync pull --events` again.",
    );
  });
}

/** What a pull reports on. */
interface Pulled {
  site: ResolvedSite;
  result: PullResult;
  events: Awaited<ReturnType<typeof archiveEvents>> | undefined;
}

/** Say what the pull did (as JSON, or lines for people), and set the exit code. */
function reportPull(
  run: CliRun,
  out: Output,
  globals: GlobalOptions,
  flags: PullFlags,
  pulled: Pulled,
): void {
  const { result } = pulled;
  if (globals.verbose && result.stagingStopped) {
    out.info(
      `staging: stopped while the listing arrived (${result.stagingStopped}); the rest of the files were written after it`,
    );
  }
  if (globals.verbose && result.foldersRead) {
    const { read, of } = result.foldersRead;
    out.info(
      `tree: read ${read} of ${of} course folder${of === 1 ? "" : "s"}; the stat cache vouches for the rest (as the last pull or status left them)`,
    );
  }
  const conflicts = result.changes.filter((c) => c.outcome === "conflict");
  if (flags.json) out.json(pullJson(pulled, conflicts));
  else if (!globals.quiet) summarize(out, pulled, conflicts);
  pullExit(run, result, conflicts);
}

/** The --json summary of a pull. */
function pullJson({ site, result, events }: Pulled, conflicts: readonly Change[]): PullJson {
  return {
    command: "pull",
    site: site.url,
    dry_run: result.dryRun,
    snapshot_missing: result.snapshotMissing,
    remote: result.counts,
    requests: result.requests,
    files_written: result.filesWritten,
    ...(events ? { events } : {}),
    counts: pullCounts(result),
    changes: result.changes.filter((c) => c.outcome !== "unchanged").map(changeJson),
    conflicts: conflicts.map(changeJson),
    invalid: result.invalid.map(problemJson),
    listing_moved: listingMovedJson(result.listingMoved),
    errors: [],
  };
}

/** The lines for people: each change, the totals, the events, the conflicts. */
function summarize(out: Output, { result, events }: Pulled, conflicts: readonly Change[]): void {
  out.results(changeLines(result.changes, out));
  const verb = result.dryRun ? "would write" : "wrote";
  out.result(
    `${result.dryRun ? "Dry run: " : ""}pulled ${counted(result.counts.courses, "course")} and ${counted(result.counts.chapters, "chapter")} ` +
      `in ${counted(result.requests, "request")}; ${countsLine(result.changes)}; ${verb} ${counted(result.filesWritten, "file")}` +
      (result.filesWritten === 0 &&
      !result.dryRun &&
      !result.invalid.length &&
      !result.snapshotWritten &&
      !events?.added
        ? " (already up to date)"
        : ""),
  );
  if (events) {
    out.result(
      `events: ${events.added} new ${result.dryRun ? "to archive" : "archived"} in ${EVENTS_FILE} (${events.known} already there; ${counted(events.pages, "page")} read)`,
    );
  }
  for (const line of conflictSummaryLines(conflicts, !result.dryRun)) out.result(line);
}

/** Invalid files and a moved listing are said like errors; the exit code says what waits. */
function pullExit(run: CliRun, result: PullResult, conflicts: readonly Change[]): void {
  if (result.invalid.length) {
    // Said like an error (also with --quiet or --json): a scheduled pull must not hide it.
    const left = result.dryRun
      ? "they would be left as they are, the rest pulled"
      : "they were left as they are, the rest was pulled";
    run.stderr.write(`coursesync: ${invalidFilesMessage(result.invalid, left)}\n${FIX_INVALID_FILES}\n`);
    run.exitCode = Math.max(run.exitCode, ExitCode.failed);
  }
  if (result.listingMoved) {
    // Said like an error too: a scheduled pull must not take it for a whole backup.
    const { message, hint } = listingMovedMessage(result.listingMoved, result.dryRun);
    run.stderr.write(`coursesync: ${message}\n${hint}\n`);
    run.exitCode = Math.max(run.exitCode, ExitCode.failed);
  }
  // A dry run exits as the real run would. Conflicts (3) outrank invalid files (1): both
  // need a person, and 3 says a merge waits.
  if (conflicts.length) run.exitCode = Math.max(run.exitCode, ExitCode.stopped);
  run.onHeld?.(conflicts.map((c) => c.path));
}

/**
 * The outcomes of a pull by record: the planner names only what changed, so every other record
 * the site listed is counted as unchanged.
 */
function pullCounts(result: PullResult): Record<Outcome, number> {
  const counts = countOutcomes(result.changes);
  const touched = new Set(
    result.changes
      .filter((c) => c.id !== undefined && c.outcome !== "deleted")
      .map((c) => `${c.kind}:${c.id}`),
  );
  counts.unchanged = Math.max(0, result.counts.courses + result.counts.chapters - touched.size);
  return counts;
}
