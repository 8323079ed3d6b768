import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { FileMove } from "./move-ids.js";
import { moveIdsDir } from "./paths.js";

// The journal of `coursesync site move-ids` (see move-ids-run.ts), apart from the move itself:
// every command checks for a move cut short, and that check loads no scan of the tree.

/** The move's journal: what a run cut short still has to do. */
export interface MoveJournal {
  from: string;
  to: string;
  sites: string[];
  files: FileMove[];
}

/** Where a move keeps its staged snapshots and journal (no site can be named `_move-ids`). */
export function moveDir(root: string): string {
  return moveIdsDir(root);
}

export function journalFile(root: string): string {
  return path.join(moveDir(root), "journal.json");
}

/** The site `site move-ids` was moving the ids to when it was cut short, if one was. */
export async function unfinishedMove(root: string): Promise<string | undefined> {
  if (!existsSync(journalFile(root))) return undefined;
  return ((await readJournal(root)) as MoveJournal).to;
}

export async function readJournal(root: string): Promise<MoveJournal | undefined> {
  const text = await readFile(journalFile(root), "utf8").catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as MoveJournal);
}
