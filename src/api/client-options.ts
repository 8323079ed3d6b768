/** The options and answers of `ApiClient`'s methods. */
import type { Credentials } from "./auth.js";
import type { BackoffPolicy } from "./retry.js";
import type { WireRecord } from "./wire.js";

/** Options of `ApiClient`. */
export interface ApiClientOptions {
  /** The site's versioned API root, ending in /api/v1. The login address is derived from it. */
  baseUrl: string | URL;
  /**
   * A token (COURSESYNC_TOKEN or stored by `login`), and/or e-mail and password. Without a
   * token the client logs in before its first request; on a 401 it logs in again once per
   * request when it has e-mail and password.
   */
  credentials: Credentials;
  /** Requests in flight at once. @default 4 */
  concurrency?: number;
  /** Most requests started in any rolling second. @default undefined (no cap) */
  requestsPerSecond?: number;
  /** Retries after the first attempt, for errors worth retrying. @default 5 */
  retries?: number;
  /** Per-attempt timeout in milliseconds, from start to the end of the response. @default 30_000 */
  timeoutMs?: number;
  /** Waits between attempts and during 429 pauses. @default a setTimeout promise */
  sleep?: (ms: number) => Promise<void>;
  /** The clock, for Retry-After dates and the durations in log lines. @default Date.now */
  now?: () => number;
  /** Random source in [0, 1) for backoff jitter. @default Math.random */
  random?: () => number;
  /** Receives one line per HTTP attempt (`-v`), secrets redacted. @default no logging */
  log?: (line: string) => void;
  /**
   * Called with each new token after a login (first or repeated), so the CLI can store it. It
   * is awaited, and an error it throws fails the request that needed the login. @default none
   */
  onToken?: (token: string) => void | Promise<void>;
  /**
   * Reads the token stored for the site now. When the site refuses the token held, the stored
   * one is tried first when it is one the site has not refused yet (renewed by `coursesync
   * login` in another terminal, or by another run), before a login. @default none
   */
  storedToken?: () => Promise<string | undefined>;
  /** Backoff timing. @default defaultBackoffPolicy (500 ms doubling, 30 s cap, 120 s Retry-After cap) */
  backoff?: BackoffPolicy;
}

/** Options of `create`. */
export interface CreateOptions {
  /**
   * Says why the record the site answered with cannot be the one just created (undefined when
   * it can be): the create then fails with an error naming the request, its status and the id
   * the site named, with the reason and hint given. @default every answer is taken
   */
  check?: (record: WireRecord) => { reason: string; hint: string } | undefined;
}

/** Options of `listAll`. */
export interface ListOptions {
  /** Stop after the page for which this returns true (newest-first archives). Makes paging sequential. */
  stopAfter?: (pageRecords: unknown[], page: number) => boolean;
  /** Progress: page `page` of the listing arrived with `count` records. */
  onPage?: (page: number, count: number) => void;
  /**
   * Records the caller expects (the last sync's count): a listing may take 4 times their pages.
   * A function is asked as the listing goes (a count read while the first pages come).
   */
  expected?: number | (() => number);
  /**
   * Settles once `expected` tells the count (a count read while the first page comes): until
   * then no page after the first is asked for, as the count decides how far to ask.
   */
  expectedReady?: Promise<unknown>;
  /**
   * Each page's records as they arrive, before the listing is known to be whole (a page past
   * the end or of a listing that later fails is handed over too): to work on them early.
   */
  onRecords?: (records: WireRecord[], page: number) => void;
}

/** A whole listing. */
export interface Listing<T extends object = WireRecord> {
  /** Records in page order, deduplicated by id (first occurrence wins). */
  records: T[];
  /** Page numbers read up to the one that showed the end. */
  pages: number;
  /** HTTP attempts this listing sent: pages, look-ahead past the end, and retries. */
  requests: number;
}
