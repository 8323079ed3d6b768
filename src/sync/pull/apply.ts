import path from "node:path";
import PQueue from "p-queue";
import {
  abs,
  hashTreeFile,
  moveTreePath,
  placeTreeFile,
  removeEmptyFolder,
  removeTreeFile,
  treePathExists,
  writeTreeFile,
} from "../../tree/fs-ops.js";
import type { ScanResult } from "../../tree/scan.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import type { ContentReader } from "../model/spilled.js";
import type { FileOp, WriteOp } from "./plan-model.js";
import type { Placed, WrittenAs } from "./stage-writer.js";
import type { WrittenFiles } from "./written.js";

/** Writes waiting in the queue at most, besides the ones under way. */
const QUEUED = 64;

/** Staged files moved into place in one message to the staging thread, at most. */
const PLACED_AT_ONCE = 512;

/** The ops that would change something on disk (writes of identical bytes are dropped). */
export async function effectiveOps(
  root: string,
  ops: readonly FileOp[],
  existing: ReadonlySet<string>,
  reader?: ContentReader,
): Promise<FileOp[]> {
  const out: FileOp[] = [];
  for (const op of ops) {
    const inPlace = op.op === "copy" || (op.op === "write" && (!op.from || op.from === op.path));
    if (inPlace && existing.has(op.path) && (await hashTreeFile(root, op.path)) === textHash(op, reader))
      continue;
    if (op.op === "remove-folder-if-empty") continue;
    out.push(op);
  }
  return out;
}

/**
 * Move the folders, then the files that change their name (moves, and rewrites under a new
 * name), each in two phases where a name is still taken; the number of folders moved.
 */
async function moveFirst(root: string, effective: readonly FileOp[], fs: TreeFs): Promise<number> {
  const folderMoves = effective.filter((op) => op.op === "move-folder");
  const fileMoves = effective.filter(
    (op) => op.op === "move" || (op.op === "write" && op.from && op.from !== op.path),
  );
  await twoPhaseMoves(
    root,
    folderMoves.map((op) => ({ from: (op as { from: string }).from, to: (op as { to: string }).to })),
    (name, suffix) => `${name}-moving${suffix}`,
    fs,
  );
  // Moves and rewrites that change a file's name: first park the sources whose name is taken.
  const moves = fileMoves.map((op) =>
    op.op === "move"
      ? { from: op.from, to: op.to }
      : { from: (op as { from: string }).from, to: (op as { path: string }).path },
  );
  await twoPhaseMoves(root, moves, (name, suffix) => name.replace(/\.md$/, `.moving${suffix}.md`), fs);
  return folderMoves.length;
}

/**
 * Apply file operations in order. Every write is temp-then-rename; moves whose target is held by
 * another file still to move go through a temporary name first. Returns how many paths changed.
 * A write's text is rendered as it is carried out, spilled texts read through `reader`.
 */
export async function applyOps(
  root: string,
  ops: readonly FileOp[],
  existing: ReadonlySet<string>,
  fs: TreeFs,
  staged?: Staged,
  written?: WrittenFiles,
  reader?: ContentReader,
): Promise<number> {
  const effective = await effectiveOps(root, ops, existing, reader);
  let changed = await moveFirst(root, effective, fs);
  // Within one kind of operation the paths are distinct, so they run side by side; the kinds
  // run in order (writes before deletes before removing emptied folders).
  const queue = new PQueue({ concurrency: 16 });
  const folderOf = newFolders(root, existing, fs);
  // A failed write stops the run: no more are started, and the first error is thrown once the
  // writes under way end.
  let failed: { error: unknown } | undefined;
  const add = async (write: () => Promise<void>) => {
    // A few writes wait in the queue at most: a queued write holds its text until it is made.
    await queue.onSizeLessThan(QUEUED);
    if (failed) return;
    queue.add(write).catch((error: unknown) => {
      failed ??= { error };
    });
  };
  let phase: FileOp["op"] | undefined;
  /** Writes done by moving a staged file into place on the staging thread. */
  let placed = new Set<FileOp>();
  for (const [i, op] of effective.entries()) {
    if (op.op !== phase) {
      await queue.onIdle();
      phase = op.op;
      if (phase === "write" && staged && !failed) {
        let end = i;
        while (effective[end]?.op === phase) end++;
        placed = await placeStaged(root, effective.slice(i, end) as WriteOp[], fs, staged, written);
      }
    }
    if (failed) break;
    switch (op.op) {
      case "move-folder":
        break;
      case "move":
        changed++;
        break;
      case "write":
      case "copy":
        // A rewrite under a new name was moved there above; this replaces its bytes.
        changed++;
        if (placed.has(op)) break;
        await add(async () => {
          await folderOf(op.path);
          await writeText(root, op, fs, staged, op.op === "write" ? written : undefined, reader);
        });
        break;
      case "delete":
      case "remove-copy":
        changed++;
        await add(() => removeTreeFile(root, op.path, fs));
        break;
    }
  }
  await queue.onIdle();
  if (failed) throw failed.error;
  // Course folders emptied above go last, after conflict copies in them were removed too
  // (effectiveOps leaves these out: removing an empty folder changes no file).
  for (const op of ops) if (op.op === "remove-folder-if-empty") await removeEmptyFolder(root, op.path, fs);
  return changed;
}

/**
 * Makes the folder of a file about to be written, once, when the scan found no file in it:
 * writes run side by side, and each into a new folder (a first pull's every course) would
 * otherwise fail once before one of them made it (1,557 of 2,200 at 200 x 10). A folder that
 * cannot be made is left to the write, which says why.
 */
function newFolders(
  root: string,
  existing: ReadonlySet<string>,
  fs: TreeFs,
): (file: string) => Promise<void> {
  // Read from the scan at the first write only: a pull that writes nothing does not go
  // through every file of the tree for it.
  let made: Map<string, Promise<void>> | undefined;
  return (file) => {
    if (!made) {
      made = new Map();
      for (const known of existing) made.set(path.posix.dirname(known), Promise.resolve());
    }
    const folder = path.posix.dirname(file);
    let making = made.get(folder);
    if (!making) {
      making = fs.mkdir(abs(root, folder)).catch(() => {});
      made.set(folder, making);
    }
    return making;
  };
}

/** Files staged while the listing came (see stage.ts), by the hash of their text. */
interface Staged {
  claim(hash: string): string | undefined;
  /** How the staging thread left a claimed file (see WrittenFiles.landed). */
  writtenAs(file: string): WrittenAs;
  /** Whether claimed files can be moved into place on the staging thread (see place). */
  readonly placesOnThread?: boolean;
  /** Move claimed files into place on the staging thread; undefined: it could not. */
  place?(moves: Array<readonly [from: string, to: string]>): Promise<Placed[] | undefined>;
}

type CopyOp = Extract<FileOp, { op: "copy" }>;

/**
 * The writes whose text a staged file holds, moved into place a few hundred at a time on the
 * staging thread; returns those done. One the thread could not move is left to writeText,
 * which writes its text (and says what is wrong); without the thread, none is done here.
 */
async function placeStaged(
  root: string,
  ops: readonly WriteOp[],
  fs: TreeFs,
  staged: Staged,
  written: WrittenFiles | undefined,
): Promise<Set<FileOp>> {
  const done = new Set<FileOp>();
  if (!staged.placesOnThread || !staged.place) return done;
  // A few hundred at a time: the moves of a first pull of 50,000 chapters are megabytes of
  // paths, in this thread and in the staging one.
  for (let from = 0; from < ops.length; from += PLACED_AT_ONCE) {
    const claimed: Array<{ op: WriteOp; hash: string; ready: string; as: WrittenAs }> = [];
    for (const op of ops.slice(from, from + PLACED_AT_ONCE)) {
      // Only a write whose hash is known without making its text (a lazy text is made each
      // time it is read): any other is left to writeText, which makes it once.
      const ready = op.hash === undefined ? undefined : staged.claim(op.hash);
      if (ready !== undefined) claimed.push({ op, hash: op.hash!, ready, as: staged.writtenAs(ready) });
    }
    if (claimed.length === 0) continue;
    const moved = await staged.place(claimed.map(({ op, ready }) => [ready, abs(root, op.path)] as const));
    for (const [i, { op, hash, ready, as }] of claimed.entries()) {
      // The thread ended before it answered (it moved some, or none): moved here, one by one.
      const outcome = moved ? moved[i]! : (await placeTreeFile(root, ready, op.path, fs)) && undefined;
      if (outcome === false) {
        // Not moved: the write below makes the file from its text (the staged one goes).
        await fs.rm(ready);
        continue;
      }
      written?.landed(op.path, hash, as, outcome);
      done.add(op);
    }
  }
  return done;
}

/** The text of a write (made now) or of a copy. */
function textOf(op: WriteOp | CopyOp, reader: ContentReader | undefined): string {
  return op.op === "write" ? op.render(reader) : op.text;
}

/** The hash of a write's or copy's text: a staged record's is known without making the text. */
function textHash(op: WriteOp | CopyOp, reader: ContentReader | undefined): string {
  return (op.op === "write" ? op.hash : undefined) ?? sha256(textOf(op, reader));
}

/**
 * Write a file: by moving a staged file holding exactly this text into place, else as ever.
 * A chapter or course file that lands is told to `written`, for the stat cache.
 */
async function writeText(
  root: string,
  op: WriteOp | CopyOp,
  fs: TreeFs,
  staged: Staged | undefined,
  written: WrittenFiles | undefined,
  reader: ContentReader | undefined,
): Promise<void> {
  // A lazy text is made once, and not at all when its hash is known and a staged file has it.
  const known = op.op === "write" ? op.hash : undefined;
  let text = known === undefined ? textOf(op, reader) : undefined;
  const hash = known ?? (staged || written ? sha256(text!) : undefined);
  const ready = staged?.claim(hash!);
  if (ready !== undefined) {
    const as = staged!.writtenAs(ready);
    if (await placeTreeFile(root, ready, op.path, fs)) {
      written?.landed(op.path, hash!, as);
      return;
    }
    await fs.rm(ready);
  }
  text ??= textOf(op, reader);
  await writeTreeFile(root, op.path, text, fs);
  // Bytes hash as the text does only when it is valid UTF-8.
  if (text.isWellFormed()) written?.landed(op.path, hash!, null);
}

/**
 * Rename many paths where a target may be another rename's source (swapped names): sources
 * in the way are first moved to a temporary name. Rewrites (writes with a new name) only park
 * their source; the write itself lands the new file. Returns where parked sources went.
 */
async function twoPhaseMoves(
  root: string,
  moves: ReadonlyArray<{ from: string; to: string }>,
  park: (name: string, suffix: string) => string,
  fs: TreeFs,
): Promise<Map<string, string>> {
  const sources = new Set(moves.map((m) => m.from));
  const taken = new Set([...sources, ...moves.map((m) => m.to)]);
  const parked = new Map<string, string>();
  for (const move of moves) {
    if (moves.some((other) => other !== move && other.to === move.from) && sources.has(move.from)) {
      // A temporary name nothing uses: never one of these moves' paths, nor a file of the
      // author's that happens to be called so.
      let temp = park(move.from, "");
      for (let n = 2; taken.has(temp) || (await treePathExists(root, temp)); n++) {
        temp = park(move.from, `-${n}`);
      }
      taken.add(temp);
      await moveTreePath(root, move.from, temp, fs);
      parked.set(move.from, temp);
    }
  }
  for (const move of moves) {
    const from = parked.get(move.from) ?? move.from;
    await moveTreePath(root, from, move.to, fs);
  }
  return parked;
}

/**
 * The tree's files a scan found, at the paths they will have after the plan's course folders
 * move: only those can already hold the bytes a write would put there.
 */
export function existingFiles(scan: ScanResult, ops: readonly FileOp[]): Set<string> {
  const folderMoves = new Map<string, string>();
  for (const op of ops) if (op.op === "move-folder") folderMoves.set(op.from, op.to);
  const existing = new Set<string>();
  for (const file of [
    ...scan.courses.map((c) => c.file),
    ...scan.chapters.map((c) => c.file),
    ...scan.copies,
  ]) {
    if (file === undefined) continue;
    const slash = file.lastIndexOf("/");
    const moved = folderMoves.get(file.slice(0, slash));
    existing.add(moved ? `${moved}${file.slice(slash)}` : file);
  }
  return existing;
}
