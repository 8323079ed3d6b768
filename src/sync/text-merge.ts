import { merge } from "node-diff3";

/**
 * Three-way line merge of text (node-diff3): the merged text when the two edits touch
 * different lines, undefined when they overlap.
 */
export function mergeLines(base: string, local: string, remote: string): string | undefined {
  if (local === remote) return local;
  if (local === base) return remote;
  if (remote === base) return local;
  const result = merge(local.split("\n"), base.split("\n"), remote.split("\n"));
  return result.conflict ? undefined : result.result.join("\n");
}
