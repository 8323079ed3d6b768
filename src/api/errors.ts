import { STATUS_CODES } from "node:http";
import { UserError } from "../errors.js";
import { networkHint } from "./advice.js";
import { redactUrl } from "./login-url.js";
import { type Resource, resourceKey } from "./wire.js";

/** What to do when the site does not accept our credentials. */
export const CREDENTIALS_HINT =
  "Run `coursesync login`, or set COURSESYNC_TOKEN, or COURSESYNC_EMAIL and COURSESYNC_PASSWORD.";

/** The server's own words from an error body, plus the per-field messages when it sent them. */
export interface ServerMessage {
  /** One line: "title can't be blank; ordinal must be a number", or "" when the body said nothing. */
  message: string;
  /** `{"errors": {field: [messages]}}` as sent, so push can print each next to its file. */
  fieldErrors: Record<string, string[]> | undefined;
}

const MAX_MESSAGE = 300;

/** Removes secrets from a piece of text; serverMessage applies it at every step. */
export type Scrub = (text: string) => string;

const keep: Scrub = (text) => text;

/**
 * Read the server's message from an error body in any of the shapes the spec leaves open:
 * `{"errors": {field: [msgs]}}`, `{"errors": [msgs]}`, `{"error": "..."}`, `{"message": "..."}`,
 * HTML or plain text.
 *
 * `scrub` removes secrets the server may have echoed. It runs on each string as JSON decodes it
 * and on HTML text once its entities are decoded, so no escaping hides a secret from it, and
 * always before clipping, so no cut leaves a secret's first characters behind.
 */
export function serverMessage(body: string, contentType?: string, scrub: Scrub = keep): ServerMessage {
  const text = body.trim();
  if (text === "") return { message: "", fieldErrors: undefined };
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    return { message: plainMessage(text, contentType, scrub), fieldErrors: undefined };
  }
  const parsed = scrubDeep(decoded, scrub);
  const done = (said: string) => clip(scrub(oneLine(said)));
  if (typeof parsed === "string") return { message: done(parsed), fieldErrors: undefined };
  if (parsed === null || typeof parsed !== "object") return { message: done(text), fieldErrors: undefined };
  const object = parsed as Record<string, unknown>;

  const fieldErrors = asFieldErrors(object.errors);
  if (fieldErrors !== undefined) {
    const parts = Object.entries(fieldErrors).flatMap(([field, messages]) =>
      messages.map((m) => (field === "base" ? m : `${field} ${m}`)),
    );
    return { message: done(parts.join("; ")), fieldErrors };
  }
  const listed = stringsOf(object.errors);
  if (listed !== undefined) return { message: done(listed.join("; ")), fieldErrors: undefined };
  for (const key of ["error", "message", "error_description", "detail"]) {
    const value = object[key];
    if (typeof value === "string" && value.trim() !== "") {
      return { message: done(value), fieldErrors: undefined };
    }
    if (
      value !== null &&
      typeof value === "object" &&
      typeof (value as { message?: unknown }).message === "string"
    ) {
      return { message: done((value as { message: string }).message), fieldErrors: undefined };
    }
  }
  return { message: done(JSON.stringify(parsed)), fieldErrors: undefined };
}

/**
 * Scrub every string, keys included, of a decoded JSON value: once it is stringified again a
 * secret holding quotes or backslashes comes back escaped, in a form the scrub may not know.
 */
function scrubDeep(value: unknown, scrub: Scrub): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, scrub));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key), scrubDeep(item, scrub)]));
}

function asFieldErrors(value: unknown): Record<string, string[]> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const result: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(value)) {
    const list = stringsOf(messages) ?? (typeof messages === "string" ? [messages] : undefined);
    if (list === undefined) return undefined;
    result[field] = list;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function stringsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.every((v) => typeof v === "string") ? (value as string[]) : undefined;
}

/** Plain text or an HTML page (its title, else its text), scrubbed as sent and as decoded. */
function plainMessage(body: string, contentType: string | undefined, scrub: Scrub): string {
  const text = scrub(body);
  const isHtml = /html/i.test(contentType ?? "") || /^<(!doctype|html|head|body|\w+)/i.test(text);
  if (!isHtml) return clip(scrub(oneLine(text)));
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  const bare = (title ?? text).replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " ");
  return clip(scrub(oneLine(scrub(decodeEntities(bare)))));
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/**
 * Decode HTML character references in one pass (so `&amp;lt;` stays `&lt;`): the named ones
 * servers use for text, and every numeric one, which is how `'` usually comes (`&#39;`, `&#x27;`).
 */
function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d+)|#x([0-9a-f]+)|([a-z]+));/gi, (whole, dec, hex, name) => {
    if (name !== undefined) return NAMED_ENTITIES[(name as string).toLowerCase()] ?? whole;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
}

/** The standard reason phrase for a status, for servers (and HTTP/2) that send none. */
export function reasonPhrase(status: number, given?: string): string {
  return given !== undefined && given.trim() !== "" ? given.trim() : (STATUS_CODES[status] ?? "");
}

function defaultHint(status: number): string | undefined {
  if (status === 401) return CREDENTIALS_HINT;
  if (status === 403)
    return "Only the site's account owner may use the API: check that the credentials are the owner's.";
  if (status === 404)
    return "The record is not on the site (deleted there?): run `coursesync pull` to see the site as it is.";
  if (status === 409 || status === 422)
    return "The site refused the fields sent: fix them in the file and push again.";
  if (status === 429) {
    return "The site is limiting the request rate: lower requests_per_second or concurrency in coursesync.yaml, or try again later.";
  }
  if (status >= 500)
    return "The site failed to answer. Try again later; nothing is lost, the next run resumes.";
  return undefined;
}

/** What an ApiError is made from. */
export interface ApiErrorInit {
  method: string;
  /** The request path or URL; it is redacted here, so passing one that carries secrets is safe. */
  path: string;
  status: number;
  statusText?: string;
  /** The response body as text, for the server's message. */
  body?: string;
  contentType?: string;
  /** Replaces the hint chosen by status. */
  hint?: string;
  /**
   * Removes secrets the server may have echoed (scrubSecrets does it in every encoding). Applied
   * to each string of the body as decoded, before anything is clipped.
   */
  scrub?: Scrub;
  cause?: unknown;
}

/**
 * The server answered with an error status. The message names the method, the path (never its
 * secrets), the status and the server's own words:
 * `PATCH /api/v1/chapters/12 failed: 422 Unprocessable Entity: title can't be blank`.
 */
export class ApiError extends UserError {
  readonly method: string;
  /** Path and query, redacted. */
  readonly path: string;
  readonly status: number;
  readonly statusText: string;
  /** The server's message, "" when it sent none. */
  readonly serverMessage: string;
  /** Per-field messages from `{"errors": {field: [msgs]}}`, when the server sent them. */
  readonly fieldErrors: Readonly<Record<string, readonly string[]>> | undefined;

  constructor(init: ApiErrorInit) {
    const scrub = init.scrub ?? keep;
    const parsed = serverMessage(init.body ?? "", init.contentType, (text) => scrub(redactUrl(text)));
    const said = parsed.message;
    const fieldErrors = parsed.fieldErrors;
    const path = redactUrl(init.path);
    const statusText = reasonPhrase(init.status, init.statusText);
    const head = `${init.method} ${path} failed: ${init.status}${statusText ? ` ${statusText}` : ""}`;
    super(said ? `${head}: ${said}` : head, {
      hint: init.hint ?? defaultHint(init.status),
      cause: init.cause,
    });
    this.method = init.method;
    this.path = path;
    this.status = init.status;
    this.statusText = statusText;
    this.serverMessage = said;
    this.fieldErrors = fieldErrors;
  }
}

/** The site refused the e-mail and password: the site and the URL are right, the credentials not. */
export class LoginRefusedError extends ApiError {}

/**
 * The site refused the credentials: the token (401), or a login. A new token (`coursesync
 * login`) mends it; a long run takes up the one stored next time it is refused.
 */
export function isCredentialsRefused(error: unknown): error is ApiError {
  return error instanceof LoginRefusedError || (error instanceof ApiError && error.status === 401);
}

/** Whether a failure may pass on its own (network, 408, 429, 5xx, a lost answer): worth trying again later. */
export function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof WriteOutcomeUnknownError) return true;
  return error instanceof ApiError && (error.status >= 500 || error.status === 408 || error.status === 429);
}

/**
 * The site could not be reached, or the connection failed, and retries did not help (or were
 * not tried: an address that does not answer at the start of a run). Names the URL (redacted)
 * and says what to check for the host it names.
 */
export class NetworkError extends UserError {
  readonly method: string;
  /** The full URL, redacted. */
  readonly url: string;
  /** The system or got error code: ECONNREFUSED, ENOTFOUND, ECONNRESET, ETIMEDOUT... */
  readonly code: string | undefined;
  readonly attempts: number;

  constructor(init: {
    method: string;
    url: string;
    code: string | undefined;
    attempts: number;
    cause?: unknown;
  }) {
    const url = redactUrl(init.url);
    const what = describeCode(init.code);
    const tries = init.attempts > 1 ? ` after ${init.attempts} attempts` : "";
    super(`${init.method} ${url} failed: ${what}${tries}`, {
      hint: networkHint(init.code, url),
      cause: init.cause,
    });
    this.method = init.method;
    this.url = url;
    this.code = init.code;
    this.attempts = init.attempts;
  }
}

function describeCode(code: string | undefined): string {
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (ECONNREFUSED)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host not found (${code})`;
    case "ETIMEDOUT":
      return "no answer in time (ETIMEDOUT)";
    case "ECONNRESET":
      return "connection reset (ECONNRESET)";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `no route to the host (${code})`;
    case undefined:
      return "network error";
    default:
      return `network error (${code})`;
  }
}

/**
 * A create (POST) whose answer was lost: the connection dropped or timed out after the request
 * may have reached the server, or the server answered 500/502/503/504. The record may or may
 * not exist now. The caller must look it up on the server (by the fields sent) and adopt it
 * rather than POST again.
 */
export class WriteOutcomeUnknownError extends UserError {
  readonly method = "POST";
  /** Path of the POST, redacted. */
  readonly path: string;
  readonly resource: Resource;
  /** The fields that were sent, unwrapped (not nested under the resource key). */
  readonly fields: Readonly<Record<string, unknown>>;
  /** What went wrong: an error code (ECONNRESET) or a status ("502 Bad Gateway"). */
  readonly reason: string;
  /** The status when the server answered, else undefined. */
  readonly status: number | undefined;

  constructor(init: {
    path: string;
    resource: Resource;
    fields: Record<string, unknown>;
    reason: string;
    status?: number;
    cause?: unknown;
  }) {
    const path = redactUrl(init.path);
    const noun = resourceKey[init.resource];
    super(
      `POST ${path}: the answer was lost (${init.reason}); the ${noun} may or may not have been created`,
      {
        hint: "Run `coursesync pull` to see whether it exists before pushing it again.",
        cause: init.cause,
      },
    );
    this.path = path;
    this.resource = init.resource;
    this.fields = init.fields;
    this.reason = init.reason;
    this.status = init.status;
  }
}
