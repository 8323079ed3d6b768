import type { IncomingHttpHeaders } from "node:http";
import { UserError } from "../errors.js";
import { sortKeys } from "../util/stable-json.js";
import { answersLikeNotTheApi, wrongUrlHint } from "./advice.js";
import { ApiError, type ApiErrorInit, type Scrub } from "./errors.js";
import { redactUrl } from "./login-url.js";
import { asWireRecord, type JsonObject, type Resource, resourceKey, type WireRecord } from "./wire.js";

// Reading the answers the API leaves open (DESIGN 6): records bare or wrapped, list pages,
// the login's token, a Location header's id, and an error status with the server's words.

/** What a body is read from: its text and the URL it answered (errors name it, redacted). */
export interface Answer {
  body: string;
  url: URL;
}

/** One answer from the server, body as text. */
export interface Exchange extends Answer {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** Full URL of the request (not redacted: redact before showing). */
  url: URL;
}

/** Whether a status is a success (2xx). */
export function isOk(status: number): boolean {
  return status >= 200 && status < 300;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The error for an answer the caller cannot use: method, redacted path, status, the server's words. */
export function apiError(
  exchange: Exchange,
  method: string,
  scrub: Scrub,
  extra: { path?: string; hint?: string } = {},
): ApiError {
  return new ApiError(apiErrorInit(exchange, method, scrub, extra));
}

/** What `apiError` makes its error from, for a subclass of ApiError. */
export function apiErrorInit(
  exchange: Exchange,
  method: string,
  scrub: Scrub,
  extra: { path?: string; hint?: string } = {},
): ApiErrorInit {
  return {
    method,
    path: scrub(redactUrl(extra.path ?? `${exchange.url.pathname}${exchange.url.search}`)),
    status: exchange.status,
    statusText: exchange.statusText,
    body: exchange.body,
    contentType: headerText(exchange.headers["content-type"]),
    hint: extra.hint,
    scrub,
  };
}

/**
 * The error for an answer that shows the URL is not the API (a web page, a Not Found where
 * every such API answers), or undefined when it may be the API's own error. It names the full
 * URL asked and the form a site URL takes.
 */
export function wrongUrlError(exchange: Exchange, method: string, scrub: Scrub): ApiError | undefined {
  const type = headerText(exchange.headers["content-type"]);
  if (!answersLikeNotTheApi(exchange.status, exchange.body, type)) return undefined;
  return apiError(exchange, method, scrub, {
    path: exchange.url.href,
    hint: wrongUrlHint(apiRootOf(exchange.url)),
  });
}

/** The versioned API root a request URL sits under (its path up to /api/v1), for messages. */
function apiRootOf(url: URL): string {
  const at = url.pathname.lastIndexOf("/api/");
  const path = at < 0 ? url.pathname : `${url.pathname.slice(0, at)}/api/v1`;
  return `${url.origin}${path}`;
}

/** A show/create/update answer as a record: bare `{...}` or wrapped `{"course": {...}}`; else undefined. */
export function recordFromBody(body: string, resource: Resource): WireRecord | undefined {
  if (body.trim() === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const bare = asWireRecord(parsed);
  if (bare !== undefined) return bare;
  if (parsed === null || typeof parsed !== "object") return undefined;
  return asWireRecord((parsed as Record<string, unknown>)[resourceKey[resource]]);
}

export function idFromLocation(location: string | undefined): number | undefined {
  if (location === undefined) return undefined;
  const match = /\/(\d+)\/?(?:[?#].*)?$/.exec(location);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

export function authToken(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed === null || typeof parsed !== "object") return undefined;
    const token = (parsed as { auth_token?: unknown }).auth_token;
    return typeof token === "string" && token !== "" ? token : undefined;
  } catch {
    return undefined;
  }
}

/** A list page's items: a JSON array of objects, else an error naming the URL. */
export function pageItems(exchange: Answer): JsonObject[] {
  const where = `GET ${redactUrl(exchange.url.href)}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(exchange.body);
  } catch {
    throw new UserError(`${where} did not answer with JSON (a list page must be a JSON array)`, {
      hint: wrongUrlHint(apiRootOf(exchange.url)),
    });
  }
  if (!Array.isArray(parsed)) {
    const got = parsed === null ? "null" : typeof parsed === "object" ? "an object" : `a ${typeof parsed}`;
    throw new UserError(`${where} answered ${got}, not a JSON array of records`, {
      hint: wrongUrlHint(apiRootOf(exchange.url)),
    });
  }
  for (const [index, item] of parsed.entries()) {
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      throw new UserError(`${where}: item ${index} of the list is not an object`, {
        hint: "The site answered in a form coursesync does not know; please report it.",
      });
    }
  }
  return parsed as JsonObject[];
}

/** A list page's records: a JSON array of objects with ids, else an error naming the URL. */
export function pageRecords(exchange: Answer): WireRecord[] {
  return pageItems(exchange).map((item, index) => {
    const record = asWireRecord(item);
    if (record === undefined) {
      throw new UserError(
        `GET ${redactUrl(exchange.url.href)}: item ${index} of the list is not an object with an id`,
        { hint: "The site answered in a form coursesync does not know; please report it." },
      );
    }
    return record;
  });
}

/** An item's identity in a listing: its id when it has one, else its whole JSON (keys sorted). */
export function itemIdentity(item: JsonObject): unknown {
  const record = asWireRecord(item);
  return record ? record.id : `json:${JSON.stringify(sortKeys(item))}`;
}
