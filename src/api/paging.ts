import type { IncomingHttpHeaders } from "node:http";
import { UserError } from "../errors.js";
import type { WireRecord } from "./wire.js";

/** One list page as the client read it: its records (checked to carry ids, for resources), and the headers. */
export interface Page<T extends object = WireRecord> {
  records: T[];
  headers: IncomingHttpHeaders;
  /**
   * The server answered Not Found for this page (a page after the first). Some servers answer
   * so past the end of a list: the list ends on the page before when the page after this one
   * is Not Found too and this one stays Not Found when asked again. Otherwise the list has a
   * hole, and this answer is its error.
   */
  pastEnd?: Error;
}

/** What `collectPages` needs besides the fetcher. */
export interface CollectOptions<T extends object = WireRecord> {
  /** Pages in flight at once; read again before each new request (429s lower it). */
  window: () => number;
  /**
   * Called with each page's records in order; true stops paging after that page. With it,
   * paging is sequential (page n+1 is asked for only after page n was read).
   */
  stopAfter?: (pageRecords: unknown[], page: number) => boolean;
  /** Progress: a page of the listing arrived with `count` records. */
  onPage?: (page: number, count: number) => void;
  /** What makes two records the same one, kept once (default: the id). */
  identity?: (record: T) => unknown;
  /** Records the caller expects (the last sync's count): sizes the cap on pages. @default 0 */
  expected?: number;
  /** The page's address as errors show it (redacted). @default "page N" */
  describe?: (page: number) => string;
}

/** Pages a listing may take without headers that say how many: a floor, or 4 times what is expected. */
export const PAGE_CAP_FLOOR = 10_000;

/** The most pages a listing may read before it is taken as a runaway. */
export function pageCap(expected: number, pageLength: number): number {
  return Math.max(PAGE_CAP_FLOOR, 4 * Math.ceil(expected / Math.max(1, pageLength)));
}

/** A listing that cannot be trusted to be whole: the site's paging misbehaves. */
export class ListingError extends UserError {
  constructor(message: string) {
    super(message, {
      hint: "Nothing was changed. The site's paging does not behave as a list should; try again later, and report it to the site if it persists.",
    });
  }
}

/** The listing: records in page order, first occurrence of each id, and the pages it spans. */
export interface Collected<T extends object = WireRecord> {
  records: T[];
  /** Page numbers read up to the one that showed the end (an empty final page included). */
  pages: number;
}

/** Where the server's Link header points, as page numbers. */
export interface LinkPages {
  next?: number;
  last?: number;
}

/** Parse an RFC 8288 Link header for rel="next" and rel="last" page numbers. */
export function parseLinkHeader(value: string | string[] | undefined): LinkPages | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(", ") : value;
  const result: LinkPages = {};
  let sawLink = false;
  for (const match of text.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]*)*)/g)) {
    sawLink = true;
    const href = match[1] ?? "";
    const rel = /;\s*rel\s*=\s*"?([^";,]*)"?/i.exec(match[2] ?? "")?.[1];
    if (rel === undefined) continue;
    const page = pageParam(href);
    if (page === undefined) continue;
    for (const r of rel.toLowerCase().split(/\s+/)) {
      if (r === "next") result.next = page;
      if (r === "last") result.last = page;
    }
  }
  return sawLink ? result : undefined;
}

function pageParam(href: string): number | undefined {
  let url: URL;
  try {
    url = new URL(href, "http://relative.invalid/");
  } catch {
    return undefined;
  }
  const raw = url.searchParams.get("page");
  if (raw === null || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

function headerNumber(headers: IncomingHttpHeaders, names: readonly string[]): number | undefined {
  for (const name of names) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value !== undefined && /^\s*\d+\s*$/.test(value)) return Number(value);
  }
  return undefined;
}

/**
 * The last page number the headers promise, if they say: Link rel="last", X-Total-Pages, or a
 * total count (X-Total-Count, X-Total, Total) divided by the page size (X-Per-Page, Per-Page,
 * or the length of page 1 when that is the page read).
 */
export function lastPageFromHeaders(
  headers: IncomingHttpHeaders,
  page: number,
  pageLength: number,
): number | undefined {
  const link = parseLinkHeader(headers.link);
  if (link?.last !== undefined) return Math.max(link.last, 1);
  const totalPages = headerNumber(headers, ["x-total-pages", "total-pages"]);
  if (totalPages !== undefined) return Math.max(totalPages, 1);
  const total = headerNumber(headers, ["x-total-count", "x-total", "total"]);
  if (total === undefined) return undefined;
  if (total === 0) return 1;
  const perPage = headerNumber(headers, ["x-per-page", "per-page"]) ?? (page === 1 ? pageLength : 0);
  if (perPage <= 0) return undefined;
  return Math.max(Math.ceil(total / perPage), 1);
}

/**
 * Read every page of a listing, from 1 until the end shows. Without hints from the headers a
 * window of pages is kept in flight; a page that is empty, or shorter than the largest page
 * seen, marks the end and no page after it is asked for. Pages past the end that were already
 * in flight (at most one window) are awaited and ignored. With Link rel="last" or total-count
 * headers on page 1, exactly the pages needed are read; with rel="next" alone, each page says
 * whether the next one exists, so paging follows it one page at a time.
 *
 * Any page of the listing that fails rejects the whole listing: a partial listing must never
 * pass for a complete one. A page answered Not Found ends the list only where the site answers
 * so past its end (see `confirmPastEnd`). A full page that brings nothing new, a Link that
 * points back, or more pages than `pageCap` rejects the listing too (see `PageGuard`).
 */
export function collectPages<T extends object = WireRecord>(
  fetchPage: (page: number) => Promise<Page<T>>,
  options: CollectOptions<T>,
): Promise<Collected<T>> {
  const guard = new PageGuard(options);
  if (options.stopAfter !== undefined)
    return collectSequential(fetchPage, options.stopAfter, options.onPage, guard);
  return collectConcurrent(fetchPage, options, guard);
}

/**
 * What makes a listing untrustworthy, checked page by page in page order: a full page that
 * brings no record not seen before (a site that ignores `?page=`, or pages in a loop), a Link
 * rel="next" that does not point forward, and more pages than any plausible listing.
 */
class PageGuard<T extends object> {
  readonly identity: (record: T) => unknown;
  readonly #seen = new Set<unknown>();
  readonly #expected: number;
  readonly #describe: (page: number) => string;
  #largest = 0;

  constructor(options: CollectOptions<T>) {
    this.identity = options.identity ?? ((record: T) => (record as unknown as WireRecord).id);
    this.#expected = options.expected ?? 0;
    this.#describe = options.describe ?? ((page) => `page ${page}`);
  }

  /** Take the next page in order; an error when it shows the listing cannot be trusted. */
  fold(page: number, result: Page<T>): ListingError | undefined {
    const records = result.records;
    const full = records.length > 0 && records.length >= this.#largest;
    let fresh = false;
    for (const record of records) {
      const key = this.identity(record);
      if (!this.#seen.has(key)) fresh = true;
      this.#seen.add(key);
    }
    this.#largest = Math.max(this.#largest, records.length);
    if (page > 1 && full && !fresh)
      return new ListingError(
        `the site repeats page ${page - 1}: ${this.#describe(page)} brought no record that earlier pages did not (does the site ignore ?page=?)`,
      );
    return undefined;
  }

  /** Paging by rel="next": one that points back (or at the same page) would page forever. */
  linkLoop(page: number, next: number): ListingError {
    return new ListingError(
      `the Link header of ${this.#describe(page)} points back to page ${next} as the next page`,
    );
  }

  /** An error when `page` is past the cap for this listing. */
  checkCap(page: number): ListingError | undefined {
    const cap = pageCap(this.#expected, this.#largest);
    if (page <= cap) return undefined;
    return new ListingError(
      `the listing did not end after ${cap} pages (${this.#describe(page)} would be next): stopped, as the site seems to page without end`,
    );
  }
}

async function collectSequential<T extends object>(
  fetchPage: (page: number) => Promise<Page<T>>,
  stopAfter: (pageRecords: unknown[], page: number) => boolean,
  onPage: ((page: number, count: number) => void) | undefined,
  guard: PageGuard<T>,
): Promise<Collected<T>> {
  const pages: Page<T>[] = [];
  let largest = 0;
  let last: number | undefined;
  for (let page = 1; ; page++) {
    const capped = guard.checkCap(page);
    if (capped) throw capped;
    const result = await fetchPage(page);
    if (result.pastEnd) {
      if (!(await confirmPastEnd(fetchPage, page))) throw result.pastEnd;
      break;
    }
    const broken = guard.fold(page, result);
    if (broken) throw broken;
    pages.push(result);
    const count = result.records.length;
    onPage?.(page, count);
    if (count === 0 || stopAfter(result.records, page)) break;
    const link = parseLinkHeader(result.headers.link);
    if (page === 1) last = lastPageFromHeaders(result.headers, page, count);
    if (last !== undefined && page >= last) break;
    if (last === undefined && link !== undefined && link.next === undefined) break;
    if (last === undefined && link?.next !== undefined && link.next <= page)
      throw guard.linkLoop(page, link.next);
    if (count < largest) break;
    largest = Math.max(largest, count);
  }
  return { records: dedupe(pages, guard.identity), pages: pages.length };
}

/**
 * A page answered Not Found ends the list only on a site that answers so past its end: the
 * page after it is Not Found too (an empty page there shows the site answers 200 past the end,
 * so the Not Found was a hole), and the page itself, asked once more, is still Not Found.
 */
async function confirmPastEnd<T extends object>(
  fetchPage: (page: number) => Promise<Page<T>>,
  page: number,
): Promise<boolean> {
  if (!(await fetchPage(page + 1)).pastEnd) return false;
  return (await fetchPage(page)).pastEnd !== undefined;
}

function collectConcurrent<T extends object>(
  fetchPage: (page: number) => Promise<Page<T>>,
  options: CollectOptions<T>,
  guard: PageGuard<T>,
): Promise<Collected<T>> {
  return new Promise<Collected<T>>((resolve, reject) => {
    const results = new Map<number, Page<T>>();
    const failures = new Map<number, unknown>();
    /** Pages answered Not Found, read as past the end (see Page.pastEnd). */
    const pastEnd = new Map<number, Error>();
    /** The last page of the listing, once something showed it. */
    let end = Number.POSITIVE_INFINITY;
    /** Pages the headers said exist (rel=last, totals): scheduled without guessing. */
    let exactLast: number | undefined;
    /** rel=next without rel=last: pages up to this one are known to exist. */
    let knownToExist: number | undefined;
    /** Pages up to this one were checked by the guard, in order. */
    let folded = 0;
    let largest = 0;
    let nextPage = 1;
    let inFlight = 0;
    let settled = false;

    // With the end set by a Not Found page, the page after that one confirms it.
    const confirming = (page: number): boolean => pastEnd.has(end + 1) && page === end + 2;

    const mayStart = (page: number): boolean => {
      if (failures.size > 0 || (page > end && !confirming(page))) return false;
      if (page === 1) return true;
      if (!results.has(1)) return false; // page 1 alone first: its headers may say how many
      if (exactLast !== undefined) return page <= exactLast;
      if (knownToExist !== undefined) return page <= knownToExist;
      return true;
    };

    // The guard sees pages in order, whatever order they arrive in.
    const foldInOrder = (): void => {
      while (folded < end && results.has(folded + 1) && failures.size === 0) {
        const page = folded + 1;
        const broken = guard.fold(page, results.get(page)!);
        if (broken) failures.set(page, broken);
        folded = page;
      }
    };

    const onResult = (page: number, result: Page<T>): void => {
      if (result.pastEnd) {
        pastEnd.set(page, result.pastEnd);
        end = Math.min(end, page - 1);
        return;
      }
      results.set(page, result);
      const count = result.records.length;
      if (page === 1) {
        exactLast = lastPageFromHeaders(result.headers, 1, count);
        if (exactLast !== undefined) end = Math.min(end, exactLast);
      }
      if (exactLast === undefined) {
        const link = parseLinkHeader(result.headers.link);
        if (link !== undefined) {
          if (link.next !== undefined && link.next > page)
            knownToExist = Math.max(knownToExist ?? 0, link.next);
          else if (link.next === undefined) end = Math.min(end, page);
          else failures.set(page, guard.linkLoop(page, link.next));
        } else if (knownToExist !== undefined) {
          knownToExist = undefined; // the links stopped coming: fall back to page lengths
        }
      }
      if (count === 0 || count < largest) end = Math.min(end, page);
      largest = Math.max(largest, count);
      if (page <= end) options.onPage?.(page, count);
      foldInOrder();
    };

    const succeed = (): void => {
      const pages: Page<T>[] = [];
      for (let page = 1; page <= end; page++) {
        const result = results.get(page);
        if (result === undefined) {
          // Unreachable when every page up to the end succeeded; guard rather than return a gap.
          reject(new Error(`listing stopped before page ${page} was read`));
          return;
        }
        pages.push(result);
      }
      resolve({ records: dedupe(pages, guard.identity), pages: pages.length });
    };

    const finish = (): void => {
      if (settled || inFlight > 0) return;
      settled = true;
      const failed = [...failures.keys()].filter((page) => page <= end).sort((a, b) => a - b)[0];
      if (failed !== undefined) {
        reject(failures.get(failed));
        return;
      }
      // An end set by a Not Found page holds only on a site that answers so past its end (see
      // confirmPastEnd), and when no page after it holds records; else it was a hole in the list.
      const notFound = pastEnd.get(end + 1);
      if (notFound === undefined) {
        succeed();
        return;
      }
      const after = [...results].some(([page, result]) => page > end && result.records.length > 0);
      if (!pastEnd.has(end + 2) || after) {
        reject(notFound);
        return;
      }
      fetchPage(end + 1).then(
        (again) => (again.pastEnd ? succeed() : reject(notFound)),
        () => reject(notFound),
      );
    };

    const pump = (): void => {
      while (inFlight < Math.max(1, options.window()) && mayStart(nextPage)) {
        const capped = exactLast === undefined ? guard.checkCap(nextPage) : undefined;
        if (capped) {
          failures.set(nextPage, capped);
          end = Math.min(end, nextPage);
          break;
        }
        const page = nextPage++;
        inFlight += 1;
        fetchPage(page).then(
          (result) => {
            inFlight -= 1;
            onResult(page, result);
            pump();
          },
          (error: unknown) => {
            inFlight -= 1;
            failures.set(page, error);
            pump();
          },
        );
      }
      if (inFlight === 0) finish();
    };

    pump();
  });
}

/** Records of the pages in order, keeping the first occurrence of each record. */
function dedupe<T extends object>(pages: readonly Page<T>[], identity: (record: T) => unknown): T[] {
  const seen = new Set<unknown>();
  const records: T[] = [];
  for (const page of pages) {
    for (const record of page.records) {
      const key = identity(record);
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(record);
    }
  }
  return records;
}
