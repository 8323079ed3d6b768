import { redactUrl } from "./login-url.js";

// What to tell the user when the site URL looks wrong: the answer is not the API's, or the
// address does not answer at all. The errors that carry these hints live in errors.ts.

/** The form a site URL takes, for messages that say what is expected. */
const API_URL_EXAMPLE = "https://academy.example.com/api/v1";

/**
 * What to do when the answer at a URL shows it is not the API (a web page, a Not Found for a
 * path every API has): the URL asked goes in the message, this says what form is expected.
 */
export function wrongUrlHint(apiRoot: string): string {
  return (
    `${redactUrl(apiRoot)} does not look like the site's API. The site URL (--url, or the site's url in coursesync.yaml) ` +
    `must be its versioned API root, for example ${API_URL_EXAMPLE}.`
  );
}

/**
 * Whether an error answer says the URL is not the API: 404, 405 or 501 for a path every such
 * API serves, or a web page (HTML) where JSON was due. A 5xx page (a proxy's 502) and a 429
 * say the site is unwell, not that the URL is wrong.
 */
export function answersLikeNotTheApi(status: number, body: string, contentType: string | undefined): boolean {
  if (status === 404 || status === 405 || status === 501) return true;
  if (status >= 500 || status === 429) return false;
  return /html/i.test(contentType ?? "") || /^\s*<(!doctype|html|head|body)/i.test(body);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

const CHECK_URL = "the site URL (--url or coursesync.yaml)";

/** What to check when a request could not get through, by what went wrong. */
export function networkHint(code: string | undefined, url: string): string {
  const host = hostOf(url);
  switch (code) {
    case "ECONNREFUSED":
      return `Nothing answers at ${host}: check the host and port in ${CHECK_URL}, and that the site (or \`coursesync emulator\`) is running.`;
    case "ENOTFOUND":
      return `The host name ${host} is not known: check its spelling in ${CHECK_URL}, and your network connection.`;
    case "EAI_AGAIN":
      return `The host name ${host} could not be looked up just now: check your network connection and DNS, then run the command again.`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `No route to ${host}: check ${CHECK_URL} and your network connection (a VPN?), then run the command again.`;
    default:
      return `Check ${CHECK_URL} and your network connection, then run the command again.`;
  }
}
