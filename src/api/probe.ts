import { UserError } from "../errors.js";
import { ApiClient } from "./client.js";
import { NetworkError } from "./errors.js";
import { apiError, pageRecords, wrongUrlError } from "./responses.js";

/** What answers at a site URL, asked without a login. */
export type Probe =
  /** An API: a JSON answer, most often a 401 (it wants a login). */
  | { kind: "api"; status: number }
  /** Something else answers there: a web page, or Not Found for the course list. */
  | { kind: "wrong-url"; error: UserError }
  /** Nothing answers: the host is unknown, the port is closed, or no answer in time. */
  | { kind: "unreachable"; error: UserError }
  /** The site answered with an error that says neither (a 500): try again later. */
  | { kind: "unsure"; error: UserError };

/** How long the probe waits for an answer: it is one request, and a setup step must stay quick. */
const PROBE_TIMEOUT_MS = 5_000;

const keep = (text: string) => text;

/**
 * Ask the site's course list for its first page without a token: one request, no retries, a
 * short timeout. An API answers JSON (a 401 that wants a login, or the page); anything else
 * says the URL is not the API's, or does not answer.
 */
export async function probeSite(
  url: string,
  options: { timeoutMs?: number; now?: () => number } = {},
): Promise<Probe> {
  const client = new ApiClient({
    baseUrl: url,
    credentials: {},
    retries: 0,
    timeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS,
    ...(options.now ? { now: options.now } : {}),
  });
  try {
    const exchange = await client.firstPage("courses", false);
    if (exchange.status >= 200 && exchange.status < 300) {
      pageRecords(exchange);
      return { kind: "api", status: exchange.status };
    }
    const wrong = wrongUrlError(exchange, "GET", keep);
    if (wrong !== undefined) return { kind: "wrong-url", error: wrong };
    if (exchange.status === 401 || exchange.status === 403) return { kind: "api", status: exchange.status };
    return { kind: "unsure", error: apiError(exchange, "GET", keep) };
  } catch (error) {
    if (error instanceof NetworkError) return { kind: "unreachable", error };
    // A 2xx that is not a list of records: a web page where the API should be.
    if (error instanceof UserError) return { kind: "wrong-url", error };
    throw error;
  } finally {
    client.close();
  }
}
