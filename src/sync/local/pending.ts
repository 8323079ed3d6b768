import { courseFolderContaining } from "../../tree/layout.js";
import type { ScanResult } from "../../tree/scan.js";
import type { FileProblem } from "../../tree/yaml-text.js";
import type { Snapshot } from "../state/snapshot-model.js";
import type { LocalView } from "./view.js";

// Where a run leaves the tree not as its snapshot says: what it tells the stat cache with its
// clean mark, for the next status or pull to read only those course folders (and those that
// change after).

/**
 * The course folders of the tree paths added to it; undefined when one is outside every
 * course folder (what is there only a read of the whole tree can judge).
 */
export function folderSet(): {
  add: (relPath: string | undefined) => void;
  folders: () => Set<string> | undefined;
} {
  const found = new Set<string>();
  let outside = false;
  return {
    add: (relPath) => {
      if (relPath === undefined) return;
      const folder = courseFolderContaining(relPath);
      if (folder === undefined) outside = true;
      else found.add(folder);
    },
    folders: () => (outside ? undefined : found),
  };
}

/**
 * The course folders where the tree may hold something pending after a pull or push: any file
 * that is not byte for byte what the last sync wrote where it wrote it (an edit, a new or moved
 * file, one gone), an invalid file, a conflict copy, a copy the run writes. Everywhere else
 * the tree is what the run's snapshot says. Undefined when one is outside a course folder.
 */
export function pendingFolders(
  side: {
    scan: ScanResult;
    local: LocalView;
    snapshot: Snapshot | undefined;
    problems: readonly FileProblem[];
  },
  ops: ReadonlyArray<{ op: string; path?: string }> = [],
): string[] | undefined {
  const { add, folders } = folderSet();
  const { local, snapshot } = side;
  for (const course of local.courses.values()) {
    const entry = course.id === undefined ? undefined : snapshot?.courses[course.id];
    // The same bytes where the last sync wrote them (read or not: a push parses every file).
    if (entry?.path === course.folder && entry.hash === course.hash) continue;
    add(course.folder);
    add(entry?.path);
  }
  for (const chapter of local.chapters.values()) {
    const entry = chapter.id === undefined ? undefined : snapshot?.chapters[chapter.id];
    if (entry?.path === chapter.file && entry.hash === chapter.hash) continue;
    add(chapter.file);
    add(entry?.path);
  }
  for (const [id, entry] of Object.entries(snapshot?.courses ?? {}))
    if (!local.courses.has(`course:${id}`)) add(entry.path);
  for (const [id, entry] of Object.entries(snapshot?.chapters ?? {}))
    if (!local.chapters.has(`chapter:${id}`)) add(entry.path);
  for (const problem of side.problems) add(problem.file);
  for (const copy of side.scan.copies) add(copy);
  for (const op of ops) if (op.op === "copy") add(op.path);
  const found = folders();
  return found && [...found].sort();
}

/**
 * A clean mark carried over a run that read only part of the tree (a push of some paths, as
 * watch sends): the folders the mark held pending, those of every file whose stat cache entry
 * the run changed (or removed), and those where an entry of the snapshot changed, where it was
 * and where it is. Everywhere else the files are what the cache recorded when the tree was
 * found clean, and the snapshot's entries there are the ones it was clean against. Undefined
 * when one is outside every course folder.
 */
export function carriedFolders(
  dirty: readonly string[],
  changedPaths: Iterable<string>,
  before: Snapshot,
  after: Snapshot,
): string[] | undefined {
  const { add, folders } = folderSet();
  for (const folder of dirty) add(folder);
  for (const relPath of changedPaths) add(relPath);
  for (const kind of ["courses", "chapters"] as const) {
    const was = before[kind];
    const is = after[kind];
    for (const id of new Set([...Object.keys(was), ...Object.keys(is)])) {
      if (was[id] === is[id]) continue;
      add(was[id]?.path);
      add(is[id]?.path);
    }
  }
  const found = folders();
  return found && [...found].sort();
}
