import http from "node:http";
import https from "node:https";
import got from "got";
import { UserError } from "../errors.js";
import { Auth } from "./auth.js";
import type { ApiClientOptions, CreateOptions, Listing, ListOptions } from "./client-options.js";
import { RequestGate, realSleep } from "./gate.js";
import { parseBaseUrl, redactUrl, siteKey } from "./login-url.js";
import { collectPages, type Page } from "./paging.js";
import {
  type Exchange,
  idFromLocation,
  isOk,
  itemIdentity,
  pageItems,
  pageRecords,
  recordFromBody,
} from "./responses.js";
import { defaultBackoffPolicy } from "./retry.js";
import { type ClientStats, type RequestSpec, Transport } from "./transport.js";
import { type JsonObject, type Resource, resourceKey, type WireRecord } from "./wire.js";

export type { Credentials } from "./auth.js";
export type { ApiClientOptions, CreateOptions, Listing, ListOptions } from "./client-options.js";
export { type ClientStats, classifyNetworkError, type Method } from "./transport.js";

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

  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #auth: Auth;
  readonly #transport: Transport;

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
    const sleep = options.sleep ?? realSleep;
    this.gate = new RequestGate({
      concurrency: options.concurrency,
      requestsPerSecond: options.requestsPerSecond,
      sleep,
      now: options.now ?? Date.now,
    });
    this.#agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
    // The login goes through the transport like any request; the transport asks it for tokens.
    this.#auth = new Auth({
      baseUrl: this.baseUrl,
      credentials: options.credentials,
      onToken: options.onToken,
      stats: this.stats,
      send: (spec) => this.#transport.send(spec),
      storedToken: options.storedToken,
    });
    const siteHttp = siteGot(this.baseUrl, timeoutMs, this.#agents);
    this.#transport = new Transport({
      http: siteHttp,
      gate: this.gate,
      baseUrl: this.baseUrl,
      retries,
      backoff: options.backoff ?? defaultBackoffPolicy,
      sleep,
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
      stats: this.stats,
      log: options.log,
      session: this.#auth,
    });
  }

  /**
   * Stop starting requests: those in flight finish, every later one (retries included) rejects
   * with `reason`. For a run asked to stop.
   */
  interrupt(reason: Error): void {
    this.gate.close(reason);
  }

  /**
   * Close the keep-alive connections. The client must not be used afterwards: a request still
   * under way (of a run that failed beside it) is cut, and is not tried again.
   */
  close(): void {
    this.gate.close(new Error("the API client was closed"));
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  /**
   * Log in with the e-mail and password: POST to the login address with both as query
   * parameters (API.md 5). Stores the token for later requests, hands it to `onToken`, and
   * returns it. A refused login is a UserError (exit 1) with the server's words, never the
   * password.
   */
  login(): Promise<string> {
    return this.#auth.login();
  }

  /**
   * One GET of a list's first page, answered as it came (no status is an error here). Without
   * `auth` no token is sent and no login happens: what answers at the URL (init, doctor).
   */
  firstPage(path: Resource, auth: boolean): Promise<Exchange> {
    return this.#transport.send({
      method: "GET",
      target: path,
      searchParams: { page: 1 },
      auth,
      repeatable: true,
    });
  }

  /** Read one record; undefined when the server says 404. */
  async get(resource: Resource, id: number | string): Promise<WireRecord | undefined> {
    const exchange = await this.#transport.send({
      method: "GET",
      target: recordPath(resource, id),
      auth: true,
      repeatable: true,
    });
    if (exchange.status === 404) return undefined;
    if (!isOk(exchange.status)) throw this.#transport.apiError(exchange, "GET");
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
    const exchange = await this.#transport.send({
      method: "POST",
      target: resource,
      json: { [resourceKey[resource]]: fields },
      auth: true,
      repeatable: false,
      create: { resource, fields },
    });
    if (!isOk(exchange.status)) throw this.#transport.apiError(exchange, "POST");
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
    const exchange = await this.#transport.send({
      method: "PATCH",
      target: recordPath(resource, id),
      json: { [resourceKey[resource]]: fields },
      auth: true,
      repeatable: true,
    });
    if (!isOk(exchange.status)) throw this.#transport.apiError(exchange, "PATCH");
    return recordFromBody(exchange.body, resource) ?? (await this.get(resource, id));
  }

  /** Delete a record. A 404 counts as done: it is gone either way. */
  async remove(resource: Resource, id: number | string): Promise<void> {
    const exchange = await this.#transport.send({
      method: "DELETE",
      target: recordPath(resource, id),
      auth: true,
      repeatable: true,
    });
    if (exchange.status === 404 || isOk(exchange.status)) return;
    throw this.#transport.apiError(exchange, "DELETE");
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
  async listItems(path: string, options: Omit<ListOptions, "onRecords"> = {}): Promise<Listing<JsonObject>> {
    return this.#list(path, { ...options, identity: itemIdentity }, pageItems);
  }

  async #list<T extends object>(
    path: string,
    options: Omit<ListOptions, "onRecords"> & {
      identity?: (record: T) => unknown;
      onRecords?: (records: T[], page: number) => void;
    },
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
      const exchange = await this.#transport.send(pageSpec(page));
      if (isOk(exchange.status)) {
        const records = parse(exchange);
        options.onRecords?.(records, page);
        return { records, headers: exchange.headers };
      }
      const error = this.#transport.apiError(exchange, "GET");
      // Some servers answer a page past the last with Not Found: paging decides (Page.pastEnd).
      if (exchange.status !== 404 || page === 1) throw error;
      return { records: [], headers: exchange.headers, pastEnd: error };
    };
    const collected = await collectPages(fetchPage, {
      window: () => this.gate.concurrency,
      stopAfter: options.stopAfter,
      onPage: options.onPage,
      expected: options.expected,
      expectedReady: options.expectedReady,
      describe: (page) => `GET ${this.#transport.displayPath(pageSpec(page))}`,
      ...(options.identity ? { identity: options.identity } : {}),
    });
    return { ...collected, requests };
  }
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

/**
 * The got instance of one site: no retries of its own, no HTTP errors thrown, keep-alive
 * agents, and the token sent to the site's own origin only.
 */
function siteGot(baseUrl: URL, timeoutMs: number, agents: { http: http.Agent; https: https.Agent }) {
  const origin = baseUrl.origin;
  return got.extend({
    prefixUrl: siteKey(baseUrl),
    retry: { limit: 0 },
    throwHttpErrors: false,
    timeout: { request: timeoutMs },
    agent: agents,
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

function recordPath(resource: Resource, id: number | string): string {
  return `${resource}/${encodeURIComponent(String(id))}`;
}

export { itemIdentity, recordFromBody } from "./responses.js";
