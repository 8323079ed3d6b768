/** The emulator's options, their checks, and what a started emulator offers. */
import type { PagingHeaders, ResponseShape } from "./api-routes.js";
import type { Faults } from "./faults.js";
import type { EmulatorState, ListOrder, Normalise } from "./state.js";

/** How to run the emulator. Every field is optional. */
export interface EmulatorOptions {
  /** Port on 127.0.0.1; default 0 = any free port. */
  port?: number;
  /** A tree to seed from (courses/<folder>/course.yaml + HTML chapters); default null = empty. */
  seedDir?: string | null;
  /** Records per list page; default 25. */
  pageSize?: number;
  /**
   * How lists are ordered: "id" (default) ascending; "updated_at" oldest first (then id), so an
   * edit moves a record to the end of the list, as on sites that list by last change.
   */
  listOrder?: ListOrder;
  /** Milliseconds added before every API response; default 0. */
  latencyMs?: number;
  /** Most API requests in any 1 s window (whole number); over it 429 + Retry-After. Default unlimited. */
  rate?: number;
  /** Probability (0..1) of a 500/502/503 with a JSON error body, nothing applied. Default 0. */
  failRate?: number;
  /** Probability (0..1) the connection is dropped without a response, nothing applied. Default 0. */
  resetRate?: number;
  /** Probability (0..1) that an applied POST/PATCH/DELETE loses its response (dropped connection). Default 0. */
  lostWriteRate?: number;
  /** Serve the /__admin/ control routes; default false. */
  admin?: boolean;
  /** The account e-mail; default demo@example.com. */
  email?: string;
  /** The account password; default coursesync. */
  password?: string;
  /** Tokens expire this long after login, by the `now` clock (401 afterwards); default never. */
  tokenTtlMs?: number;
  /** Tokens expire after this many API requests (401 afterwards); default never. */
  tokenUses?: number;
  /**
   * With a rate limit, rate-limit headers on every API answer: "ietf" `RateLimit-Limit`,
   * `-Remaining`, `-Reset` (seconds) and `RateLimit-Policy` (`5;w=1`); "x" `X-RateLimit-Limit`,
   * `-Remaining`, `-Reset` (epoch seconds); "none" (default) no such headers.
   */
  rateHeaders?: RateHeaderStyle;
  /**
   * Show/create/update bodies: "bare" (default) the record; "wrapped" `{"course": {...}}`;
   * "empty" no body: create 201 (with Location), update 204; show stays bare.
   */
  responseShape?: ResponseShape;
  /**
   * How the site normalises what it stores, as real ones do: `{ ordinals: "place" }` puts a new
   * chapter at the end of its course whatever ordinal it was sent (acts_as_list);
   * `{ titles: "trim" }` stores titles trimmed, white space collapsed. @default none
   */
  normalise?: Normalise;
  /** List paging headers: "none" (default); "link" RFC 8288 rel=next/last; "total" X-Total-Count + X-Total-Pages. */
  pagingHeaders?: PagingHeaders;
  /** A list page past the last one: "empty" (default) an empty array; "404" Not Found, as some frameworks answer. */
  pastLastPage?: "empty" | "404";
  /** Serve events without their ids (default: with), as a site whose events have none would. */
  eventIds?: boolean;
  /**
   * False: the site has no events: none is recorded and GET /events answers 404 as an unknown
   * path does. @default true (one event per record created, updated or deleted)
   */
  events?: boolean;
  /**
   * Keep only the newest this many events (a whole number, 1 or more); older ones drop as new
   * ones come, so a reader that fell behind finds the oldest event it knew gone. @default all
   */
  eventsKept?: number;
  /** Lists leave out chapters' content and courses' excerpt, as summary lists do (default: full). */
  summaryLists?: boolean;
  /**
   * Told of each API request the store answered (not one a fault or the rate limit answered),
   * right after its answer is made and before any other request is routed: a test in this
   * process can change the store (`state`) there, e.g. delete records after page 2 of a list
   * is served, so that the next pages shift as on a busy site.
   */
  onAnswered?: (request: AnsweredRequest) => void;
  /** Seeds the PRNG of the random faults, so a test sees the same faults on every run. */
  randomSeed?: number;
  /** The clock for timestamps and token expiry; default the system clock. */
  now?: () => Date;
  /** Milliseconds of a monotonic clock for the rate window; default performance.now. */
  rateClock?: () => number;
  /**
   * How a request waits out latencyMs (aborted when the emulator closes), told which request it
   * is; default a setTimeout promise.
   */
  latencySleep?: (
    ms: number,
    signal: AbortSignal,
    request: { method: string; path: string },
  ) => Promise<unknown>;
}

/** An API request the store answered: what `onAnswered` is told. */
export interface AnsweredRequest {
  method: string;
  /** The path, e.g. `/api/v1/chapters`. */
  path: string;
  /** The `page` query parameter of a list request, when it is a whole number. */
  page: number | undefined;
  status: number;
}

/** Which rate-limit headers the emulator sends. */
export type RateHeaderStyle = "ietf" | "x" | "none";

/** A started emulator. */
export interface RunningEmulator {
  /** `http://127.0.0.1:PORT/api/v1` */
  baseUrl: string;
  /** `http://127.0.0.1:PORT/api/login` */
  loginUrl: string;
  port: number;
  /** The store: the same operations as the control routes, for tests in this process. */
  state: EmulatorState;
  /** The fault levels and one-shots, changeable at runtime. */
  faults: Faults;
  /** Stop listening and drop every connection. */
  close(): Promise<void>;
}

/** Throw a RangeError naming the first option out of its range. */
export function checkOptions(options: EmulatorOptions): void {
  const fail = (name: string, expected: string, value: unknown) => {
    throw new RangeError(`emulator option ${name} must be ${expected}, not ${JSON.stringify(value)}`);
  };
  const { port, pageSize, latencyMs, rate, tokenTtlMs, responseShape, pagingHeaders } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    fail("port", "a whole number from 0 to 65535", port);
  }
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1)) {
    fail("pageSize", "a whole number, 1 or more", pageSize);
  }
  if (latencyMs !== undefined && !(latencyMs >= 0 && latencyMs < 2 ** 31))
    fail("latencyMs", "0 or more", latencyMs);
  if (rate !== undefined && !(Number.isInteger(rate) && rate >= 1))
    fail("rate", "a whole number, 1 or more", rate);
  for (const name of ["failRate", "resetRate", "lostWriteRate"] as const) {
    const p = options[name];
    if (p !== undefined && !(p >= 0 && p <= 1)) fail(name, "a probability from 0 to 1", p);
  }
  if (tokenTtlMs !== undefined && !(tokenTtlMs > 0)) fail("tokenTtlMs", "more than 0", tokenTtlMs);
  const { tokenUses, rateHeaders } = options;
  if (tokenUses !== undefined && !(Number.isInteger(tokenUses) && tokenUses >= 1))
    fail("tokenUses", "a whole number, 1 or more", tokenUses);
  if (rateHeaders !== undefined && !["ietf", "x", "none"].includes(rateHeaders)) {
    fail("rateHeaders", '"ietf", "x" or "none"', rateHeaders);
  }
  if (responseShape !== undefined && !["bare", "wrapped", "empty"].includes(responseShape)) {
    fail("responseShape", '"bare", "wrapped" or "empty"', responseShape);
  }
  if (options.listOrder !== undefined && !["id", "updated_at"].includes(options.listOrder)) {
    fail("listOrder", '"id" or "updated_at"', options.listOrder);
  }
  if (options.pastLastPage !== undefined && !["empty", "404"].includes(options.pastLastPage)) {
    fail("pastLastPage", '"empty" or "404"', options.pastLastPage);
  }
  if (pagingHeaders !== undefined && !["none", "link", "total"].includes(pagingHeaders)) {
    fail("pagingHeaders", '"none", "link" or "total"', pagingHeaders);
  }
  const { eventsKept } = options;
  if (eventsKept !== undefined && !(Number.isSafeInteger(eventsKept) && eventsKept >= 1))
    fail("eventsKept", "a whole number, 1 or more", eventsKept);
}
