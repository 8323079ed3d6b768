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
      `${where}: "${raw}" is not a URL`,
      "Give the site's versioned API root, for example https://academy.example.com/api/v1",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usageError(
      `${where}: "${redactUrl(raw)}" must use http or https`,
      "Give the site's versioned API root, for example https://academy.example.com/api/v1",
    );
  }
  const path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith("/api/v1")) {
    throw usageError(
      `${where}: "${redactUrl(raw)}" does not end in /api/v1`,
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

const SECRET_PARAMS = /([?&](?:password|auth_token|token|email)=)[^&#\s]*/gi;

/** Remove secrets from a URL or any text holding one: query credentials and userinfo. */
export function redactUrl(text: string): string {
  return text.replace(SECRET_PARAMS, "$1[redacted]").replace(/(\/\/)[^/@\s]+@/g, "$1[redacted]@");
}
