import { setFlagsFromString } from "node:v8";

/**
 * Let the heap grow by half of what survived the last full collection, instead of V8's up to
 * four times. A 50,000-chapter pull keeps 60-80 MB alive; with the default its heap reached
 * 2.5-3 times that. V8 reads the setting at each collection, so it can be set once node runs,
 * before the work: pull calls it (through CliIO.boundHeap). Not every command: `check` of
 * 20,000 files holds far more alive and allocates fast, and took 13-18% longer with it.
 * A smaller young generation would save more, but only a flag given as node starts sets that,
 * and a shebang with flags needs `env -S`, which BusyBox's env (Alpine's) does not have.
 */
export function limitHeapGrowth(stage: HeapStage = "listing"): void {
  setFlagsFromString(`--heap-growing-percent=${stage === "listing" ? 50 : 20}`);
}

/**
 * Where a pull is: listing the site (CPU-bound: each collection costs time the pages wait
 * for), or writing what it listed (plan, files, snapshot: bound by the disk, the records all
 * held). Once listed, the heap grows by a fifth of what survived: a 50,000-chapter first pull
 * peaked at 249-255 MB instead of 273 MB, and took 21.5-22.6 s of user CPU instead of 20.4 s
 * (one run each, on a shared machine) in a run of 60-80 s.
 */
export type HeapStage = "listing" | "writing";
