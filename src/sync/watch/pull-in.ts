import { readFile } from "node:fs/promises";
import path from "node:path";
import { COURSES_DIR, recordFilePath } from "../../tree/layout.js";
import { sha256 } from "../../util/hash.js";
import type { Change } from "../model/report.js";
import type { SyncTarget } from "../model/target.js";
import { type Lister, pull } from "../pull/index.js";
import { namedRecords } from "../pull/named.js";
import { acquireLock } from "../state/lock.js";
import type { Snapshot } from "../state/snapshot-model.js";
import { SiteState } from "../state/workspace.js";
import type { RemoteWork } from "./remote.js";
import { filesBefore, guardSaves } from "./save-guard.js";

/** A change a pull brought in, and whether the file also keeps edits not yet sent. */
export interface PulledChange {
  change: Change;
  /** The file holds the site's change merged with edits of the author's, still to push. */
  merged: boolean;
}

/** What one pull of watch did. */
export interface PulledIn {
  changes: PulledChange[];
  /** Every change the pull reported (for the log of the files it wrote). */
  all: Change[];
}

/** What pulling needs besides the work. */
export interface PullInOptions extends SyncTarget {
  stamp?: (() => string | undefined) | undefined;
}

/**
 * Pull what a poll found (some course folders, or the whole site) under the site's lock, as
 * pull does it: a three-way merge into files with unsent edits, conflict markers only where
 * both sides changed the same lines. The snapshot moves with the files, in pull.
 */
export async function pullIn(options: PullInOptions, client: Lister, work: RemoteWork): Promise<PulledIn> {
  // Records are read one by one on the default site; another site's ids go through its map.
  if (work.kind === "records" && (options.idsSite ?? options.site) !== options.site)
    work = { kind: "full", why: "another site" };
  const release = await acquireLock(options.root, options.site, "watch");
  try {
    const folders = "folders" in work ? work.folders : [COURSES_DIR];
    const versions = await filesBefore(folders.map((folder) => path.join(options.root, folder)));
    const result = await pull(
      {
        root: options.root,
        site: options.site,
        siteUrl: options.siteUrl,
        idsSite: options.idsSite,
        ignore: options.ignore,
        bodies: options.bodies,
        // A save landing while the pull writes stops it before that file (see save-guard.ts).
        fs: guardSaves(versions, options.fs),
        stamp: options.stamp,
        paths: work.kind === "folders" ? work.folders : undefined,
        records: work.kind === "records" ? namedRecords(work.courses, work.chapters) : undefined,
      },
      client,
    );
    const changed = result.changes.filter((change) => change.outcome !== "unchanged");
    if (changed.length === 0) return { changes: [], all: result.changes };
    const snapshot = await SiteState.open(options.root, options.site, { fs: options.fs }).loadSnapshot();
    const changes: PulledChange[] = [];
    for (const change of changed)
      changes.push({ change, merged: await keepsEdits(options.root, snapshot, change) });
    return { changes, all: result.changes };
  } finally {
    await release();
  }
}

/** Whether the file of an updated record differs from the site's version the snapshot took. */
async function keepsEdits(root: string, snapshot: Snapshot | undefined, change: Change): Promise<boolean> {
  if (change.id === undefined || !(change.outcome === "updated" || change.outcome === "renamed"))
    return false;
  const entry = (change.kind === "course" ? snapshot?.courses : snapshot?.chapters)?.[String(change.id)];
  if (!entry) return false;
  try {
    const text = await readFile(path.join(root, recordFilePath(change.kind, entry.path)));
    return sha256(text) !== entry.hash;
  } catch {
    return false;
  }
}
