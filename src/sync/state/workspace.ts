import { existsSync } from "node:fs";
import { StatCache } from "../../tree/stat-cache.js";
import { guardedFs, nodeFs, type TreeFs } from "../../tree/tree-fs.js";
import { jsonEqual } from "../reconcile.js";
import { ContentCache } from "./content-cache.js";
import { Journal } from "./journal.js";
import { type SitePaths, statCachePath, statePaths, stateTemps } from "./paths.js";
import { loadSnapshot, saveSnapshot, snapshotUnsettled } from "./snapshot.js";
import type { Snapshot } from "./snapshot-model.js";

// One site's state under `.coursesync/<site>`: opened once by a run, committed once at its end.

/** How a site's state is opened. */
export interface SiteStateOptions {
  /** The file system the state's files are written through. @default Node's */
  fs?: TreeFs | undefined;
  /** The clock the stat cache's racy-file rule reads. @default Date.now */
  now?: (() => number) | undefined;
}

/** What a run that went well leaves of the state. */
export interface StateCommit {
  /** The snapshot as the run loaded it (undefined: there was none). */
  loaded: Snapshot | undefined;
  /** The snapshot as the run leaves it: written only when it differs from `loaded` on disk. */
  snapshot: Snapshot;
  /** Drop the cached texts the new snapshot does not name (a run that saw the whole site). */
  prune: boolean;
  /**
   * Where the tree stays pending (`dirty`), the rest being the snapshot byte for byte, and the
   * clean stamp to mark that with, read once the snapshot is written (it stats the snapshot);
   * no stamp leaves no verdict. @default no clean verdict: the stat cache forgets any it had
   */
  clean?: { dirty: readonly string[]; stamp: () => string | undefined } | undefined;
}

/**
 * The state of one site's runs in the tree at `root`: the paths under `.coursesync/`, the
 * snapshot, the push journal, the content cache, the stat cache and the temp files left of
 * them. Each part is opened once, on first use; `commit` writes what the run leaves, once.
 */
export class SiteState {
  readonly paths: SitePaths;
  #cache: ContentCache | undefined;
  #statCache: StatCache | undefined;
  #statLoaded = false;
  #journal: Journal | undefined;
  #committed = false;

  private constructor(
    readonly root: string,
    readonly site: string,
    private readonly options: SiteStateOptions,
  ) {
    this.paths = statePaths(root, site);
  }

  /** Open the state of site `site` in the tree at `root` (nothing is read yet). */
  static open(root: string, site: string, options: SiteStateOptions = {}): SiteState {
    return new SiteState(root, site, options);
  }

  /** The file system state files are written through. */
  get fs(): TreeFs {
    return this.options.fs ?? nodeFs;
  }

  /** The content cache of the site's chapter texts (by hash). */
  get cache(): ContentCache {
    this.#cache ??= new ContentCache(this.paths.cache, this.options.fs);
    return this.#cache;
  }

  /** The stat cache of the site's runs, not loaded yet (see loadStatCache). */
  get statCache(): StatCache {
    this.#statCache ??= new StatCache(statCachePath(this.root, this.site), this.options.now, this.options.fs);
    return this.#statCache;
  }

  /** The stat cache, read from its file the first time. */
  loadStatCache(): StatCache {
    if (!this.#statLoaded) this.statCache.loadSync();
    this.#statLoaded = true;
    return this.statCache;
  }

  /** Whether the stat cache has a file yet. */
  hasStatCache(): boolean {
    return existsSync(statCachePath(this.root, this.site));
  }

  /** The push journal, belonging to the snapshot whose base (snapshotBase) is `base`. */
  journal(base: string | (() => string)): Journal {
    this.#journal ??= new Journal(this.paths.journal, base, this.options.fs);
    return this.#journal;
  }

  /** Whether a push left its journal (it did not finish). */
  hasJournal(): boolean {
    return existsSync(this.paths.journal);
  }

  /** Read the snapshot: undefined when there is none; an error when it does not parse. */
  loadSnapshot(): Promise<Snapshot | undefined> {
    return loadSnapshot(this.root, this.site);
  }

  /** Temp files killed runs left under `.coursesync/` for this site, as tree paths. */
  temps(): Promise<string[]> {
    return stateTemps(this.root, this.site);
  }

  /** Write the snapshot alone, now (for a command that changes nothing else of the state). */
  saveSnapshot(snapshot: Snapshot): Promise<void> {
    return saveSnapshot(this.root, this.site, snapshot, this.options.fs ?? guardedFs(this.root));
  }

  /**
   * Write what the run leaves: the snapshot (when it changed, or waits for a save), the content
   * cache (pruned if asked, then closed), the journal cleared (its lines are in the snapshot
   * now), the stat cache with its clean verdict. Whether the snapshot was written.
   */
  async commit(change: StateCommit): Promise<boolean> {
    if (this.#committed) throw new Error(`the state of site "${this.site}" was committed already`);
    this.#committed = true;
    const written = await this.#saveIfChanged(change.loaded, change.snapshot);
    if (written && change.prune) await this.cache.prune(contentHashes(change.snapshot));
    this.#cache?.close();
    if (this.#journal) await this.#journal.clear();
    else await this.fs.rm(this.paths.journal);
    const statCache = this.loadStatCache();
    const stamp = change.clean?.stamp();
    if (change.clean && stamp) statCache.markClean(stamp, change.clean.dirty);
    else statCache.forgetClean();
    await statCache.save();
    return written;
  }

  /** Write the snapshot unless it is the one on disk; whether it was written. */
  async #saveIfChanged(before: Snapshot | undefined, after: Snapshot): Promise<boolean> {
    // An unchanged snapshot is written anyway while it is the single file of earlier versions,
    // or a save was cut short.
    if (before && jsonEqual(before, after) && !snapshotUnsettled(this.root, this.site)) return false;
    await saveSnapshot(this.root, this.site, after, this.fs);
    return true;
  }
}

/** The content hashes a snapshot's chapter records name. */
export function contentHashes(snapshot: Snapshot): Set<string> {
  const hashes = new Set<string>();
  for (const entry of Object.values(snapshot.chapters))
    if (typeof entry.record.content_sha256 === "string") hashes.add(entry.record.content_sha256);
  return hashes;
}
