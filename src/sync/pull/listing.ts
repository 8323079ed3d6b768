import path from "node:path";
import type { Listing, ListOptions } from "../../api/client.js";
import type { WireRecord } from "../../api/wire.js";
import { guardSnapshotSite } from "../guards.js";
import { recordedSite } from "../state/snapshot.js";
import type { Snapshot } from "../state/snapshot-model.js";
import { SiteState } from "../state/workspace.js";

// The two lists of a pull, started as soon as the last sync is read: before the rest of pull
// (the Markdown converter, the planner) has loaded, which then loads while the first pages are
// on their way. Pages that arrive before their handlers are attached wait for them, in order.

/** The part of the API client the lists need. */
export interface ListClient {
  listAll(path: string, options?: ListOptions): Promise<Listing>;
}

/** Which list a page comes from. */
export type ListName = "courses" | "chapters";

/** What the lists tell as they go. */
export interface ListingCallbacks {
  /** Progress of the listings. */
  onPage?: ((list: ListName, page: number, count: number) => void) | undefined;
  /** Told before the listings how many records each is expected to hold (the last sync's count). */
  onExpected?: ((list: ListName, records: number) => void) | undefined;
}

/** The lists of a pull, under way. */
export interface StartedListing {
  /** The last sync, as read when the lists started (before them, or while their first pages came). */
  loaded: Snapshot | undefined;
  /** Both lists, whole; a failure of any page fails it. */
  listed: Promise<[Listing, Listing]>;
  /**
   * Hand each page's records to these, from now on: the pages that came before are handed
   * over at once, in order. Called once; a list without a handler drops its pages here.
   */
  attach(handlers: Partial<Record<ListName, (records: WireRecord[]) => void>>): void;
}

/** Read the last sync, refusing one made for another site than the one to be read. */
export async function loadListedSnapshot(options: {
  root: string;
  site: string;
  siteUrl: string;
}): Promise<Snapshot | undefined> {
  const { root, site } = options;
  const state = SiteState.open(root, site);
  const loaded = await state.loadSnapshot();
  if (loaded) {
    guardSnapshotSite(
      `the snapshot ${path.relative(root, state.paths.snapshot)}`,
      loaded.site,
      options.siteUrl,
      "Use the site the tree was pulled from (--site), or start a new tree for this one.",
    );
  }
  return loaded;
}

/**
 * Start both lists at once through the client's one gate, and read the last sync (refusing
 * one made for another site). When the snapshot's site.json already names this site, the
 * lists (and the login) go out first and the last sync is read while they are on their way;
 * otherwise the last sync is read, and guarded, before any request. The lists only read the
 * site, so starting them early is harmless.
 */
export async function startListing(
  options: { root: string; site: string; siteUrl: string } & ListingCallbacks,
  client: ListClient,
): Promise<StartedListing> {
  // The last sync's counts size the listings' cap on pages (see api/paging.ts): read as they go.
  const expected = { courses: 0, chapters: 0 };
  let counted: () => void = () => {};
  const expectedReady = new Promise<void>((resolve) => (counted = resolve));
  let handlers: Partial<Record<ListName, (records: WireRecord[]) => void>> | undefined;
  const waiting: Array<[ListName, WireRecord[]]> = [];
  const list = (name: ListName) =>
    client.listAll(name, {
      onPage: (page, count) => options.onPage?.(name, page, count),
      expected: () => expected[name],
      expectedReady,
      onRecords: (records: WireRecord[]) => {
        if (handlers) handlers[name]?.(records);
        else waiting.push([name, records]);
      },
    });
  const start = () => {
    const both = Promise.all([list("courses"), list("chapters")]);
    // Handled by whoever awaits it; this only keeps an early exit from an unhandled rejection.
    both.catch(() => {});
    return both;
  };
  const early = recordedSite(options.root, options.site) === options.siteUrl ? start() : undefined;
  let loaded: Snapshot | undefined;
  try {
    loaded = await loadListedSnapshot(options);
    expected.courses = Object.keys(loaded?.courses ?? {}).length;
    expected.chapters = Object.keys(loaded?.chapters ?? {}).length;
  } finally {
    // Told even when the last sync cannot be read: lists started early then end as they would.
    counted();
  }
  options.onExpected?.("courses", expected.courses);
  options.onExpected?.("chapters", expected.chapters);
  return {
    loaded,
    listed: early ?? start(),
    attach(given) {
      handlers = given;
      for (const [name, records] of waiting.splice(0)) given[name]?.(records);
    },
  };
}
