import { lstatSync } from "node:fs";
import { Worker } from "node:worker_threads";

// Reading the names and stats of thousands of folders is thousands of system calls, one after
// another on one thread. A thread of its own reads part of them while the caller reads the
// rest, as git preloads its index from threads (the scale bench's status row measures it).

/** Numbers per name in `FolderData.stats`: kind, size, mtimeMs, ctimeMs, ino. */
const STAT_SLOTS = 5;

/** What `kind` says of a name: gone by the time it was looked at, a file, a folder, else. */
const KIND = { gone: 0, file: 1, folder: 2, other: 3 } as const;

/** What the thread is told (it sees nothing of this module but this). */
interface Work {
  root: string;
  /** Read and answered in turn: each batch is one message. */
  batches: ReadonlyArray<readonly string[]>;
  slots: typeof STAT_SLOTS;
  kind: typeof KIND;
}

/** One folder as read: its names in sorted order and their stats, STAT_SLOTS numbers each. */
export interface FolderData {
  names: string[];
  stats: Float64Array;
}

/** A stat as the cache compares it, made from a folder's numbers. */
export interface FolderStat {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  isFile(): boolean;
  isDirectory(): boolean;
}

/** The stat of the i-th name of a folder read here; undefined when it was gone. */
export function statAt(data: FolderData, i: number): FolderStat | undefined {
  const at = i * STAT_SLOTS;
  const kind = data.stats[at]!;
  if (kind === KIND.gone) return undefined;
  return {
    size: data.stats[at + 1]!,
    mtimeMs: data.stats[at + 2]!,
    ctimeMs: data.stats[at + 3]!,
    ino: data.stats[at + 4]!,
    isFile: () => kind === KIND.file,
    isDirectory: () => kind === KIND.folder,
  };
}

/** A name's stat as a walk compares it, filled in place (no object per file): kind as KIND says. */
export interface StatNumbers {
  kind: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** Whether a StatNumbers is of a file, of a folder. */
export const isFileKind = (stat: StatNumbers): boolean => stat.kind === KIND.file;
export const isFolderKind = (stat: StatNumbers): boolean => stat.kind === KIND.folder;

/** Fill `into` with the stat of the i-th name of a folder read here; false when it was gone. */
export function statInto(data: FolderData, i: number, into: StatNumbers): boolean {
  const at = i * STAT_SLOTS;
  into.kind = data.stats[at]!;
  into.size = data.stats[at + 1]!;
  into.mtimeMs = data.stats[at + 2]!;
  into.ctimeMs = data.stats[at + 3]!;
  into.ino = data.stats[at + 4]!;
  return into.kind !== KIND.gone;
}

/** Fill `into` with a path's lstat; false when there is nothing there. */
export function lstatInto(file: string, into: StatNumbers): boolean {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return false;
  into.kind = stat.isFile() ? KIND.file : stat.isDirectory() ? KIND.folder : KIND.other;
  into.size = stat.size;
  into.mtimeMs = stat.mtimeMs;
  into.ctimeMs = stat.ctimeMs;
  into.ino = stat.ino;
  return true;
}

type Reply = Array<[folder: string, data: FolderData | null]>;

/**
 * The thread's code (a worker's script, so that it needs no built file beside this one).
 * `load` is the worker's own `require`, given by name in the script: a bundler renames a
 * `require` here.
 */
function folderThread(load: NodeJS.Require): void {
  const { parentPort, workerData } = load("node:worker_threads") as typeof import("node:worker_threads");
  const fs = load("node:fs") as typeof import("node:fs");
  const { root, batches, slots, kind } = workerData as Work;
  for (const folders of batches) {
    const reply: Array<[string, { names: string[]; stats: Float64Array } | null]> = [];
    const buffers: ArrayBuffer[] = [];
    for (const folder of folders) {
      let names: string[];
      try {
        names = fs.readdirSync(`${root}/${folder}`).sort();
      } catch {
        reply.push([folder, null]);
        continue;
      }
      const stats = new Float64Array(names.length * slots);
      for (const [i, name] of names.entries()) {
        const stat = fs.lstatSync(`${root}/${folder}/${name}`, { throwIfNoEntry: false });
        if (!stat) continue;
        const at = i * slots;
        stats[at] = stat.isFile() ? kind.file : stat.isDirectory() ? kind.folder : kind.other;
        stats[at + 1] = stat.size;
        stats[at + 2] = stat.mtimeMs;
        stats[at + 3] = stat.ctimeMs;
        stats[at + 4] = stat.ino;
      }
      reply.push([folder, { names, stats }]);
      buffers.push(stats.buffer as ArrayBuffer);
    }
    parentPort?.postMessage(reply, buffers);
  }
}

/** Folders read on a thread: one answer per batch, in order. */
export interface FolderThread {
  /**
   * Each batch's folders (tree-relative), as read: sorted names and their stats, or null for a
   * folder that cannot be read. An answer rejects when the thread cannot run (the caller then
   * reads those folders itself) or was stopped first.
   */
  answers: Promise<Map<string, FolderData | null>>[];
  /** Stop the thread: the answers still to come are not needed. */
  stop(): void;
}

/** Read these batches of folders (tree-relative) on a thread of their own, in turn. */
export function readFoldersOnThread(root: string, batches: ReadonlyArray<readonly string[]>): FolderThread {
  const settle = batches.map(() => {
    let resolve!: (read: Map<string, FolderData | null>) => void;
    let reject!: (error: unknown) => void;
    const answer = new Promise<Map<string, FolderData | null>>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    answer.catch(() => {});
    return { answer, resolve, reject };
  });
  const fail = (error: unknown) => {
    for (const one of settle) one.reject(error);
  };
  let worker: Worker | undefined;
  try {
    worker = new Worker(`(${folderThread.toString()})(require)`, {
      eval: true,
      workerData: { root, batches, slots: STAT_SLOTS, kind: KIND } satisfies Work,
    });
    let answered = 0;
    worker.on("message", (reply: Reply) => {
      settle[answered++]?.resolve(new Map(reply));
      if (answered === settle.length) void worker?.terminate();
    });
    worker.once("error", fail);
    worker.once("exit", () => fail(new Error("the folder thread ended without an answer")));
  } catch (error) {
    fail(error);
  }
  return { answers: settle.map((one) => one.answer), stop: () => void worker?.terminate() };
}
