import { type PushClient, type PushOptions, type PushResult, push } from "../push/index.js";

// `coursesync restore`: make the site hold the tree. It runs push's steps; what is its own is the
// base it plans against (the site as it is now, read in push's gather: see site-base.ts), files
// whose record the site lost taken as new, and the listing time its commit records.

export type { RestoreBase } from "./site-base.js";

/** Restore the tree into the site: deletes only with `deletes` (see PushOptions.restore). */
export function restore(options: Omit<PushOptions, "restore">, client: PushClient): Promise<PushResult> {
  return push({ ...options, restore: true }, client);
}
