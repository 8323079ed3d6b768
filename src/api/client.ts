import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import got, { type Got, ReadError, TimeoutError } from "got";
import { UserError } from "../errors.js";
import {
  ApiError,
  CREDENTIALS_HINT,
  NetworkError,
  reasonPhrase,
  scrubSecrets,
  WriteOutcomeUnknownError,
} from "./errors.js";
import { RequestGate } from "./gate.js";
import { loginUrlFor, parseBaseUrl, redactUrl, siteKey } from "./login-url.js";
import { collectPages, type Page } from "./paging.js";
import {
  authToken,
  idFromLocation,
  itemIdentity,
  pageItems,
  pageRecords,
  recordFromBody,
} from "./responses.js";
import {
  type BackoffPolicy,
  backoffDelay,
  defaultBackoffPolicy,
  parseRetryAfter,
  retryDelay,
} from "./retry.js";
import { type JsonObject, type Resource, resourceKey, type WireRecord } from "./wire.js";

/** How the client proves who it is. A token wins; e-mail and password log in when needed. */
export interface Credentials {
  token?: string;
  email?: string;
  password?: string;
}

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
  /** Backoff timing. @default defaultBackoffPolicy (500 ms doubling, 30 s cap, 120 s Retry-After cap) */
  backoff?: BackoffPolicy;
}

/** HTTP methods the client sends. */
export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** Counters for the benchmark and `-v` summaries. */
export interface ClientStats {
  /** HTTP attempts sent, by method (retries included). */
  requests: Record<Method, number>;
  /** Attempts that were retries. */
  retries: number;
  /** 429 answers. */
  rateLimited: number;
  /** Logins performed (first and repeated). */
  logins: number;
  /** Request body bytes sent. */
  bytesSent: number;
  /** Response body bytes received (after decompression). */
  bytesReceived: number;
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
  /** Records the caller expects (the last sync's count): a listing may take 4 times their pages. */
  expected?: number;
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

/** One answer from the server, body as text. */
interface Exchange {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Full URL of the request (not redacted: redact before showing). */
  url: URL;
}

interface RequestSpec {
  method: Method;
  /** Path under the base URL ("courses/12"), or an absolute URL (the login). */
  target: string | URL;
  searchParams?: Record<string, string | number>;
  json?: unknown;
  /** Send the Bearer token (everything but the login). */
  auth: boolean;
  /**
   * Safe to send again when the outcome is unknown (GET, PATCH, DELETE, login). A create is
   * not: a lost answer becomes WriteOutcomeUnknownError.
   */
  repeatable: boolean;
  /** For a create: what was sent, for WriteOutcomeUnknownError. */
  create?: { resource: Resource; fields: Record<string, unknown> };
  /** Counts every attempt of this request (listAll's `requests`). */
  onAttempt?: () => void;
}

type Attempt =
  | { kind: "response"; exchange: Exchange; resumed?: Promise<void> }
  | { kind: "error"; error: unknown };

/** Statuses worth another attempt: the server may answer differently next time. */
const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/** Failures that happen before anything was written to the server: safe to repeat, POST too. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EADDRNOTAVAIL",
]);

/** Failures that may strike after the request reached the server. */
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "EPIPE",
  "ECONNABORTED",
  "ENETDOWN",
  "EHOSTDOWN",
  "EPROTO",
  "ERR_STREAM_PREMATURE_CLOSE",
  "UND_ERR_SOCKET",
]);

type Verdict = "retry" | "outcome-unknown" | "fail";

/** What a network error means for a request: try again, report a lost write, or give up. */
export function classifyNetworkError(error: unknown, repeatable: boolean): Verdict {
  const code = errorCode(error);
  if (code !== undefined && NOT_SENT_CODES.has(code)) return "retry";
  // A timeout while still resolving or connecting: nothing reached the server.
  if (error instanceof TimeoutError && ["lookup", "connect", "secureConnect"].includes(error.event))
    return "retry";
  // A ReadError: the answer began and broke off, so the request surely reached the server.
  const midway = (code !== undefined && TRANSIENT_CODES.has(code)) || error instanceof ReadError;
  if (midway) return repeatable ? "retry" : "outcome-unknown";
  return "fail";
}

function errorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== "object") return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

function isOk(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * The API client of one site (DESIGN section 6): one got instance with keep-alive, every
 * attempt through one `RequestGate`, our own retries (got's are off), Bearer auth with login
 * on demand, and tolerant reading of the bodies the spec leaves open.
 */
export class ApiClient {
  /** Counters since the client was made. */
  readonly stats: ClientStats = {
    requests: { GET: 0, POST: 0, PATCH: 0, DELETE: 0 },
    retries: 0,
    rateLimited: 0,
    logins: 0,
    bytesSent: 0,
    bytesReceived: 0,
  };
  /** The versioned API root, normalised. */
  readonly baseUrl: URL;
  /** The gate all attempts pass. */
  readonly gate: RequestGate;

  readonly #http: Got;
  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #credentials: Credentials;
  readonly #retries: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #log: ((line: string) => void) | undefined;
  readonly #onToken: ((token: string) => void | Promise<void>) | undefined;
  readonly #backoff: BackoffPolicy;
  #token: string | undefined;
  #loginInFlight: Promise<string> | undefined;

  constructor(options: ApiClientOptions) {
    this.baseUrl = parseBaseUrl(options.baseUrl.toString());
    const retries = options.retries ?? 5;
    if (!Number.isInteger(retries) || retries < 0) {
      throw new UserError(`retries must be a whole number from 0 up, got ${String(retries)}`, {
        exitCode: 2,
      });
    }
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw new UserError(`timeoutMs must be a number of milliseconds above 0, got ${String(timeoutMs)}`, {
        exitCode: 2,
      });
    }
    this.#credentials = { ...options.credentials };
    this.#token = nonEmpty(options.credentials.token);
    this.#retries = retries;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#log = options.log;
    this.#onToken = options.onToken;
    this.#backoff = options.backoff ?? defaultBackoffPolicy;
    this.gate = new RequestGate({
      concurrency: options.concurrency,
      requestsPerSecond: options.requestsPerSecond,
      sleep: this.#sleep,
    });
    const origin = this.baseUrl.origin;
    this.#agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
    this.#http = got.extend({
      prefixUrl: siteKey(this.baseUrl),
      retry: { limit: 0 },
      throwHttpErrors: false,
      timeout: { request: timeoutMs },
      agent: this.#agents,
      headers: { accept: "application/json", "user-agent": "coursesync" },
      hooks: {
        beforeRequest: [
          (request) => {
            // Only ever to the site itself: a redirect elsewhere must not carry the token.
            const token = request.context.token;
            const target = request.url instanceof URL ? request.url.origin : undefined;
            if (typeof token === "string" && target === origin)
              request.headers.authorization = `Bearer ${token}`;
          },
        ],
      },
    });
  }

  /**
   * Stop starting requests: those in flight finish, every later one (retries included) rejects
   * with `reason`. For a run asked to stop.
   */
  interrupt(reason: Error): void {
    this.gate.close(reason);
  }

  /** Close the keep-alive connections. The client must not be used afterwards. */
  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  /**
   * Log in with the e-mail and password: POST to the login address with both as query
   * parameters (API.md 5). Stores the token for later requests, hands it to `onToken`, and
   * returns it. A refused login is a UserError (exit 1) with the server's words, never the
   * password.
   */
  async login(): Promise<string> {
    const email = nonEmpty(this.#credentials.email);
    const password = nonEmpty(this.#credentials.password);
    if (email === undefined || password === undefined) {
      throw new UserError(`No e-mail and password to log in to ${siteKey(this.baseUrl)}`, {
        hint: CREDENTIALS_HINT,
      });
    }
    const url = loginUrlFor(this.baseUrl);
    url.searchParams.set("email", email);
    url.searchParams.set("password", password);
    const exchange = await this.#send({ method: "POST", target: url, auth: false, repeatable: true });
    if (!isOk(exchange.status)) {
      const refused = [400, 401, 403, 404, 422].includes(exchange.status);
      throw this.#apiError(exchange, "POST", {
        path: exchange.url.pathname,
        hint: refused
          ? "Check the e-mail and password (COURSESYNC_EMAIL and COURSESYNC_PASSWORD), or run `coursesync login` again."
          : undefined,
      });
    }
    const token = authToken(exchange.body);
    if (token === undefined) {
      throw new UserError(
        `POST ${exchange.url.pathname} answered ${exchange.status} without an auth_token: this does not look like the site's login`,
        { hint: "Check the site URL: it must be the versioned API root ending in /api/v1." },
      );
    }
    this.#token = token;
    this.stats.logins += 1;
    await this.#onToken?.(token);
    return token;
  }

  /** Read one record; undefined when the server says 404. */
  async get(resource: Resource, id: number | string): Promise<WireRecord | undefined> {
    const exchange = await this.#send({
      method: "GET",
      target: recordPath(resource, id),
      auth: true,
      repeatable: true,
    });
    if (exchange.status === 404) return undefined;
    if (!isOk(exchange.status)) throw this.#apiError(exchange, "GET");
    const record = recordFromBody(exchange.body, resource);
    if (record === undefined) {
      throw new UserError(
        `GET ${redactUrl(exchange.url.href)} answered ${exchange.status} without a ${resourceKey[resource]} record`,
        { hint: "The site answered in a form coursesync does not know; please report it." },
      );
    }
    return record;
  }

  /**
   * Create a record: POST `{"course": fields}`. Returns the created record when the answer
   * holds it (bare or wrapped), or points at it with a Location header. Returns undefined when
   * the answer is empty or unreadable: the record was created, and the caller looks it up.
   * A lost answer throws WriteOutcomeUnknownError; the POST is never repeated blindly.
   */
  async create(
    resource: Resource,
    fields: Record<string, unknown>,
    options: CreateOptions = {},
  ): Promise<WireRecord | undefined> {
    const exchange = await this.#send({
      method: "POST",
      target: resource,
      json: { [resourceKey[resource]]: fields },
      auth: true,
      repeatable: false,
      create: { resource, fields },
    });
    if (!isOk(exchange.status)) throw this.#apiError(exchange, "POST");
    const record = recordFromBody(exchange.body, resource);
    if (record !== undefined) return checkedAnswer(exchange, resource, record, "with", options.check);
    const id = idFromLocation(exchange.headers.location);
    if (id === undefined) return undefined;
    let located: WireRecord | undefined;
    try {
      located = await this.get(resource, id);
    } catch {
      // The create succeeded; failing to re-read it must not look like a failed create.
      return undefined;
    }
    return located && checkedAnswer(exchange, resource, located, "pointing (Location) to", options.check);
  }

  /**
   * Update a record: PATCH `{"course": fields}` with only the fields to change. Returns the
   * record as the server now has it; an empty answer is followed by a GET. A 404 throws.
   */
  async update(
    resource: Resource,
    id: number | string,
    fields: Record<string, unknown>,
  ): Promise<WireRecord | undefined> {
    const exchange = await this.#send({
      method: "PATCH",
      target: recordPath(resource, id),
      json: { [resourceKey[resource]]: fields },
      auth: true,
      repeatable: true,
    });
    if (!isOk(exchange.status)) throw this.#apiError(exchange, "PATCH");
    return recordFromBody(exchange.body, resource) ?? (await this.get(resource, id));
  }

  /** Delete a record. A 404 counts as done: it is gone either way. */
  async remove(resource: Resource, id: number | string): Promise<void> {
    const exchange = await this.#send({
      method: "DELETE",
      target: recordPath(resource, id),
      auth: true,
      repeatable: true,
    });
    if (exchange.status === 404 || isOk(exchange.status)) return;
    throw this.#apiError(exchange, "DELETE");
  }

  /**
   * Every record of a list endpoint ("courses", "chapters", "events"), all pages, deduplicated
   * by id. Rejects if any page of the listing fails: never a partial listing.
   */
  async listAll(path: string, options: ListOptions = {}): Promise<Listing> {
    return this.#list(path, options, pageRecords);
  }

  /**
   * Read every page of a list whose items need not carry ids (the events, whose fields the API
   * does not show): each item is any JSON object; an item without an id is the same as another
   * only when the two are equal as JSON.
   */
  async listItems(path: string, options: ListOptions = {}): Promise<Listing<JsonObject>> {
    return this.#list(path, { ...options, identity: itemIdentity }, pageItems);
  }

  async #list<T extends object>(
    path: string,
    options: ListOptions & { identity?: (record: T) => unknown },
    parse: (exchange: Exchange) => T[],
  ): Promise<Listing<T>> {
    if (!/^[a-z][a-z0-9_/-]*$/i.test(path) || path.includes("..")) {
      throw new Error(`listAll: "${path}" is not a list path such as "courses"`);
    }
    let requests = 0;
    const pageSpec = (page: number): RequestSpec => ({
      method: "GET",
      target: path,
      searchParams: { page },
      auth: true,
      repeatable: true,
      onAttempt: () => {
        requests += 1;
      },
    });
    const fetchPage = async (page: number): Promise<Page<T>> => {
      const exchange = await this.#send(pageSpec(page));
      if (isOk(exchange.status)) return { records: parse(exchange), headers: exchange.headers };
      const error = this.#apiError(exchange, "GET");
      // Some servers answer a page past the last with Not Found: paging decides (Page.pastEnd).
      if (exchange.status !== 404 || page === 1) throw error;
      return { records: [], headers: exchange.headers, pastEnd: error };
    };
    const collected = await collectPages(fetchPage, {
      window: () => this.gate.concurrency,
      stopAfter: options.stopAfter,
      onPage: options.onPage,
      expected: options.expected,
      describe: (page) => `GET ${this.#displayPath(pageSpec(page))}`,
      ...(options.identity ? { identity: options.identity } : {}),
    });
    return { ...collected, requests };
  }

  /** The retry loop around single attempts. Returns the final answer; throws for network trouble. */
  async #send(spec: RequestSpec): Promise<Exchange> {
    let retry = 0;
    let reloggedIn = false;
    for (;;) {
      const token = spec.auth ? await this.#ensureToken() : undefined;
      const attempt = await this.gate.run(() => this.#attempt(spec, token, retry), {
        priority: retry > 0 ? 1 : 0,
      });

      if (attempt.kind === "error") {
        const verdict = classifyNetworkError(attempt.error, spec.repeatable);
        if (verdict === "outcome-unknown" && spec.create !== undefined) {
          throw new WriteOutcomeUnknownError({
            path: this.#displayPath(spec),
            resource: spec.create.resource,
            fields: spec.create.fields,
            reason: errorCode(attempt.error) ?? "network error",
            cause: this.#safeCause(attempt.error),
          });
        }
        if (verdict === "retry" && retry < this.#retries) {
          await this.#sleep(backoffDelay(retry, this.#random, this.#backoff));
          retry += 1;
          continue;
        }
        throw new NetworkError({
          method: spec.method,
          url: this.#scrub(redactUrl(this.#urlOf(spec).href)),
          code: errorCode(attempt.error),
          attempts: retry + 1,
          cause: this.#safeCause(attempt.error),
        });
      }

      const { exchange } = attempt;
      if (exchange.status === 401 && spec.auth) {
        if (!reloggedIn && this.#canLogIn()) {
          reloggedIn = true;
          await this.#logInAgain(token);
          continue;
        }
        throw this.#apiError(exchange, spec.method, {
          hint: reloggedIn ? `The site refused a fresh login too. ${CREDENTIALS_HINT}` : CREDENTIALS_HINT,
        });
      }
      if (exchange.status === 429) {
        if (attempt.resumed === undefined || retry >= this.#retries) return exchange;
        await attempt.resumed;
        retry += 1;
        continue;
      }
      if (RETRY_STATUSES.has(exchange.status)) {
        if (!spec.repeatable && spec.create !== undefined) {
          throw new WriteOutcomeUnknownError({
            path: this.#displayPath(spec),
            resource: spec.create.resource,
            fields: spec.create.fields,
            reason: `${exchange.status} ${exchange.statusText}`.trim(),
            status: exchange.status,
          });
        }
        if (!spec.repeatable || retry >= this.#retries) return exchange;
        const delay = retryDelay({
          attempt: retry,
          retryAfterMs: parseRetryAfter(exchange.headers["retry-after"], this.#now()),
          random: this.#random,
          policy: this.#backoff,
        });
        if (delay === undefined) return exchange;
        await this.#sleep(delay);
        retry += 1;
        continue;
      }
      return exchange;
    }
  }

  /** One HTTP attempt: runs inside the gate. Never throws: errors come back as values. */
  async #attempt(spec: RequestSpec, token: string | undefined, retry: number): Promise<Attempt> {
    this.stats.requests[spec.method] += 1;
    if (retry > 0) this.stats.retries += 1;
    spec.onAttempt?.();
    const started = this.#now();
    const payload = spec.json === undefined ? undefined : JSON.stringify(spec.json);
    if (payload !== undefined) this.stats.bytesSent += Buffer.byteLength(payload);
    try {
      const response = await this.#http(spec.target, {
        method: spec.method,
        searchParams: spec.searchParams,
        body: payload,
        headers: payload === undefined ? {} : { "content-type": "application/json" },
        context: { token },
        responseType: "buffer",
      });
      this.stats.bytesReceived += response.rawBody.length;
      const exchange: Exchange = {
        status: response.statusCode,
        statusText: reasonPhrase(response.statusCode, response.statusMessage),
        headers: response.headers,
        body: response.rawBody.toString("utf8"),
        url: this.#urlOf(spec),
      };
      this.#logLine(spec, String(exchange.status), started);
      if (exchange.status !== 429) {
        this.gate.recordSuccess();
        return { kind: "response", exchange };
      }
      this.stats.rateLimited += 1;
      const wait = retryDelay({
        attempt: retry,
        retryAfterMs: parseRetryAfter(exchange.headers["retry-after"], this.#now()),
        random: this.#random,
        policy: this.#backoff,
      });
      // Pausing here, before this task ends, keeps the slot it frees from starting anything.
      return {
        kind: "response",
        exchange,
        resumed: wait === undefined ? undefined : this.gate.throttle(wait),
      };
    } catch (error) {
      this.#logLine(spec, errorCode(error) ?? "ERROR", started);
      return { kind: "error", error };
    }
  }

  async #ensureToken(): Promise<string> {
    if (this.#token !== undefined) return this.#token;
    if (this.#canLogIn()) return this.#sharedLogin();
    throw new UserError(`No credentials for ${siteKey(this.baseUrl)}`, { hint: CREDENTIALS_HINT });
  }

  #canLogIn(): boolean {
    return (
      nonEmpty(this.#credentials.email) !== undefined && nonEmpty(this.#credentials.password) !== undefined
    );
  }

  /** Concurrent callers share one login. */
  #sharedLogin(): Promise<string> {
    this.#loginInFlight ??= this.login().finally(() => {
      this.#loginInFlight = undefined;
    });
    return this.#loginInFlight;
  }

  /** After a 401 with `rejected`: log in, unless another request already replaced that token. */
  async #logInAgain(rejected: string | undefined): Promise<void> {
    if (this.#loginInFlight === undefined && this.#token !== undefined && this.#token !== rejected) return;
    await this.#sharedLogin();
  }

  #urlOf(spec: RequestSpec): URL {
    const url =
      typeof spec.target === "string"
        ? new URL(`${siteKey(this.baseUrl)}/${spec.target}`)
        : new URL(spec.target);
    for (const [key, value] of Object.entries(spec.searchParams ?? {}))
      url.searchParams.set(key, String(value));
    return url;
  }

  /** Path and query, redacted: what log lines and error messages show. */
  #displayPath(spec: RequestSpec): string {
    const url = this.#urlOf(spec);
    return this.#scrub(redactUrl(`${url.pathname}${url.search}`));
  }

  #logLine(spec: RequestSpec, outcome: string, started: number): void {
    if (this.#log === undefined) return;
    const ms = Math.max(0, Math.round(this.#now() - started));
    this.#log(`${spec.method} ${this.#displayPath(spec)} ${outcome} ${ms}ms`);
  }

  #apiError(exchange: Exchange, method: Method, extra: { path?: string; hint?: string } = {}): ApiError {
    return new ApiError({
      method,
      path: this.#scrub(redactUrl(extra.path ?? `${exchange.url.pathname}${exchange.url.search}`)),
      status: exchange.status,
      statusText: exchange.statusText,
      body: exchange.body,
      contentType: headerText(exchange.headers["content-type"]),
      hint: extra.hint,
      scrub: (text) => this.#scrub(text),
    });
  }

  /** Remove the password and token wherever they appear, plain or URL-encoded. */
  #scrub(text: string): string {
    return scrubSecrets(text, [this.#credentials.password, this.#credentials.token, this.#token]);
  }

  /** A stand-in for a got error that carries no options, headers or token, only what happened. */
  #safeCause(error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    const cause = new Error(this.#scrub(redactUrl(message.split("\n")[0] ?? "")));
    const code = errorCode(error);
    if (code !== undefined) Object.assign(cause, { code });
    return cause;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A create's record once `check` (if any) takes it; else an error naming what the site answered. */
function checkedAnswer(
  exchange: Exchange,
  resource: Resource,
  record: WireRecord,
  how: string,
  check: CreateOptions["check"],
): WireRecord {
  const problem = check?.(record);
  if (problem === undefined) return record;
  const status = `${exchange.status} ${exchange.statusText}`.trim();
  throw new UserError(
    `POST ${redactUrl(`${exchange.url.pathname}${exchange.url.search}`)} answered ${status} ${how} ${resourceKey[resource]} ${record.id}, ${problem.reason}`,
    { hint: problem.hint },
  );
}

function recordPath(resource: Resource, id: number | string): string {
  return `${resource}/${encodeURIComponent(String(id))}`;
}

export { itemIdentity, recordFromBody } from "./responses.js";
