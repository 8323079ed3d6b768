/**
 * The API emulator's HTTP server (node:http): serves API.md on 127.0.0.1 from memory, with the
 * faults the options ask for, and the /__admin/ control routes when enabled.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { ADMIN_ROOT, routeAdmin } from "./admin-routes.js";
import {
  API_ROOT,
  type ApiContext,
  isResourceWrite,
  LOGIN_PATH,
  type PagingHeaders,
  type Reply,
  type ResponseShape,
  type RouteRequest,
  routeApi,
} from "./api-routes.js";
import { Faults } from "./faults.js";
import { formatTimestamp, type StateDump } from "./records.js";
import { loadSeed } from "./seed.js";
import {
  EmulatorState,
  type FaultKind,
  type ListOrder,
  type Normalise,
  type RequestLogEntry,
} from "./state.js";

export type { PagingHeaders, ResponseShape } from "./api-routes.js";
export type { FaultPatch, FaultSettings, PendingOneShots, RequestMatch } from "./faults.js";
export { Faults } from "./faults.js";
export type { ChapterRecord, CourseRecord, EventRecord, EventType, StateDump } from "./records.js";
export type { FaultKind, ListOrder, Normalise, RequestLogEntry } from "./state.js";
export { EmulatorState } from "./state.js";

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

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const SECRET_PARAMS = new Set(["email", "password", "auth_token", "token"]);

function checkOptions(options: EmulatorOptions): void {
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
}

/** The query string for the request log, credentials replaced by `[redacted]`. */
function redactQuery(params: URLSearchParams): string {
  return [...params]
    .map(([key, value]) => {
      const shown = SECRET_PARAMS.has(key.toLowerCase()) ? "[redacted]" : encodeURIComponent(value);
      return `${encodeURIComponent(key)}=${shown}`;
    })
    .join("&");
}

/** Read a request body as text; undefined when it is over the limit (the rest is drained). */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8");
}

function send(response: ServerResponse, reply: Reply): void {
  if (response.destroyed || response.writableEnded) return;
  const headers: Record<string, string | number> = { ...reply.headers };
  if (reply.body === undefined) {
    response.writeHead(reply.status, headers).end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers["Content-Type"] = "application/json; charset=utf-8";
  headers["Content-Length"] = Buffer.byteLength(text);
  response.writeHead(reply.status, headers).end(text);
}

/** The rate-limit headers of one answer in `style`; none without a limit. */
function rateLimitHeaders(
  style: RateHeaderStyle | undefined,
  faults: Faults,
  now: () => Date,
): Record<string, string> {
  const allowance = faults.allowance();
  if (allowance === undefined || style === undefined || style === "none") return {};
  const { limit, remaining, resetMs } = allowance;
  if (style === "ietf") {
    return {
      "RateLimit-Limit": String(limit),
      "RateLimit-Remaining": String(remaining),
      "RateLimit-Reset": String(Math.ceil(resetMs / 1000)),
      "RateLimit-Policy": `${limit};w=1`,
    };
  }
  return {
    "X-RateLimit-Limit": String(limit),
    "X-RateLimit-Remaining": String(remaining),
    "X-RateLimit-Reset": String(Math.ceil((now().getTime() + resetMs) / 1000)),
  };
}

/** Start an emulator; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  checkOptions(options);
  const now = options.now ?? (() => new Date());
  const initial: StateDump =
    options.seedDir === undefined || options.seedDir === null
      ? { courses: [], chapters: [], events: [] }
      : await loadSeed(options.seedDir, formatTimestamp(now().getTime()));
  const state = new EmulatorState({
    initial,
    pageSize: options.pageSize ?? 25,
    listOrder: options.listOrder,
    now,
    email: options.email ?? "demo@example.com",
    password: options.password ?? "coursesync",
    tokenTtlMs: options.tokenTtlMs,
    tokenUses: options.tokenUses,
    normalise: options.normalise,
  });
  const faults = new Faults(
    {
      latencyMs: options.latencyMs ?? 0,
      rate: options.rate,
      failRate: options.failRate ?? 0,
      resetRate: options.resetRate ?? 0,
      lostWriteRate: options.lostWriteRate ?? 0,
    },
    {
      ...(options.randomSeed === undefined ? {} : { randomSeed: options.randomSeed }),
      ...(options.rateClock === undefined ? {} : { clock: options.rateClock }),
    },
  );
  const stopping = new AbortController();
  const latencySleep =
    options.latencySleep ?? ((ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal }));
  const context: ApiContext = {
    state,
    baseUrl: "",
    responseShape: options.responseShape ?? "bare",
    pagingHeaders: options.pagingHeaders ?? "none",
    pastLastPage: options.pastLastPage ?? "empty",
    eventIds: options.eventIds ?? true,
    summaryLists: options.summaryLists ?? false,
  };

  async function serveApi(request: RouteRequest, response: ServerResponse, query: URLSearchParams) {
    const entry: RequestLogEntry = {
      method: request.method,
      path: request.path,
      query: redactQuery(query),
      status: null,
    };
    const finish = (reply: Reply, fault?: FaultKind) => {
      entry.status = reply.status;
      reply.headers = { ...reply.headers, ...rateLimitHeaders(options.rateHeaders, faults, now) };
      if (fault) entry.fault = fault;
      state.logRequest(entry);
      send(response, reply);
    };
    const drop = (fault: FaultKind) => {
      entry.fault = fault;
      state.logRequest(entry);
      response.destroy();
    };
    const latency = faults.settings.latencyMs;
    if (latency > 0)
      await latencySleep(latency, stopping.signal, { method: request.method, path: request.path });
    const retryAfter = faults.admit();
    if (retryAfter !== undefined) {
      const error = `Rate limit exceeded (${faults.settings.rate} requests per second): retry after ${retryAfter} s`;
      return finish(
        { status: 429, body: { error }, headers: { "Retry-After": String(retryAfter) } },
        "rate-limited",
      );
    }
    const page = Number(query.get("page") ?? Number.NaN);
    const target = {
      method: request.method,
      path: request.path,
      page: Number.isSafeInteger(page) ? page : undefined,
    };
    const verdict = faults.beforeApply(target);
    if (verdict.kind === "fail") {
      return finish(
        { status: verdict.status, body: { error: `Emulated server error ${verdict.status}` } },
        "failed",
      );
    }
    if (verdict.kind === "reset") return drop("reset");
    const reply = routeApi(context, request);
    options.onAnswered?.({ ...target, status: reply.status });
    if (isResourceWrite(request.method, request.path) && faults.loseWrite(target, reply.applied === true)) {
      return drop("lost-write");
    }
    finish(reply);
  }

  async function handle(incoming: IncomingMessage, response: ServerResponse) {
    const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const body = await readBody(incoming);
    if (body === undefined) {
      return send(response, { status: 413, body: { error: "Request body too large" } });
    }
    const request: RouteRequest = {
      method: (incoming.method ?? "GET").toUpperCase(),
      path,
      query: url.searchParams,
      headers: {
        authorization: incoming.headers.authorization,
        contentType: incoming.headers["content-type"],
      },
      body,
    };
    if (options.admin && (path === ADMIN_ROOT || path.startsWith(`${ADMIN_ROOT}/`))) {
      return send(response, routeAdmin({ state, faults }, request));
    }
    if (path === "/api" || path.startsWith("/api/")) {
      if (!isResourceWrite(request.method, path)) return serveApi(request, response, url.searchParams);
      const ended = state.writeStarted();
      try {
        return await serveApi(request, response, url.searchParams);
      } finally {
        ended();
      }
    }
    send(response, { status: 404, body: { error: "Not found" } });
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      if (stopping.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      send(response, { status: 500, body: { error: `Emulator bug: ${message}` } });
    });
  });
  // Keep idle connections open longer than a test's pauses: a client reusing a socket the
  // server is just closing sees a reset that no real fault caused.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: options.port ?? 0, host: "127.0.0.1" }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  context.baseUrl = `${origin}${API_ROOT}`;

  let closed: Promise<void> | undefined;
  return {
    baseUrl: context.baseUrl,
    loginUrl: `${origin}${LOGIN_PATH}`,
    port,
    state,
    faults,
    close() {
      closed ??= new Promise<void>((resolve) => {
        stopping.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
