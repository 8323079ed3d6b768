import type { IncomingHttpHeaders } from "node:http";
import { UserError } from "../errors.js";
import { lastPageFromHeaders, parseLinkHeader } from "./page-headers.js";
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
  /**
   * Records the caller expects (the last sync's count): sizes the cap on pages, and holds
   * pages past the one where that many records end until that page came back (see
   * `collectPages`). A function is asked each time (a count known only once the listing is
   * under way). @default 0
   */
  expected?: number | (() => number);
  /** Settles once `expected` tells the count: no page after the first is asked for before. */
  expectedReady?: Promise<unknown> | undefined;
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

/**
 * Read every page of a listing, from 1 until the end shows. Without hints from the headers a
 * window of pages is kept in flight; a page that is empty, or shorter than the largest page
 * seen, marks the end and no page after it is asked for. Pages past the end that were already
 * in flight (at most one window) are awaited and ignored. With `expected` records, no page past
 * the one that would hold one record more is asked for until that page came back: full (the
 * list grew), the window goes on from there. With Link rel="last" or total-count
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
  /** Records the caller expects (see CollectOptions.expected). */
  readonly expected: () => number;
  readonly #describe: (page: number) => string;
  #largest = 0;

  constructor(options: CollectOptions<T>) {
    this.identity = options.identity ?? ((record: T) => (record as unknown as WireRecord).id);
    const expected = options.expected ?? 0;
    this.expected = typeof expected === "number" ? () => expected : expected;
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
    const cap = pageCap(this.expected(), this.#largest);
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
    const listing = new ConcurrentListing(fetchPage, options, guard, resolve, reject);
    listing.pump();
    const again = () => listing.countKnown();
    options.expectedReady?.then(again, again);
  });
}

/** One listing read with a window of pages in flight (see `collectPages`); settles its promise once. */
class ConcurrentListing<T extends object> {
  readonly #results = new Map<number, Page<T>>();
  readonly #failures = new Map<number, unknown>();
  /** Pages answered Not Found, read as past the end (see Page.pastEnd). */
  readonly #pastEnd = new Map<number, Error>();
  /** The last page of the listing, once something showed it. */
  #end = Number.POSITIVE_INFINITY;
  /** Pages the headers said exist (rel=last, totals): scheduled without guessing. */
  #exactLast: number | undefined;
  /** rel=next without rel=last: pages up to this one are known to exist. */
  #knownToExist: number | undefined;
  /** Pages up to this one were checked by the guard, in order. */
  #folded = 0;
  #largest = 0;
  #nextPage = 1;
  #inFlight = 0;
  #settled = false;
  /** Whether `expected` tells the count yet (see CollectOptions.expectedReady). */
  #countKnown: boolean;

  constructor(
    readonly fetchPage: (page: number) => Promise<Page<T>>,
    readonly options: CollectOptions<T>,
    readonly guard: PageGuard<T>,
    readonly resolve: (collected: Collected<T>) => void,
    readonly reject: (error: unknown) => void,
  ) {
    this.#countKnown = options.expectedReady === undefined;
  }

  /** The expected count is known now: the pages it allows may go. */
  countKnown(): void {
    this.#countKnown = true;
    this.pump();
  }

  /** With the end set by a Not Found page, the page after that one confirms it. */
  #confirming(page: number): boolean {
    return this.#pastEnd.has(this.#end + 1) && page === this.#end + 2;
  }

  #mayStart(page: number): boolean {
    if (this.#failures.size > 0 || (page > this.#end && !this.#confirming(page))) return false;
    if (page === 1) return true;
    if (!this.#results.has(1)) return false; // page 1 alone first: its headers may say how many
    if (this.#exactLast !== undefined) return page <= this.#exactLast;
    if (this.#knownToExist !== undefined) return page <= this.#knownToExist;
    return this.#countKnown && !this.#heldByExpected(page);
  }

  /**
   * With the last sync's count, pages past the one that would hold one record more (short or
   * empty there: the end) wait until it came back; full (the site grew), paging goes on.
   */
  #heldByExpected(page: number): boolean {
    const expected = this.guard.expected();
    if (expected <= 0 || this.#largest === 0) return false;
    const ending = Math.ceil((expected + 1) / this.#largest);
    return page > ending && !this.#results.has(ending) && !this.#pastEnd.has(ending);
  }

  /** The guard sees pages in order, whatever order they arrive in. */
  #foldInOrder(): void {
    while (this.#folded < this.#end && this.#results.has(this.#folded + 1) && this.#failures.size === 0) {
      const page = this.#folded + 1;
      const broken = this.guard.fold(page, this.#results.get(page)!);
      if (broken) this.#failures.set(page, broken);
      this.#folded = page;
    }
  }

  #onResult(page: number, result: Page<T>): void {
    if (result.pastEnd) {
      this.#pastEnd.set(page, result.pastEnd);
      this.#end = Math.min(this.#end, page - 1);
      return;
    }
    this.#results.set(page, result);
    const count = result.records.length;
    if (page === 1) {
      this.#exactLast = lastPageFromHeaders(result.headers, 1, count);
      if (this.#exactLast !== undefined) this.#end = Math.min(this.#end, this.#exactLast);
    }
    if (this.#exactLast === undefined) this.#followLinks(page, result);
    if (count === 0 || count < this.#largest) this.#end = Math.min(this.#end, page);
    this.#largest = Math.max(this.#largest, count);
    if (page <= this.#end) this.options.onPage?.(page, count);
    this.#foldInOrder();
  }

  /** Without a known last page: rel="next" says which pages exist, or where the list ends. */
  #followLinks(page: number, result: Page<T>): void {
    const link = parseLinkHeader(result.headers.link);
    if (link !== undefined) {
      if (link.next !== undefined && link.next > page)
        this.#knownToExist = Math.max(this.#knownToExist ?? 0, link.next);
      else if (link.next === undefined) this.#end = Math.min(this.#end, page);
      else this.#failures.set(page, this.guard.linkLoop(page, link.next));
    } else if (this.#knownToExist !== undefined) {
      this.#knownToExist = undefined; // the links stopped coming: fall back to page lengths
    }
  }

  #succeed(): void {
    const pages: Page<T>[] = [];
    for (let page = 1; page <= this.#end; page++) {
      const result = this.#results.get(page);
      if (result === undefined) {
        // Unreachable when every page up to the end succeeded; guard rather than return a gap.
        this.reject(new Error(`listing stopped before page ${page} was read`));
        return;
      }
      pages.push(result);
    }
    this.resolve({ records: dedupe(pages, this.guard.identity), pages: pages.length });
  }

  #finish(): void {
    if (this.#settled || this.#inFlight > 0) return;
    this.#settled = true;
    const end = this.#end;
    const failed = [...this.#failures.keys()].filter((page) => page <= end).sort((a, b) => a - b)[0];
    if (failed !== undefined) {
      this.reject(this.#failures.get(failed));
      return;
    }
    // An end set by a Not Found page holds only on a site that answers so past its end (see
    // confirmPastEnd), and when no page after it holds records; else it was a hole in the list.
    const notFound = this.#pastEnd.get(end + 1);
    if (notFound === undefined) {
      this.#succeed();
      return;
    }
    const after = [...this.#results].some(([page, result]) => page > end && result.records.length > 0);
    if (!this.#pastEnd.has(end + 2) || after) {
      this.reject(notFound);
      return;
    }
    this.fetchPage(end + 1).then(
      (again) => (again.pastEnd ? this.#succeed() : this.reject(notFound)),
      () => this.reject(notFound),
    );
  }

  /** Start pages while the window and what is known allow; finish when none is in flight. */
  pump(): void {
    if (this.#settled) return;
    while (this.#inFlight < Math.max(1, this.options.window()) && this.#mayStart(this.#nextPage)) {
      const capped = this.#exactLast === undefined ? this.guard.checkCap(this.#nextPage) : undefined;
      if (capped) {
        this.#failures.set(this.#nextPage, capped);
        this.#end = Math.min(this.#end, this.#nextPage);
        break;
      }
      const page = this.#nextPage++;
      this.#inFlight += 1;
      this.fetchPage(page).then(
        (result) => {
          this.#inFlight -= 1;
          this.#onResult(page, result);
          this.pump();
        },
        (error: unknown) => {
          this.#inFlight -= 1;
          this.#failures.set(page, error);
          this.pump();
        },
      );
    }
    // Waiting for the count to know how far to ask is not the end of the listing.
    const waiting = !this.#countKnown && this.#failures.size === 0 && this.#nextPage <= this.#end;
    if (this.#inFlight === 0 && !waiting) this.#finish();
  }
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
