import { readFile, truncate } from "node:fs/promises";
import path from "node:path";
import { itemIdentity, type Listing, type ListOptions } from "../api/client.js";
import type { JsonObject } from "../api/wire.js";
import { guardedFs } from "../tree/tree-fs.js";
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

async function readArchive(file: string): Promise<{ ids: Set<unknown>; validLength: number; size: number }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { ids: new Set(), validLength: 0, size: 0 };
    throw error;
  }
  /** Identities of the archived events: the id, or the whole JSON of an event without one. */
  const ids = new Set<unknown>();
  // A run killed mid-append leaves a last line without its newline: it does not count.
  const validLength = text.endsWith("\n") ? text.length : text.lastIndexOf("\n") + 1;
  for (const line of text.slice(0, validLength).split("\n")) {
    if (line.trim() === "") continue;
    try {
      const event: unknown = JSON.parse(line);
      if (event !== null && typeof event === "object" && !Array.isArray(event))
        ids.add(itemIdentity(event as JsonObject));
    } catch {
      // A line someone broke by hand stays as it is; its event is fetched again.
    }
  }
  return { ids, validLength: Buffer.byteLength(text.slice(0, validLength)), size: Buffer.byteLength(text) };
}

/** When an event happened, for ordering: its id, else its `created_at` time (undefined: unknown). */
function eventOrder(events: readonly JsonObject[]): ((event: JsonObject) => number) | undefined {
  const id = (event: JsonObject) => (typeof event.id === "number" ? event.id : Number.NaN);
  if (events.every((event) => Number.isFinite(id(event)))) return id;
  const time = (event: JsonObject) =>
    typeof event.created_at === "string" ? Date.parse(event.created_at) : Number.NaN;
  if (events.every((event) => Number.isFinite(time(event)))) return time;
  return undefined;
}

/**
 * Append the site's events not yet archived to events.ndjson, oldest first, one JSON object a
 * line with sorted keys. When the site lists newest first, paging stops at the first page that
 * reaches an archived event; otherwise every page is read. Deduplicated by id; an event
 * without an id is known by its whole JSON, and without ids or `created_at` times the events
 * are archived in the order the site lists them.
 */
export async function archiveEvents(
  root: string,
  client: { listItems(path: string, options?: ListOptions): Promise<Listing<JsonObject>> },
  options: { dryRun?: boolean } = {},
): Promise<EventsResult> {
  const file = path.join(root, EVENTS_FILE);
  const archive = await readArchive(file);
  let newestFirst: boolean | undefined;
  const listing = await client.listItems("events", {
    stopAfter: (records) => {
      const events = records as JsonObject[];
      const order = eventOrder(events);
      if (newestFirst === undefined && order && events.length >= 2) {
        const [a, b] = [order(events[0]!), order(events.at(-1)!)];
        if (a !== b) newestFirst = a > b;
      }
      return newestFirst === true && events.some((event) => archive.ids.has(itemIdentity(event)));
    },
  });
  const fresh = listing.records.filter((event) => !archive.ids.has(itemIdentity(event)));
  // Oldest first: events of the same time keep the site's order, read oldest first.
  if (newestFirst) fresh.reverse();
  const order = eventOrder(fresh);
  if (order) fresh.sort((a, b) => order(a) - order(b));
  const result = { added: fresh.length, known: listing.records.length - fresh.length, pages: listing.pages };
  if (options.dryRun || fresh.length === 0) return result;
  if (archive.validLength !== archive.size) await truncate(file, archive.validLength);
  await guardedFs(root).appendFile(
    file,
    `${fresh.map((event) => JSON.stringify(sortKeys(event))).join("\n")}\n`,
  );
  return result;
}
