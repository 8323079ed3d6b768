import { readFile } from "node:fs/promises";
import path from "node:path";
import { atomicWrite } from "../../tree/fs-ops.js";

// The lines of the tree's .gitignore and .gitattributes that concern the snapshot folders, and
// the update of those an earlier version wrote (which knew only the single-file snapshot).

/** The .gitignore line of earlier versions that keeps the single-file snapshots committed. */
const LEGACY_UNIGNORED = "!.coursesync/*.json";

/** .gitignore lines that keep each site's snapshot folder committed, its temp files and the cache not. */
export const FOLDER_IGNORE_LINES = ["!.coursesync/*/", ".coursesync/cache/", ".coursesync/**/*.tmp"];

/** The .gitattributes line of earlier versions for the single-file snapshots. */
const LEGACY_ATTRIBUTES = ".coursesync/*.json -text";

/** The .gitattributes line that keeps every snapshot file byte-exact. */
export const FOLDER_ATTRIBUTES = ".coursesync/** -text";

/** `lines` put after `after` in a file's text, unless the first of them is there already. */
function withLines(text: string, after: string, lines: readonly string[]): string | undefined {
  const all = text.split("\n");
  const at = all.indexOf(after);
  if (at < 0 || all.includes(lines[0]!)) return undefined;
  all.splice(at + 1, 0, ...lines);
  return all.join("\n");
}

/**
 * Bring a .gitignore and .gitattributes that an earlier init wrote up to the snapshot folders:
 * without it git would ignore them (and commit only the removal of the old single file).
 * Returns the files changed, relative to the root.
 */
export async function unignoreFolders(root: string): Promise<string[]> {
  const changed: string[] = [];
  for (const [name, after, lines] of [
    [".gitignore", LEGACY_UNIGNORED, FOLDER_IGNORE_LINES],
    [".gitattributes", LEGACY_ATTRIBUTES, [FOLDER_ATTRIBUTES]],
  ] as const) {
    const file = path.join(root, name);
    const text = await readFile(file, "utf8").catch(() => undefined);
    const next = text === undefined ? undefined : withLines(text, after, lines);
    if (next === undefined) continue;
    await atomicWrite(file, next);
    changed.push(name);
  }
  return changed;
}
