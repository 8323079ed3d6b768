import { StringDecoder } from "node:string_decoder";
import { type Got, type PlainResponse, ReadError, type Request, TimeoutError } from "got";
import { type ApiError, NetworkError, reasonPhrase, WriteOutcomeUnknownError } from "./errors.js";
import type { RequestGate, Start } from "./gate.js";
import { redactUrl, siteKey } from "./login-url.js";
import { apiError, type Exchange, wrongUrlError } from "./responses.js";
import { type BackoffPolicy, backoffDelay, parseRetryAfter, retryDelay } from "./retry.js";
import type { Resource } from "./wire.js";

// Sending one request (DESIGN 6): single attempts through the gate, what a failure means, and
// the retry loop around them. The verbs built on it live in client.ts, the login in auth.ts.

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

/** One request as the verbs describe it; the transport turns it into attempts. */
export interface RequestSpec {
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

/** Where requests get their Bearer token, and who knows the secrets to scrub. */
export interface Session {
  /** The token to send; logs in first when there is none yet. */
  token(): Promise<string>;
  /** Whether a refused token can be replaced by logging in again. */
  canLogIn(): boolean;
  /** After a 401 with `rejected`: whether another token (taken up, or newly stored) is there to try. */
  replaced(rejected: string | undefined): Promise<boolean>;
  /** After a 401 with `rejected`: log in, unless another request already replaced that token. */
  logInAgain(rejected: string | undefined): Promise<void>;
  /** The site took a request sent with `token` (any answer but a 401). */
  accepted(token: string | undefined): void;
  /** What to do when the site refuses the token (`fresh`: one a login just gave) and no login can help. */
  refusedHint(fresh: boolean): string;
  /** Whether `token` is a login's, not yet accepted by the site. */
  isFresh(token: string | undefined): boolean;
  /** Remove the password and token wherever they appear, plain or URL-encoded. */
  scrub(text: string): string;
}

/** What a transport needs, all given by the client that owns it. */
export interface TransportOptions {
  /** The site's got instance: prefixUrl, no retries of its own, Bearer token from `context.token`. */
  http: Got;
  /** The gate every attempt passes. */
  gate: RequestGate;
  /** The versioned API root, normalised. */
  baseUrl: URL;
  /** Retries after the first attempt, for errors worth retrying. */
  retries: number;
  backoff: BackoffPolicy;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  random: () => number;
  /** Counters, shared with the client. */
  stats: ClientStats;
  /** One line per attempt, redacted; undefined for none. */
  log: ((line: string) => void) | undefined;
  session: Session;
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

/**
 * Failures that say the address does not answer at all: not retried while the site has not
 * answered once in this run (a wrong host or port fails at once, not after a minute of
 * backoff). Once it has answered, they are a server restarting or a network blip: retried.
 */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/** A host name that does not exist is not retried at all (EAI_AGAIN, a lookup that failed for now, is). */
const UNKNOWN_HOST = "ENOTFOUND";

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

/**
 * Sends requests of one site: every attempt through the gate, our own retries (got's are off),
 * the Bearer token from the session and one fresh login on a 401.
 */
export class Transport {
  readonly #o: TransportOptions;
  /** Whether the site has answered any request of this transport. */
  #reached = false;

  constructor(options: TransportOptions) {
    this.#o = options;
  }

  /** The retry loop around single attempts. Returns the final answer; throws for network trouble. */
  async send(spec: RequestSpec): Promise<Exchange> {
    const o = this.#o;
    let retry = 0;
    let freshRefused = false;
    for (;;) {
      const token = spec.auth ? await o.session.token() : undefined;
      const attempt = await o.gate.run((start) => this.#attempt(spec, token, retry, start), {
        priority: retry > 0 ? 1 : 0,
      });

      if (attempt.kind === "error") {
        const verdict = classifyNetworkError(attempt.error, spec.repeatable);
        if (verdict === "outcome-unknown" && spec.create !== undefined) {
          throw new WriteOutcomeUnknownError({
            path: this.displayPath(spec),
            resource: spec.create.resource,
            fields: spec.create.fields,
            reason: errorCode(attempt.error) ?? "network error",
            cause: this.#safeCause(attempt.error),
          });
        }
        if (verdict === "retry" && retry < o.retries && !this.#hopeless(attempt.error)) {
          await o.sleep(backoffDelay(retry, o.random, o.backoff));
          retry += 1;
          continue;
        }
        throw new NetworkError({
          method: spec.method,
          url: o.session.scrub(redactUrl(this.urlOf(spec).href)),
          code: errorCode(attempt.error),
          attempts: retry + 1,
          cause: this.#safeCause(attempt.error),
        });
      }

      const { exchange } = attempt;
      if (exchange.status === 401 && spec.auth) {
        // A token that worked and then is refused has expired: take up the one stored now if
        // it is new (renewed by `coursesync login` elsewhere), else log in again, as often as
        // tokens expire. A login's token refused before the site took it says the credentials
        // (or the site) are wrong, once it happens twice in a row: the first time, a request
        // sent beside it may just not have been answered yet.
        const fresh = o.session.isFresh(token);
        if (await o.session.replaced(token)) continue;
        if (o.session.canLogIn() && !(fresh && freshRefused)) {
          freshRefused = fresh;
          await o.session.logInAgain(token);
          continue;
        }
        throw this.apiError(exchange, spec.method, { hint: o.session.refusedHint(fresh) });
      }
      if (spec.auth) o.session.accepted(token);
      if (exchange.status === 429) {
        if (attempt.resumed === undefined || retry >= o.retries) return exchange;
        await attempt.resumed;
        retry += 1;
        continue;
      }
      if (RETRY_STATUSES.has(exchange.status)) {
        if (!spec.repeatable && spec.create !== undefined) {
          throw new WriteOutcomeUnknownError({
            path: this.displayPath(spec),
            resource: spec.create.resource,
            fields: spec.create.fields,
            reason: `${exchange.status} ${exchange.statusText}`.trim(),
            status: exchange.status,
          });
        }
        if (!spec.repeatable || retry >= o.retries) return exchange;
        const delay = this.#delayAfter(exchange, retry);
        if (delay === undefined) return exchange;
        await o.sleep(delay);
        retry += 1;
        continue;
      }
      return exchange;
    }
  }

  /** Whether a network error is not worth retrying: the host does not exist, or never answered. */
  #hopeless(error: unknown): boolean {
    const code = errorCode(error);
    if (code === UNKNOWN_HOST) return true;
    return !this.#reached && code !== undefined && UNREACHABLE_CODES.has(code);
  }

  /** One HTTP attempt: runs inside the gate. Never throws: errors come back as values. */
  async #attempt(
    spec: RequestSpec,
    token: string | undefined,
    retry: number,
    start: Start,
  ): Promise<Attempt> {
    const o = this.#o;
    o.stats.requests[spec.method] += 1;
    if (retry > 0) o.stats.retries += 1;
    spec.onAttempt?.();
    const started = o.now();
    const payload = spec.json === undefined ? undefined : JSON.stringify(spec.json);
    if (payload !== undefined) o.stats.bytesSent += Buffer.byteLength(payload);
    try {
      const request = o.http.stream(spec.target, {
        method: spec.method,
        searchParams: spec.searchParams,
        body: payload,
        headers: payload === undefined ? {} : { "content-type": "application/json" },
        context: { token },
      });
      // A stream that may carry a body and was given none waits for one to be written: none comes.
      if (payload === undefined && spec.method !== "GET") request.end();
      const { response, body, bytes } = await receive(request);
      o.stats.bytesReceived += bytes;
      this.#reached = true;
      const exchange: Exchange = {
        status: response.statusCode,
        statusText: reasonPhrase(response.statusCode, response.statusMessage),
        headers: response.headers,
        body,
        url: this.urlOf(spec),
      };
      this.#logLine(spec, String(exchange.status), started);
      o.gate.answered(start, exchange.status, exchange.headers);
      if (exchange.status !== 429) {
        o.gate.recordSuccess();
        return { kind: "response", exchange };
      }
      o.stats.rateLimited += 1;
      const wait = this.#delayAfter(exchange, retry);
      // Pausing here, before this task ends, keeps the slot it frees from starting anything.
      return {
        kind: "response",
        exchange,
        resumed: wait === undefined ? undefined : o.gate.throttle(wait),
      };
    } catch (error) {
      this.#logLine(spec, errorCode(error) ?? "ERROR", started);
      return { kind: "error", error };
    }
  }

  /** The wait before retry `retry + 1` of an answer: its Retry-After, else backoff; undefined: too long. */
  #delayAfter(exchange: Exchange, retry: number): number | undefined {
    const { now, random, backoff } = this.#o;
    const retryAfterMs = parseRetryAfter(exchange.headers["retry-after"], now());
    return retryDelay({ attempt: retry, retryAfterMs, random, policy: backoff });
  }

  /** The full URL a spec goes to (not redacted). */
  urlOf(spec: RequestSpec): URL {
    const url =
      typeof spec.target === "string"
        ? new URL(`${siteKey(this.#o.baseUrl)}/${spec.target}`)
        : new URL(spec.target);
    for (const [key, value] of Object.entries(spec.searchParams ?? {}))
      url.searchParams.set(key, String(value));
    return url;
  }

  /** Path and query, redacted: what log lines and error messages show. */
  displayPath(spec: RequestSpec): string {
    const url = this.urlOf(spec);
    return this.#o.session.scrub(redactUrl(`${url.pathname}${url.search}`));
  }

  /**
   * `apiError` with this site's secrets scrubbed. A GET of a record or of a list's first page
   * answered as no API answers (a web page, Not Found) says the site URL looks wrong; later
   * pages are left alone, as some sites answer Not Found past the end of a list.
   */
  apiError(exchange: Exchange, method: Method, extra: { path?: string; hint?: string } = {}): ApiError {
    const scrub = (text: string) => this.#o.session.scrub(text);
    const page = exchange.url.searchParams.get("page");
    if (method === "GET" && extra.hint === undefined && (page === null || page === "1")) {
      const wrong = wrongUrlError(exchange, method, scrub);
      if (wrong !== undefined) return wrong;
    }
    return apiError(exchange, method, scrub, extra);
  }

  #logLine(spec: RequestSpec, outcome: string, started: number): void {
    const { log, now } = this.#o;
    if (log === undefined) return;
    const ms = Math.max(0, Math.round(now() - started));
    log(`${spec.method} ${this.displayPath(spec)} ${outcome} ${ms}ms`);
  }

  /** A stand-in for a got error that carries no options, headers or token, only what happened. */
  #safeCause(error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    const cause = new Error(this.#o.session.scrub(redactUrl(message.split("\n")[0] ?? "")));
    const code = errorCode(error);
    if (code !== undefined) Object.assign(cause, { code });
    return cause;
  }
}

/**
 * A response's status, headers and body text, the body decoded chunk by chunk as it arrives:
 * no chunk outlives its decoding, and the whole body is never held as bytes. Bytes gathered
 * into one buffer per page outlive the page until a collection of the whole heap: a listing
 * of 50,000 chapters peaked about 40 MB higher that way.
 */
function receive(request: Request): Promise<{ response: PlainResponse; body: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    let response: PlainResponse | undefined;
    const decoder = new StringDecoder("utf8");
    let body = "";
    let bytes = 0;
    request.once("response", (answer: PlainResponse) => {
      response = answer;
    });
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      body += decoder.write(chunk);
    });
    request.once("end", () => {
      body += decoder.end();
      if (response) resolve({ response, body, bytes });
      else reject(new Error("the response ended before its status line"));
    });
    request.once("error", reject);
  });
}
