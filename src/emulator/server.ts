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
  type Reply,
  type RouteRequest,
  routeApi,
} from "./api-routes.js";
import { Faults } from "./faults.js";
import { checkOptions, type EmulatorOptions, type RateHeaderStyle, type RunningEmulator } from "./options.js";
import { formatTimestamp, type StateDump } from "./records.js";
import { loadSeed } from "./seed.js";
import { EmulatorState, type FaultKind, type RequestLogEntry } from "./state.js";

export type { PagingHeaders, ResponseShape } from "./api-routes.js";
export type { FaultPatch, FaultSettings, PendingOneShots, RequestMatch } from "./faults.js";
export { Faults } from "./faults.js";
export type { AnsweredRequest, EmulatorOptions, RateHeaderStyle, RunningEmulator } from "./options.js";
export type { ChapterRecord, CourseRecord, EventRecord, EventType, StateDump } from "./records.js";
export type { FaultKind, ListOrder, Normalise, RequestLogEntry } from "./state.js";
export { EmulatorState } from "./state.js";

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const SECRET_PARAMS = new Set(["email", "password", "auth_token", "token"]);

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

/** What serving requests shares: the store, the faults, the options and the stop signal. */
interface Serving {
  options: EmulatorOptions;
  now: () => Date;
  state: EmulatorState;
  faults: Faults;
  context: ApiContext;
  stopping: AbortController;
  latencySleep: NonNullable<EmulatorOptions["latencySleep"]>;
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
    events: { enabled: options.events !== false, kept: options.eventsKept },
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
  const serving: Serving = {
    options,
    now,
    state,
    faults,
    context: {
      state,
      baseUrl: "",
      responseShape: options.responseShape ?? "bare",
      pagingHeaders: options.pagingHeaders ?? "none",
      pastLastPage: options.pastLastPage ?? "empty",
      eventIds: options.eventIds ?? true,
      summaryLists: options.summaryLists ?? false,
    },
    stopping: new AbortController(),
    latencySleep:
      options.latencySleep ?? ((ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal })),
  };
  return listen(serving);
}

/** Listen on 127.0.0.1 and hand out the running emulator. */
async function listen(serving: Serving): Promise<RunningEmulator> {
  const { options, state, faults, context, stopping } = serving;
  const server = createServer((incoming, response) => {
    handle(serving, incoming, response).catch((error: unknown) => {
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

/** Route one request: the control routes, the API (a write counted while it runs), or 404. */
async function handle(serving: Serving, incoming: IncomingMessage, response: ServerResponse) {
  const { options, state, faults } = serving;
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
    if (!isResourceWrite(request.method, path)) return serveApi(serving, request, response, url.searchParams);
    const ended = state.writeStarted();
    try {
      return await serveApi(serving, request, response, url.searchParams);
    } finally {
      ended();
    }
  }
  send(response, { status: 404, body: { error: "Not found" } });
}

/** Answer one API request through the faults (latency, rate limit, failures, lost writes), logged. */
async function serveApi(
  serving: Serving,
  request: RouteRequest,
  response: ServerResponse,
  query: URLSearchParams,
) {
  const { options, now, state, faults } = serving;
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
    await serving.latencySleep(latency, serving.stopping.signal, {
      method: request.method,
      path: request.path,
    });
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
  const reply = routeApi(serving.context, request);
  options.onAnswered?.({ ...target, status: reply.status });
  if (isResourceWrite(request.method, request.path) && faults.loseWrite(target, reply.applied === true)) {
    return drop("lost-write");
  }
  finish(reply);
}
