import { open, readFile, truncate } from "node:fs/promises";
import path from "node:path";
import type { Listing, ListOptions } from "../api/client.js";
import type { WireRecord } from "../api/wire.js";
import { sortKeys } from "../util/stable-json.js";

/** The archive of the site's events, at the tree root. */
export const EVENTS_FILE = "events.ndjson";

/** What archiving the events did. */
export interface EventsResult {
  /** Events new to the archive (appended, or with --dry-run, that would be). */
  added: number;
  /** Events the archive already held. */
  known: number;
  /** List pages read. */
  pages: number;
}

async function readArchive(file: string): Promise<{ ids: Set<number>; validLength: number; size: number }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { ids: new Set(), validLength: 0, size: 0 };
    throw error;
  }
  const ids = new Set<number>();
  // A run killed mid-append leaves a last line without its newline: it does not count.
  const validLength = text.endsWith("\n") ? text.length : text.lastIndexOf("\n") + 1;
  for (const line of text.slice(0, validLength).split("\n")) {
    if (line.trim() === "") continue;
    try {
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === "number") ids.add(id);
    } catch {
      // A line someone broke by hand stays as it is; its event is fetched again.
    }
  }
  return { ids, validLength: Buffer.byteLength(text.slice(0, validLength)), size: Buffer.byteLength(text) };
}

/**
 * Append the site's events not yet archived to events.ndjson, oldest first, one JSON object a
 * line with sorted keys. When the site lists newest first, paging stops at the first page that
 * reaches an archived event; otherwise every page is read. Deduplicated by id.
 */
export async function archiveEvents(
  root: string,
  client: { listAll(path: string, options?: ListOptions): Promise<Listing> },
  options: { dryRun?: boolean } = {},
): Promise<EventsResult> {
  const file = path.join(root, EVENTS_FILE);
  const archive = await readArchive(file);
  let newestFirst: boolean | undefined;
  const listing = await client.listAll("events", {
    stopAfter: (records) => {
      const ids = records
        .map((r) => (r as { id?: unknown }).id)
        .filter((id): id is number => typeof id === "number");
      if (newestFirst === undefined && ids.length >= 2) newestFirst = ids[0]! > ids[1]!;
      return newestFirst === true && ids.some((id) => archive.ids.has(id));
    },
  });
  const fresh: WireRecord[] = listing.records
    .filter((r) => !archive.ids.has(r.id))
    .sort((a, b) => a.id - b.id);
  const result = { added: fresh.length, known: listing.records.length - fresh.length, pages: listing.pages };
  if (options.dryRun || fresh.length === 0) return result;
  if (archive.validLength !== archive.size) await truncate(file, archive.validLength);
  const handle = await open(file, "a");
  try {
    await handle.writeFile(`${fresh.map((event) => JSON.stringify(sortKeys(event))).join("\n")}\n`);
  } finally {
    await handle.close();
  }
  return result;
}
