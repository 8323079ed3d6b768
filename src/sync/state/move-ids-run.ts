import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { ExitCode, UserError } from "../../errors.js";
import { atomicWrite, writeTreeFile } from "../../tree/fs-ops.js";
import { scanTree } from "../../tree/scan.js";
import { guardedFs } from "../../tree/tree-fs.js";
import { unignoreFolders } from "./git-files.js";
import { type IdFile, planIdMove } from "./move-ids.js";
import { journalFile, type MoveJournal, moveDir, readJournal } from "./move-ids-journal.js";
import { statCachePath, statePaths } from "./paths.js";
import { withId } from "./recovery.js";
import { splitSnapshot } from "./shards.js";
import { loadSnapshot } from "./snapshot.js";
import { writeFolder } from "./snapshot-folder.js";
import type { Snapshot } from "./snapshot-model.js";

// `coursesync site move-ids <to>`, on disk. Crash-safe and all-or-nothing: every site's new
// snapshot is first written beside the old ones (under the uncommitted cache); then the move's
// journal is written, which is the point of no return; then each snapshot folder is swapped in,
// each file's id line rewritten, and coursesync.yaml's `ids:` set. A run killed after the
// journal is finished by the next `site move-ids`; one killed before it leaves nothing changed.

/** The snapshot folder paths of a site's staged new snapshot. */
function stagedPaths(root: string, site: string) {
  const dir = moveDir(root);
  return {
    root,
    folder: path.join(dir, site),
    legacy: path.join(dir, `${site}.json`),
    pending: path.join(dir, `${site}.pending`),
  };
}

/** Every record file of the tree with an id, read; problems that hide an id stop the move. */
async function filesWithIds(root: string, ignore: readonly string[]): Promise<IdFile[]> {
  const scan = await scanTree(root, { ignore, parseAll: true });
  if (scan.problems.length > 0) {
    throw new UserError(
      `site move-ids reads every file's id, and ${scan.problems.length} file(s) cannot be read; nothing was changed:\n${scan.problems.map((p) => `  ${p.message}`).join("\n")}`,
      {
        hint: "Fix them (coursesync check lists the same), then run site move-ids again.",
        exitCode: ExitCode.failed,
      },
    );
  }
  const found: Array<Omit<IdFile, "text">> = [];
  for (const course of scan.courses)
    if (course.file && course.parsed?.id !== undefined)
      found.push({ path: course.file, kind: "course", id: course.parsed.id });
  for (const chapter of scan.chapters)
    if (chapter.parsed?.id !== undefined)
      found.push({ path: chapter.file, kind: "chapter", id: chapter.parsed.id });
  return Promise.all(
    found.map(async (file) => ({ ...file, text: await readFile(path.join(root, file.path), "utf8") })),
  );
}

/** What `moveIds` is told: the tree, the sites, and how to record the new `ids:` site. */
export interface MoveIdsOptions {
  root: string;
  from: string;
  to: string;
  sites: readonly string[];
  ignore: readonly string[];
  dryRun?: boolean;
  /** Write `ids: <to>` into coursesync.yaml (the last step before the journal goes). */
  setIds(site: string): Promise<void>;
  /** Told after each step that wrote something (a seam for the crash-replay tests). */
  onStep?: ((step: string) => void) | undefined;
}

/** What a move did (or, for a dry run, would do). */
export interface MoveIdsResult {
  files: number;
  sites: string[];
  /** A move cut short by a kill was finished rather than planned. */
  resumed: boolean;
}

/** Move the files' ids from one site to another: decided whole, then applied crash-safely. */
export async function moveIds(options: MoveIdsOptions): Promise<MoveIdsResult> {
  const { root, from, to } = options;
  const earlier = await readJournal(root);
  if (earlier) {
    if (earlier.to !== to)
      throw new UserError(`a site move-ids to "${earlier.to}" was cut short; nothing else was changed`, {
        hint: `Finish it first: coursesync site move-ids ${earlier.to}`,
        exitCode: ExitCode.usage,
      });
    if (!options.dryRun) await finishMove(root, earlier, options);
    return { files: earlier.files.length, sites: earlier.sites, resumed: true };
  }
  // A run killed before its journal left only staged copies: they are dropped.
  await rm(moveDir(root), { recursive: true, force: true });
  const snapshots = new Map<string, Snapshot>();
  for (const site of options.sites) {
    const loaded = await loadSnapshot(root, site);
    if (loaded) snapshots.set(site, loaded);
  }
  const files = await filesWithIds(root, options.ignore);
  const plan = planIdMove({ from, to, snapshots, files });
  if (plan.problems.length > 0) {
    throw new UserError(
      `the ids cannot all move from "${from}" to "${to}"; nothing was changed:\n${plan.problems.map((line) => `  ${line}`).join("\n")}`,
      {
        hint: `Every record must be on "${to}" and known to both sites' snapshots: sync them (coursesync push --site ${to}, then pull --site ${to}) and run again.`,
        exitCode: ExitCode.stopped,
      },
    );
  }
  const sites = [...plan.snapshots.keys()].sort();
  if (options.dryRun) return { files: plan.files.length, sites, resumed: false };
  const fs = guardedFs(root);
  for (const [site, snapshot] of plan.snapshots) {
    await writeFolder(stagedPaths(root, site), splitSnapshot(snapshot), fs);
    options.onStep?.(`staged ${site}`);
  }
  const journal: MoveJournal = { from, to, sites, files: plan.files };
  await atomicWrite(journalFile(root), JSON.stringify(journal), { fs, flush: true });
  options.onStep?.("journal");
  await finishMove(root, journal, options);
  return { files: plan.files.length, sites, resumed: false };
}

/** Put a staged snapshot in the place of the site's own; each step can be run again. */
async function swapIn(root: string, site: string): Promise<void> {
  const staged = stagedPaths(root, site).folder;
  const live = statePaths(root, site);
  const old = `${staged}.old`;
  if (existsSync(staged)) {
    if (existsSync(live.snapshot) && !existsSync(old)) await rename(live.snapshot, old);
    if (!existsSync(live.snapshot)) await rename(staged, live.snapshot);
  }
  await rm(old, { recursive: true, force: true });
  await rm(live.legacy, { force: true });
  await rm(live.pending, { force: true });
  // The stat cache's hashes and clean mark describe the files before their ids changed.
  await rm(statCachePath(root, site), { force: true });
}

/** The steps after the journal: snapshots swapped in, files rewritten, `ids:` set, journal gone. */
async function finishMove(
  root: string,
  journal: MoveJournal,
  options: Pick<MoveIdsOptions, "setIds" | "onStep">,
): Promise<void> {
  await mkdir(moveDir(root), { recursive: true });
  for (const site of journal.sites) {
    await swapIn(root, site);
    options.onStep?.(`swapped ${site}`);
  }
  for (const file of journal.files) {
    const text = await readFile(path.join(root, file.path), "utf8").catch(() => undefined);
    if (text === undefined) continue;
    const next = withId(text, file.to, file.kind);
    if (next === text) continue;
    await writeTreeFile(root, file.path, next);
    options.onStep?.(`file ${file.path}`);
  }
  await unignoreFolders(root);
  await options.setIds(journal.to);
  options.onStep?.("ids set");
  await rm(moveDir(root), { recursive: true, force: true });
}
