import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { conflictCopyPath, courseFilePath } from "../../tree/layout.js";
import { sha256 as sha } from "../../util/hash.js";
import type { Steps } from "../../util/steps.js";
import { noBaseNote } from "../local/bases.js";
import type { LocalChapter } from "../local/view.js";
import {
  type ChapterPlan,
  type ChapterValues,
  type CourseValues,
  chapterFileText,
  courseFileText,
  courseValuesOfRecord,
  renderChapter,
  sameAsSnapshot,
  snapshotRecord,
} from "../model/entities.js";
import { conflictReason } from "../model/report.js";
import type { ContentReader } from "../model/spilled.js";
import type { SnapshotEntry } from "../state/snapshot-model.js";
import { bodyConflict } from "./markers.js";
import type { Placement, Planned, PlanOutput, WriteOp } from "./plan-model.js";
import { chapterValuesRead, recordValuesRead, spilled } from "./spill.js";

/**
 * The course folders' file operations, changes and next snapshot entries, in steps (see
 * util/steps.ts). Returns the folder moves (old folder → new), which the chapters' paths follow.
 */
export function* emitCourses(p: Planned, placement: Placement, out: PlanOutput): Steps<Map<string, string>> {
  const { local, base, remoteCourses, coursePlans, input } = p;
  const { layout, courseFinal } = placement;
  const { ops, changes, next } = out;
  const folderMoves = new Map<string, string>();
  for (const [id, plan] of coursePlans) {
    yield;
    const mine = local.courses.get(`course:${id}`);
    const remote = remoteCourses.get(id);
    const entry = base.courses[id];
    const folder = layout.courseFolder.get(id);
    const file = folder ? courseFilePath(folder) : (mine?.file ?? courseFilePath(`${entry?.path}`));
    if (mine && folder && mine.folder !== folder) {
      folderMoves.set(mine.folder, folder);
      ops.push({ op: "move-folder", from: mine.folder, to: folder });
    }
    if (plan.conflict) {
      const copyPath = conflictCopyPath(mine ? file : courseFilePath(`${folder ?? entry?.path}`));
      if (remote)
        ops.push({ op: "copy", path: copyPath, text: courseFileText(id, courseValuesOfRecord(remote)) });
      changes.push({
        kind: "course",
        id,
        path: mine ? (folder ?? mine.folder) : (entry?.path ?? ""),
        outcome: "conflict",
        reason: plan.conflict ? conflictReason(plan.conflict) : "",
        fields: plan.conflict.fields,
        ...(remote ? { copy: copyPath, resolution: "beside" } : { resolution: "none" }),
      });
      if (entry && folder) next.courses[id] = { ...entry, path: folder };
      continue;
    }
    if (mine && input.existingCopies.has(conflictCopyPath(mine.file))) {
      ops.push({ op: "remove-copy", path: conflictCopyPath(file) });
    }
    const values = courseFinal.get(id);
    if (plan.toTree.type === "delete" && mine) {
      ops.push({ op: "delete", path: mine.file }, { op: "remove-folder-if-empty", path: mine.folder });
      out.deletes++;
      changes.push({ kind: "course", id, path: mine.folder, outcome: "deleted" });
    } else if (plan.toTree.type === "create" && values && folder) {
      // A create writes the site's record as it is: its staged file's hash is this text's.
      ops.push(
        new LazyWrite(file, { kind: "course", id, values }, undefined, remote && input.courseHash?.(remote)),
      );
      changes.push({ kind: "course", id, path: folder, outcome: "created" });
    } else if (plan.toTree.type === "write" && values && folder && mine) {
      ops.push(new TextWrite(file, courseFileText(id, values)));
      changes.push({
        kind: "course",
        id,
        path: folder,
        outcome: "updated",
        fields: plan.toTree.fields,
        ...(mine.folder !== folder ? { from: mine.folder } : {}),
      });
    } else if (mine && folder && mine.folder !== folder) {
      changes.push({ kind: "course", id, path: folder, outcome: "renamed", from: mine.folder });
    }
    if (remote) {
      const entryPath = folder ?? entry?.path ?? mine?.folder;
      if (entryPath !== undefined) {
        const unchanged = entry && sameAsSnapshot(remote, entry.record);
        next.courses[id] = {
          path: entryPath,
          hash: unchanged
            ? entry.hash
            : (input.courseHash?.(remote) ?? sha(courseFileText(id, courseValuesOfRecord(remote)))),
          record: snapshotRecord(remote),
        };
      }
    } else if (plan.toTree.type === "delete" || !mine) {
      delete next.courses[id];
    }
  }
  return folderMoves;
}

/** The chapter files' file operations, changes and next snapshot entries, in steps (see util/steps.ts). */
export function* emitChapters(
  p: Planned,
  placement: Placement,
  folderMoves: ReadonlyMap<string, string>,
  out: PlanOutput,
): Steps<void> {
  const translate = (file: string) => {
    const [top, name, rest] = file.split("/");
    const folder = `${top}/${name}`;
    const moved = folderMoves.get(folder);
    return moved ? `${moved}/${rest}` : file;
  };
  for (const [id, plan] of p.chapterPlans) {
    yield;
    const mine = p.local.chapters.get(`chapter:${id}`);
    const at: ChapterAt = {
      id,
      plan,
      mine,
      remote: p.remoteChapters.get(id),
      entry: p.base.chapters[id],
      current: mine ? translate(mine.file) : undefined,
      target: placement.layout.chapterFile.get(id),
      translate,
    };
    if (emitMarked(p, at, out)) continue;
    if (plan.conflict || placement.unplaceable.has(id)) {
      emitChapterConflict(p, at, out);
      continue;
    }
    emitChapterFile(p, at, out);
    emitChapterEntry(p, at, out);
  }
}

/** One chapter as the planner emits it: its plan, its sides and where its file is and goes. */
interface ChapterAt {
  id: number;
  plan: ChapterPlan;
  mine: LocalChapter | undefined;
  remote: WireRecord | undefined;
  entry: SnapshotEntry | undefined;
  /** Where its file is now, after the folder moves. */
  current: string | undefined;
  /** Where its file goes. */
  target: string | undefined;
  /** A path after the folder moves. */
  translate: (file: string) => string;
}

/** A body both sides changed, written with conflict markers; whether it was. */
function emitMarked(p: Planned, at: ChapterAt, out: PlanOutput): boolean {
  const { input, bodies } = p;
  const { id, plan, mine, entry, remote, current } = at;
  const marked =
    input.markers === false
      ? undefined
      : bodyConflict(plan, {
          id,
          mine,
          entry,
          remote,
          baseTexts: input.baseTexts,
          bodies,
          reader: input.reader,
        });
  if (!(marked && current && remote && entry)) return false;
  // Both sides are in the file; the site's version becomes the base, as after a git merge.
  out.ops.push(new TextWrite(current, marked));
  const values = recordValuesRead(remote, input.reader);
  const rendered = renderChapter(id, values, bodies);
  out.next.chapters[id] = {
    path: current,
    hash: rendered.hash,
    body: rendered.body,
    blob: rendered.blob,
    record: snapshotRecord(remote),
  };
  out.cacheTexts.push(String(values.content));
  out.changes.push({
    kind: "chapter",
    id,
    path: current,
    outcome: "conflict",
    reason: `${conflictReason({ reason: "both-changed", fields: ["content"] })}; both sides are in the file between conflict markers: keep what you want, remove the markers, then push`,
    fields: ["content"],
    resolution: "markers",
  });
  return true;
}

/** A conflict (or a chapter whose course has no folder here): the site's version beside the file. */
function emitChapterConflict(p: Planned, at: ChapterAt, out: PlanOutput): void {
  const { input, bodies } = p;
  const { id, plan, entry, remote, current, target } = at;
  const where = current ?? target ?? (entry ? at.translate(entry.path) : undefined);
  const copyPath = where ? conflictCopyPath(where) : undefined;
  if (remote && copyPath) {
    const values = recordValuesRead(remote, input.reader);
    out.ops.push({ op: "copy", path: copyPath, text: chapterFileText(id, values, bodies) });
  }
  out.changes.push({
    kind: "chapter",
    id,
    path: where ?? "",
    outcome: "conflict",
    reason: plan.conflict
      ? `${conflictReason(plan.conflict)}${noBaseNote(plan.conflict, input.baseTexts, entry)}`
      : "its course has no folder here",
    fields: plan.conflict?.fields ?? [],
    ...(remote && copyPath ? { copy: copyPath, resolution: "beside" } : { resolution: "none" }),
  });
  if (entry && current) out.next.chapters[id] = { ...entry, path: current };
}

/** The chapter's file: deleted, created, rewritten or moved (a conflict copy of it removed). */
function emitChapterFile(p: Planned, at: ChapterAt, out: PlanOutput): void {
  const { input, bodies, modeChanged } = p;
  const { id, plan, mine, remote, current, target } = at;
  const { ops, changes } = out;
  if (mine && input.existingCopies.has(conflictCopyPath(mine.file))) {
    ops.push({ op: "remove-copy", path: conflictCopyPath(current ?? mine.file) });
  }
  const values = plan.merged;
  if (plan.toTree.type === "delete" && current) {
    ops.push({ op: "delete", path: current });
    out.deletes++;
    changes.push({ kind: "chapter", id, path: current, outcome: "deleted" });
  } else if (plan.toTree.type === "create" && values && target) {
    // A create writes the site's record as it is: its staged file's hash is this text's.
    const staged = remote ? input.rendered?.(remote) : undefined;
    ops.push(new LazyWrite(target, { kind: "chapter", id, values, bodies }, undefined, staged?.hash));
    changes.push({ kind: "chapter", id, path: target, outcome: "created" });
  } else if (plan.toTree.type === "write" && values && target && current) {
    ops.push(new LazyWrite(target, { kind: "chapter", id, values, bodies }, current));
    changes.push({
      kind: "chapter",
      id,
      path: target,
      outcome: "updated",
      fields: plan.toTree.fields,
      ...(current !== target ? { from: current } : {}),
    });
  } else if (modeChanged && mine?.unchanged && remote && current && target) {
    // coursesync.yaml's `body` changed: rewrite the untouched files in the new form (no request).
    ops.push(new LazyWrite(target, { kind: "site", id, remote, bodies }, current));
    changes.push({ kind: "chapter", id, path: target, outcome: "updated", fields: ["format"] });
  } else if (current && target && current !== target) {
    ops.push({ op: "move", from: current, to: target });
    changes.push({ kind: "chapter", id, path: target, outcome: "renamed", from: current });
  }
}

/** The chapter's next snapshot entry, and its text for the content cache when it changed. */
function emitChapterEntry(p: Planned, at: ChapterAt, out: PlanOutput): void {
  const { input, bodies, modeChanged } = p;
  const { id, plan, mine, entry, remote, current, target } = at;
  const { next } = out;
  if (!remote) {
    if (plan.toTree.type === "delete" || !mine) delete next.chapters[id];
    return;
  }
  const entryPath = target ?? current ?? (entry ? at.translate(entry.path) : undefined);
  const same = entry !== undefined && sameAsSnapshot(remote, entry.record);
  const unchanged = same && !modeChanged && entry.body !== undefined;
  if (!same) {
    if (spilled(remote)) out.cacheRecords.push(remote);
    else out.cacheTexts.push(String(remote.content ?? ""));
  }
  if (unchanged && entry.path === entryPath && entry.conflict === undefined) {
    // Nothing changed: the entry stays the very object the snapshot holds (no copy).
    next.chapters[id] = entry;
  } else if (entryPath !== undefined) {
    const rendered = unchanged
      ? undefined
      : (input.rendered?.(remote) ?? renderChapter(id, recordValuesRead(remote, input.reader), bodies));
    next.chapters[id] = {
      path: entryPath,
      hash: rendered ? rendered.hash : entry!.hash,
      body: rendered ? rendered.body : entry!.body,
      ...blobOf(rendered ?? entry!),
      record: snapshotRecord(remote),
    };
  }
}

/** A write of a text made while planning (a course file rewritten, a body with conflict markers). */
class TextWrite implements WriteOp {
  readonly op = "write" as const;
  readonly path: string;
  readonly #text: string;

  constructor(path: string, text: string) {
    this.path = path;
    this.#text = text;
  }

  /** The file's text. */
  render(): string {
    return this.#text;
  }
}

/**
 * A write whose text is made when it is carried out (`render()`): a pull of thousands of
 * chapters holds their values, not every file's text at once (the files are written a few at a
 * time). What makes the text is kept in the write's own private fields, not in a closure:
 * 55,000 writes held 8.9 MB as closures with accessors of their own, 3.7 MB this way (the
 * render method is the class's).
 */
class LazyWrite implements WriteOp {
  readonly op = "write" as const;
  readonly path: string;
  readonly from?: string;
  readonly hash?: string;
  readonly #kind: "course" | "chapter" | "site";
  readonly #id: number;
  readonly #source: CourseValues | ChapterValues | WireRecord;
  readonly #bodies: BodyCodec | undefined;

  constructor(
    path: string,
    make:
      | { kind: "course"; id: number; values: CourseValues }
      | { kind: "chapter"; id: number; values: ChapterValues; bodies: BodyCodec }
      | { kind: "site"; id: number; remote: WireRecord; bodies: BodyCodec },
    from?: string,
    hash?: string,
  ) {
    this.path = path;
    if (from !== undefined) this.from = from;
    if (hash !== undefined) this.hash = hash;
    this.#kind = make.kind;
    this.#id = make.id;
    this.#source = make.kind === "site" ? make.remote : make.values;
    this.#bodies = make.kind === "course" ? undefined : make.bodies;
  }

  /** The file's text, made now (each time this is called); a spilled text read through `reader`. */
  render(reader?: ContentReader): string {
    const id = this.#id;
    if (this.#kind === "course") return courseFileText(id, this.#source as CourseValues);
    if (this.#kind === "chapter") {
      const values = chapterValuesRead(this.#source as ChapterValues, reader);
      return chapterFileText(id, values, this.#bodies!);
    }
    return renderChapter(id, recordValuesRead(this.#source as WireRecord, reader), this.#bodies!).text;
  }
}

/** The git blob id to record beside a file's hash, when it is known (see SnapshotEntry.blob). */
function blobOf(named: { blob?: string | undefined }): { blob?: string } {
  return named.blob === undefined ? {} : { blob: named.blob };
}
