import { existsSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../../errors.js";
import { tempFileOwner } from "../../tree/fs-ops.js";
import { COURSES_DIR, SITE_FILE } from "./shards.js";
import { snapshotBase, snapshotIsLegacy } from "./snapshot.js";
import { SiteState } from "./workspace.js";

/** What a tree holds of one site's last sync, as `site list` shows it. */
export interface SiteSnapshotInfo {
  /** The snapshot's folder (or the single file of earlier versions), relative to the tree root. */
  file: string;
  /** When the snapshot was last written (mtimes: a fresh clone shows the checkout's time). */
  written_at: string;
  /** The site URL the snapshot was made for (push and pull refuse another). */
  url: string;
  courses: number;
  chapters: number;
}

/** The snapshot of a site: undefined when there is none; `problem` when it cannot be read. */
export async function snapshotInfo(
  root: string,
  site: string,
): Promise<{ snapshot?: SiteSnapshotInfo; problem?: string }> {
  const state = SiteState.open(root, site);
  const { paths } = state;
  const legacy = snapshotIsLegacy(root, site);
  const file = legacy ? paths.legacy : paths.snapshot;
  // A folder's course files are renamed into courses/: its time is that of the last save too.
  const times = await Promise.all(
    (legacy ? [file] : [path.join(file, SITE_FILE), path.join(file, COURSES_DIR)]).map((f) =>
      stat(f).then(
        (s) => s.mtimeMs,
        () => undefined,
      ),
    ),
  );
  if (times[0] === undefined) return {};
  const written = new Date(Math.max(...times.filter((t) => t !== undefined)));
  try {
    const snapshot = await state.loadSnapshot();
    if (!snapshot) return {};
    return {
      snapshot: {
        file: path.relative(root, file).split(path.sep).join("/"),
        written_at: written.toISOString(),
        url: snapshot.site,
        courses: Object.keys(snapshot.courses).length,
        chapters: Object.keys(snapshot.chapters).length,
      },
    };
  } catch (error) {
    if (error instanceof UserError) return { problem: error.message };
    throw error;
  }
}

/**
 * How many writes a push left in the site's journal that its snapshot does not hold yet (creates
 * in flight among them). A journal beside a snapshot that cannot be read counts as unfinished.
 */
export async function unfinishedWrites(root: string, site: string): Promise<number> {
  const state = SiteState.open(root, site);
  if (!state.hasJournal()) return 0;
  let base: string;
  try {
    base = snapshotBase(await state.loadSnapshot());
  } catch (error) {
    if (error instanceof UserError) return 1;
    throw error;
  }
  return (await state.journal(base).read()).length;
}

/**
 * The files a site keeps under .coursesync: snapshot, journal, cache, and the temp files a killed
 * run left of them. Its lock is taken and let go by the caller, which removes it.
 */
async function siteFiles(root: string, site: string): Promise<string[]> {
  const { paths } = SiteState.open(root, site);
  const own = new Set(
    [paths.snapshot, paths.legacy, paths.pending, paths.journal].map((f) => path.basename(f)),
  );
  const names = await readdir(paths.dir).catch(() => [] as string[]);
  // A temp file is `<file>.<pid>.<n>.tmp`: compare its whole target name, as site names hold dots.
  const mine = names.filter(
    (name) =>
      own.has(name) || (tempFileOwner(name) !== undefined && own.has(name.replace(/\.\d+\.\d+\.tmp$/, ""))),
  );
  return [
    ...mine.map((name) => path.join(paths.dir, name)),
    ...(existsSync(paths.cache) ? [paths.cache] : []),
  ];
}

/** Delete a site's state under .coursesync (never a file of the tree); returns what went, relative. */
export async function removeSiteState(root: string, site: string): Promise<string[]> {
  const files = await siteFiles(root, site);
  for (const file of files) await rm(file, { recursive: true, force: true });
  return files.map((file) => path.relative(root, file).split(path.sep).join("/"));
}
