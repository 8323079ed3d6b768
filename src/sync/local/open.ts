import type { BodyCodec } from "../../tree/bodies.js";
import { inCourseFolders } from "../../tree/layout.js";
import { type ScanOptions, type ScanResult, scanTree } from "../../tree/scan.js";
import type { StatCache } from "../../tree/stat-cache.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import { type SiteNames, siteView } from "../push/other-site.js";
import { lostAsNew } from "../restore/site-base.js";
import type { ContentCache } from "../state/content-cache.js";
import { type BlobReader, gitBlobReader } from "../state/git-objects.js";
import { rekeyProvisional } from "../state/provisional.js";
import { loadSnapshot } from "../state/snapshot.js";
import type { Snapshot } from "../state/snapshot-model.js";
import { SiteState } from "../state/workspace.js";
import { BaseTexts, baseTextsFor } from "./bases.js";
import { buildLocalView, knownHashes, type LocalView } from "./view.js";

// "Open the local side": the stat cache, the scan, the snapshot's texts of the bodies edited
// here and the local view, in that order, the same for pull, push, status, diff, check and watch.

/** How the local side is opened. */
export interface OpenLocalOptions<S extends Snapshot | undefined> {
  /** coursesync.yaml's `ignore:` patterns. */
  ignore: readonly string[];
  /** How chapter bodies are read. */
  bodies: BodyCodec;
  /** Spares reading files whose stat is unchanged (see SiteState). @default none: every file is read */
  statCache?: StatCache | undefined;
  /** Parse every file (or those it says) even when its hash is known, to validate them. */
  parseAll?: ScanOptions["parseAll"];
  /**
   * The content cache holding the last sync's chapter texts: with it an edited Markdown body is
   * told from one that only renders differently. @default no base texts
   */
  cache?: ContentCache | undefined;
  /**
   * Where the last sync's texts the cache lacks are read: git's objects, by the blob ids the
   * snapshot records (a fresh clone merges as the tree that pulled). @default the git on PATH,
   * in the repository holding the tree (none: nothing read)
   */
  blobs?: BlobReader | undefined;
  /**
   * A site other than the default one: its provisional records are re-keyed to the ids the
   * default site gave them, and files it has not received are new to it.
   */
  other?: SiteNames | undefined;
  /** Told what the scan skipped (a name that is not UTF-8), one message each. */
  onWarning?: ((message: string) => void) | undefined;
  /** A file whose id the snapshot does not hold is new (a restore: the site lost its record). */
  unsentAsNew?: boolean | undefined;
  /**
   * The snapshot the view is made against, from the scan. @default another site's provisional
   * records re-keyed (see `other`); pull also maps a site seen for the first time here.
   */
  settle?: ((scan: ScanResult, snapshot: S) => Promise<S>) | undefined;
}

/** The local side: what the tree holds, against the snapshot. */
export interface LocalSide<S extends Snapshot | undefined> {
  scan: ScanResult;
  /** The snapshot as the view was made against it (re-keyed, mapped, or limited to folders). */
  snapshot: S;
  /** The last sync's texts of the bodies edited here, by hash (none without a cache). */
  baseTexts: BaseTexts;
  local: LocalView;
  /** The scan's and the view's problems (invalid files, duplicate ids). */
  problems: FileProblem[];
}

/**
 * Open the local side of a site's runs in the tree at `root` through the site's stat cache
 * (loaded here, saved by the caller once its run went well) and content cache (the base texts).
 */
export async function openSiteLocal<S extends Snapshot | undefined>(
  root: string,
  site: string,
  snapshot: S,
  options: Omit<OpenLocalOptions<S>, "statCache" | "cache"> & { fs?: TreeFs | undefined },
): Promise<LocalSide<S> & { statCache: StatCache; cache: ContentCache }> {
  const { fs, ...open } = options;
  return openStateLocal(SiteState.open(root, site, { fs }), snapshot, open);
}

/** As openSiteLocal, through a site's state the caller opened. */
export async function openStateLocal<S extends Snapshot | undefined>(
  state: SiteState,
  snapshot: S,
  options: Omit<OpenLocalOptions<S>, "statCache" | "cache">,
): Promise<LocalSide<S> & { statCache: StatCache; cache: ContentCache }> {
  const { cache } = state;
  const statCache = state.loadStatCache();
  return { ...(await openLocal(state.root, snapshot, { ...options, statCache, cache })), statCache, cache };
}

/** Open the local side of the tree at `root` against `snapshot`. */
export async function openLocal<S extends Snapshot | undefined>(
  root: string,
  snapshot: S,
  options: OpenLocalOptions<S>,
): Promise<LocalSide<S>> {
  const scan = await scanLocal(root, snapshot, options);
  return viewLocal(root, scan, snapshot, options);
}

/**
 * As openLocal, reading only these course folders (`courses/<name>`) against their part of the
 * snapshot: undefined when a file there holds the id of a record filed elsewhere (a copy, a
 * duplicate), which takes the whole tree.
 */
export async function openLocalIn(
  root: string,
  snapshot: Snapshot,
  folders: ReadonlySet<string>,
  options: OpenLocalOptions<Snapshot>,
): Promise<LocalSide<Snapshot> | undefined> {
  const inside = inCourseFolders(folders);
  const part = partOf(snapshot, inside);
  const scan = await scanLocal(root, part, options, folders);
  const filedElsewhere = (id: number | undefined, kind: "courses" | "chapters") => {
    const entry = id === undefined ? undefined : snapshot[kind][id];
    return entry !== undefined && !inside(entry.path);
  };
  if (
    scan.courses.some((c) => filedElsewhere(c.parsed?.id ?? c.partial?.id, "courses")) ||
    scan.chapters.some((c) => filedElsewhere(c.parsed?.id ?? c.partial?.id, "chapters"))
  ) {
    return undefined;
  }
  return viewLocal(root, scan, part, options);
}

/** The scan, through the stat cache when there is one. */
function scanLocal<S extends Snapshot | undefined>(
  root: string,
  snapshot: S,
  options: OpenLocalOptions<S>,
  folders?: ReadonlySet<string>,
): Promise<ScanResult> {
  const { statCache, parseAll } = options;
  return scanTree(root, {
    ignore: options.ignore,
    knownHashes: knownHashes(snapshot),
    ...(statCache ? { statCache } : {}),
    ...(folders ? { folders } : {}),
    ...(parseAll === undefined ? {} : { parseAll }),
  });
}

/** The warnings told, the snapshot settled, the base texts read and the view made. */
async function viewLocal<S extends Snapshot | undefined>(
  root: string,
  scan: ScanResult,
  scanned: S,
  options: OpenLocalOptions<S>,
): Promise<LocalSide<S>> {
  for (const warning of scan.warnings) options.onWarning?.(warning);
  const { other } = options;
  const settle = options.settle ?? ((_: ScanResult, snapshot: S) => rekeyed(root, snapshot, scan, other));
  const snapshot = await settle(scan, scanned);
  // Texts of the last sync for the bodies edited here: to tell an edit from a re-rendering,
  // and as the base of a three-way body merge.
  const blobs = options.blobs ?? gitBlobReader(root);
  const baseTexts = options.cache
    ? await baseTextsFor(scan, snapshot, options.cache, { blobs, bodies: options.bodies })
    : new BaseTexts();
  const view = buildLocalView(scan, snapshot, options.bodies, baseTexts);
  // Files another site has not received (or new ones) are new to it.
  const local =
    options.unsentAsNew && snapshot
      ? lostAsNew(view, snapshot)
      : other && snapshot
        ? siteView(view, snapshot)
        : view;
  return { scan, snapshot, baseTexts, local, problems: [...scan.problems, ...local.problems] };
}

/** Another site's snapshot with its provisional records re-keyed to the ids the default site gave them. */
export async function rekeyed<S extends Snapshot | undefined>(
  root: string,
  snapshot: S,
  scan: ScanResult,
  other: SiteNames | undefined,
): Promise<S> {
  if (!other || !snapshot) return snapshot;
  const defaultSnapshot = await loadSnapshot(root, other.idsSite);
  return { ...snapshot, ...rekeyProvisional(snapshot, scan, defaultSnapshot).snapshot };
}

/** The snapshot's records filed where `inside` says. */
function partOf(snapshot: Snapshot, inside: (relPath: string) => boolean): Snapshot {
  const part = (entries: Snapshot["courses"]) =>
    Object.fromEntries(Object.entries(entries).filter(([, entry]) => inside(entry.path)));
  return { ...snapshot, courses: part(snapshot.courses), chapters: part(snapshot.chapters) };
}

/**
 * Two sides opened by openLocalIn over course folders that do not overlap, as one: what each
 * read, together. Undefined when one holds a record the other does too (a copy: the whole
 * tree must be read to tell which is which).
 */
export function joinSides(a: LocalSide<Snapshot>, b: LocalSide<Snapshot>): LocalSide<Snapshot> | undefined {
  for (const key of b.local.courses.keys()) if (a.local.courses.has(key)) return undefined;
  for (const key of b.local.chapters.keys()) if (a.local.chapters.has(key)) return undefined;
  const scan: ScanResult = {
    ...a.scan,
    courses: [...a.scan.courses, ...b.scan.courses],
    chapters: [...a.scan.chapters, ...b.scan.chapters],
    problems: [...a.scan.problems, ...b.scan.problems],
    copies: [...a.scan.copies, ...b.scan.copies].sort(),
    temps: [...a.scan.temps, ...b.scan.temps],
    warnings: [...a.scan.warnings, ...b.scan.warnings].sort(),
    lookalikes: [...a.scan.lookalikes, ...b.scan.lookalikes],
  };
  const local: LocalView = {
    ...a.local,
    courses: new Map([...a.local.courses, ...b.local.courses]),
    chapters: new Map([...a.local.chapters, ...b.local.chapters]),
    courseByFolder: new Map([...a.local.courseByFolder, ...b.local.courseByFolder]),
    problems: [...a.local.problems, ...b.local.problems],
  };
  return {
    scan,
    snapshot: {
      ...a.snapshot,
      courses: { ...a.snapshot.courses, ...b.snapshot.courses },
      chapters: { ...a.snapshot.chapters, ...b.snapshot.chapters },
    },
    baseTexts: a.baseTexts.joined(b.baseTexts),
    local,
    problems: [...a.problems, ...b.problems],
  };
}
