import { setFlagsFromString } from "node:v8";

/**
 * Let the heap grow by half of what survived the last full collection, instead of V8's up to
 * four times. A 50,000-chapter pull keeps 60-80 MB alive; with the default its heap reached
 * 2.5-3 times that. V8 reads the setting at each collection, so it can be set once node runs,
 * before the work (the CLI's entry point, and the bench's). A smaller young generation would
 * save more, but only a flag given as node starts sets that, and a shebang with flags needs
 * `env -S`, which BusyBox's env (Alpine's) does not have.
 */
export function limitHeapGrowth(): void {
  setFlagsFromString("--heap-growing-percent=50");
}
