/**
 * Retry timing: Retry-After parsing and exponential backoff with full jitter. Pure functions:
 * the clock and the random source come in as arguments so tests can pin them.
 */

/** How long the client waits between attempts. */
export interface BackoffPolicy {
  /** Ceiling of the first wait, doubled for every later attempt. @default 500 */
  baseMs: number;
  /** No single backoff wait is longer than this. @default 30_000 */
  maxMs: number;
  /** A Retry-After longer than this is not waited for: the request fails instead. @default 120_000 */
  maxRetryAfterMs: number;
}

/** The policy used when the caller gives none. */
export const defaultBackoffPolicy: Readonly<BackoffPolicy> = Object.freeze({
  baseMs: 500,
  maxMs: 30_000,
  maxRetryAfterMs: 120_000,
});

/**
 * Parse a Retry-After header (RFC 9110 10.2.3): delta seconds or an HTTP date, as milliseconds
 * from `now`. A date in the past gives 0; a missing or unreadable value gives undefined.
 */
export function parseRetryAfter(
  value: string | readonly string[] | undefined,
  now: number,
): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value) as string | undefined;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === "") return undefined;
  // Delta seconds. The RFC says a non-negative integer; fractions are accepted because some
  // servers send them, and they mean what they say.
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // Anything else must be a date with a weekday or month name: Date.parse alone would also
  // accept bare numbers like "-5" or "1e3" as years.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * The wait before retry number `attempt + 1` (attempt 0 is the first retry): full jitter, a
 * uniform pick in [0, min(maxMs, baseMs * 2^attempt)), so the ceiling doubles each time and
 * clients that failed together do not come back together.
 */
export function backoffDelay(
  attempt: number,
  random: () => number,
  policy: Pick<BackoffPolicy, "baseMs" | "maxMs"> = defaultBackoffPolicy,
): number {
  const ceiling = backoffCeiling(attempt, policy);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * ceiling);
}

/** The upper bound of `backoffDelay` for an attempt: baseMs doubled per attempt, capped at maxMs. */
export function backoffCeiling(
  attempt: number,
  policy: Pick<BackoffPolicy, "baseMs" | "maxMs"> = defaultBackoffPolicy,
): number {
  const exponent = Math.min(Math.max(attempt, 0), 30);
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
}

/**
 * The wait before retrying a response that may carry Retry-After (429, 503): the server's own
 * value when it sent one, else backoff. Undefined means "do not retry": the server asked for a
 * longer wait than the policy allows.
 */
export function retryDelay(options: {
  attempt: number;
  retryAfterMs: number | undefined;
  random: () => number;
  policy?: BackoffPolicy;
}): number | undefined {
  const policy = options.policy ?? defaultBackoffPolicy;
  if (options.retryAfterMs !== undefined) {
    return options.retryAfterMs > policy.maxRetryAfterMs ? undefined : options.retryAfterMs;
  }
  return backoffDelay(options.attempt, options.random, policy);
}
