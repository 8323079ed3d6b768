import type { BodyCodec } from "../tree/bodies.js";
import { courseFolderOf, fileOfConflictCopy, recordFilePath } from "../tree/layout.js";
import { ConflictMarkers } from "../tree/marker-problem.js";
import { DEFAULT_LIMITS, type Limits } from "../tree/schema.js";
import type { StatCache } from "../tree/stat-cache.js";
import type { FileProblem } from "../tree/yaml-text.js";
import { copyBeside, inPaths, type LocalChange, planLocalChanges } from "./local/changes.js";
import { type LocalSide, openLocal, openLocalIn } from "./local/open.js";
import type { LocalView } from "./local/view.js";
import type { ConflictResolution } from "./model/report.js";
import type { SiteNames } from "./push/other-site.js";
import type { ContentCache } from "./state/content-cache.js";
import type { Snapshot } from "./state/snapshot-model.js";
import { valueProblems } from "./value-checks.js";

/** What status says of one file or record. */
export type StatusState =
  | "new"
  | "modified"
  | "moved"
  | "renamed"
  | "deleted"
  | "conflict"
  | "invalid"
  | "untracked";

/** One line of status. */
export interface StatusEntry {
  state: StatusState;
  kind: "course" | "chapter" | "file";
  id: number | undefined;
  path: string;
  fields?: string[];
  from?: string;
  /** The site's version of a conflicted record, written beside it by pull. */
  copy?: string;
  /** For a conflict: where it is shown (markers in the file, or the site's version beside it). */
  resolution?: ConflictResolution;
  message?: string;
}

/** What `treeStatus` reads: the tree, its snapshot, and how to read it. */
export interface TreeStatusOptions {
  root: string;
  snapshot: Snapshot;
  ignore: readonly string[];
  bodies: BodyCodec;
  paths?: readonly string[] | undefined;
  statCache?: StatCache | undefined;
  /** The content cache, to tell an edited Markdown body from one that only renders differently. */
  cache?: ContentCache | undefined;
  /** Sizes push refuses: values over them are listed as invalid. @default DEFAULT_LIMITS */
  limits?: Limits;
  /** Told what the scan of the tree skipped (a name that is not UTF-8), one message each. */
  onWarning?: ((message: string) => void) | undefined;
  /** A site other than the default one: files it has not received are new to it. */
  site?: SiteNames | undefined;
  /**
   * Only these course folders (`courses/<name>`) can hold anything pending: the rest is as the
   * last clean status saw it. Then only they are read, against their part of the snapshot, and
   * the answer is undefined when a file there holds the id of a record filed elsewhere (a
   * copy, a duplicate): that takes a look at the whole tree.
   */
  folders?: ReadonlySet<string> | undefined;
}

/** Local changes against the snapshot, offline: what push would send, and what is in the way. */
export async function treeStatus(options: TreeStatusOptions): Promise<StatusEntry[] | undefined> {
  const { folders } = options;
  const open = {
    ignore: options.ignore,
    bodies: options.bodies,
    statCache: options.statCache,
    cache: options.cache,
    other: options.site,
    onWarning: options.onWarning,
  };
  const side = folders
    ? await openLocalIn(options.root, options.snapshot, folders, open)
    : await openLocal(options.root, options.snapshot, open);
  return side ? sideStatus(side, options) : undefined;
}

/**
 * As treeStatus, of a local side already opened (one read of the tree serves a caller that
 * also shows what it read, as the preview does).
 */
export function sideStatus(
  side: LocalSide<Snapshot>,
  options: { paths?: readonly string[] | undefined; limits?: Limits | undefined },
): StatusEntry[] {
  const { paths } = options;
  const { scan, local, snapshot } = side;
  const values = [...valueProblems(scan, local, snapshot, options.limits ?? DEFAULT_LIMITS)];
  const entries = problemEntries([...side.problems, ...values], paths);
  // A record whose file is invalid is that: invalid, never deleted (DESIGN 4).
  const invalid = new Set(side.problems.map((problem) => problem.file));
  const carried = new Set(
    scan.chapters.filter((c) => invalid.has(c.file) && c.parsed?.id !== undefined).map((c) => c.parsed?.id),
  );
  const conflicted = new Set<string>();
  for (const copy of scan.copies) {
    // Named by its file's path or by the copy's: `status courses/web/02-tags.md` shows the conflict.
    const file = fileOfConflictCopy(copy);
    if (!inPaths(copy, paths) && !inPaths(file, paths)) continue;
    conflicted.add(file);
  }
  for (const change of planLocalChanges(snapshot, local, paths)) {
    const file = recordFilePath(change.plan.kind, change.path);
    if (conflicted.has(file)) continue; // reported once below, as a conflict
    const entry = changeEntry(change, snapshot, invalid.has(file), carried);
    if (entry) entries.push(entry);
  }
  const copies = new Set(scan.copies);
  for (const file of conflicted) entries.push(conflictEntry(file, local, copies));
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.state < b.state ? -1 : 1));
}

/** The lines of invalid files (markers among them are conflicts), within the paths asked. */
function problemEntries(
  problems: readonly FileProblem[],
  paths: readonly string[] | undefined,
): StatusEntry[] {
  const entries: StatusEntry[] = [];
  for (const problem of problems) {
    if (!inPaths(problem.file, paths)) continue;
    // Markers are a merge waiting for its author: a conflict, with what resolves it.
    const markers = problem instanceof ConflictMarkers;
    entries.push({
      state: markers ? "conflict" : "invalid",
      kind: "file",
      id: undefined,
      path: problem.file,
      ...(markers ? { resolution: "markers" as const } : {}),
      message: `${problem.line === undefined ? "" : `line ${problem.line}: `}${
        markers ? "conflict markers: keep what you want, remove the markers, then push" : problem.problem
      }`,
    });
  }
  return entries;
}

/**
 * The line of one local change; undefined for a delete of a record whose file is invalid or
 * whose id an invalid file carries.
 */
function changeEntry(
  change: LocalChange,
  snapshot: Snapshot,
  fileInvalid: boolean,
  carried: ReadonlySet<number | undefined>,
): StatusEntry | undefined {
  const { plan } = change;
  const base = { kind: plan.kind, id: plan.id, path: change.path } as const;
  if (plan.localState === "new") return { ...base, state: "new" };
  if (plan.id !== undefined && !snapshot[plan.kind === "course" ? "courses" : "chapters"][plan.id]) {
    return { ...base, state: "untracked", message: "not in the snapshot: run `coursesync pull` to adopt it" };
  }
  if (plan.toSite.type === "delete") {
    if (!fileInvalid && !(plan.kind === "chapter" && carried.has(plan.id)))
      return { ...base, state: "deleted" };
    return undefined;
  }
  if (plan.toSite.type === "update") {
    const moved = plan.toSite.fields.includes("course_id");
    return {
      ...base,
      state: moved ? "moved" : "modified",
      fields: plan.toSite.fields,
      ...(change.from ? { from: change.from } : {}),
    };
  }
  if (change.from) return { ...base, state: "renamed", from: change.from };
  return undefined;
}

/** The line of a file with the site's version beside it. */
function conflictEntry(file: string, local: LocalView, copies: ReadonlySet<string>): StatusEntry {
  return {
    state: "conflict",
    kind: file.endsWith(".md") ? "chapter" : "course",
    id: idAt(file, local),
    path: courseFolderOf(file),
    copy: copyBeside(file, copies),
    resolution: "beside",
    message:
      "the site changed it too: merge by hand and `coursesync push --force`, or `coursesync pull --theirs`",
  };
}

function idAt(file: string, local: LocalView): number | undefined {
  for (const course of local.courses.values()) if (course.file === file) return course.id;
  for (const chapter of local.chapters.values()) if (chapter.file === file) return chapter.id;
  return undefined;
}
