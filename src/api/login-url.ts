import { usageError } from "../errors.js";

/**
 * Check that a site URL is the versioned API root (http or https, path ending in /api/v1) and
 * return it normalised without a trailing slash.
 */
export function parseBaseUrl(raw: string, where = "--url"): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(
      `${where}: "${redactUrlArgument(raw)}" is not a URL`,
      "Give the site's versioned API root, for example https://academy.example.com/api/v1",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usageError(
      `${where}: "${redactUrlArgument(raw)}" must use http or https`,
      "Give the site's versioned API root, for example https://academy.example.com/api/v1",
    );
  }
  const path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith("/api/v1")) {
    throw usageError(
      `${where}: "${redactUrlArgument(raw)}" does not end in /api/v1`,
      "Give the site's versioned API root, for example https://academy.example.com/api/v1",
    );
  }
  if (url.username || url.password) {
    throw usageError(`${where}: the URL must not carry credentials`, "Use coursesync login instead.");
  }
  url.pathname = path;
  url.search = "";
  url.hash = "";
  return url;
}

/** The login address derived from the API root: the trailing /v1 replaced by /login. */
export function loginUrlFor(baseUrl: URL | string): URL {
  const url = new URL(baseUrl.toString());
  url.pathname = url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "/login");
  url.search = "";
  return url;
}

/** The base URL as a string without a trailing slash: the key for stored tokens. */
export function siteKey(baseUrl: URL | string): string {
  return baseUrl.toString().replace(/\/+$/, "");
}

/**
 * Query and fragment parameters whose values are secrets, by a word in their name: access_token,
 * api_key, client_secret, passwd, X-Amz-Signature, session_id, credentials... and the login's e-mail.
 * Matching words rather than listing names keeps the next provider's spelling covered too.
 */
const SECRET_NAME = /token|key|secret|pass|auth|sig|session|credential|email/i;

/**
 * A parameter in free text: `?`, `&` or `#`, a name, `=`, and the value up to the next parameter.
 * Whitespace, `"`, `<` and `>` end it too: real URLs carry those only percent-encoded.
 */
const PARAM_IN_TEXT = /([?&#])([^=&#\s"<>]*)=([^&#\s"<>]*)/g;

/** A parameter when the whole string is one URL: only the next parameter ends the value. */
const PARAM_IN_URL = /([?&#])([^=&#]*)=([^&#]*)/g;

/**
 * Userinfo in free text: from `//` to the last `@` before the URL ends, even past a `/`, `?`
 * or `#`: a password may hold any of them, and cutting at the first would print the rest.
 */
const USERINFO_IN_TEXT = /([/\\]{2})[^\s"<>]*@/g;

/**
 * Remove secrets from a URL or any text holding one: userinfo, and the values of query and
 * fragment parameters named like credentials. Over-redacts rather than under: an `@` in a
 * path is taken as the end of userinfo.
 */
export function redactUrl(text: string): string {
  return redactParams(text, PARAM_IN_TEXT).replace(USERINFO_IN_TEXT, "$1[redacted]@");
}

/**
 * A URL the user gave (--url, coursesync.yaml), safe to echo even when it does not parse: the
 * whole string is one URL, so userinfo runs from the scheme's slashes (or the start) to its
 * last `@` whatever it holds, spaces included.
 */
function redactUrlArgument(raw: string): string {
  const text = redactParams(raw, PARAM_IN_URL);
  const at = text.lastIndexOf("@");
  if (at < 0) return text;
  const scheme = /^\s*[a-z][a-z0-9+.-]*:[/\\]+/i.exec(text)?.[0] ?? "";
  return `${scheme}[redacted]${text.slice(at)}`;
}

function redactParams(text: string, param: RegExp): string {
  return text.replace(param, (whole, separator: string, name: string) =>
    SECRET_NAME.test(decodedName(name)) ? `${separator}${name}=[redacted]` : whole,
  );
}

/** A parameter name as the server reads it, so `p%61ss` counts as `pass`. */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name;
  }
}
