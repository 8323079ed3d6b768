/**
 * The pace a site has shown it allows (DESIGN 6): every attempt reserves its start here, inside
 * the gate. Until the site refuses something, nothing is held back beyond the user's own cap.
 * After a 429 the pacer allows at most L starts per rolling window, L being the starts the site
 * accepted in the second before the refusal; L creeps up by one only after a long quiet stretch.
 * Rate-limit headers (`RateLimit-*`, `X-RateLimit-*`), where a site sends them, pace it exactly.
 */

/**
 * Slack added to every rate window: requests that start a window apart can arrive closer together
 * (network jitter), and a server counting arrivals in its own one-second window would then see
 * one too many and answer 429. Measured against the emulator at 10 per second: 8 of 107
 * requests got 429 with a bare 1000 ms window, none with this slack.
 */
export const RATE_WINDOW_SLACK_MS = 100;

/** The window a site's per-second limit is assumed to count in, when it does not say. */
const SITE_WINDOW_MS = 1000;

/** How long start times are remembered: well past any window and any attempt's answer. */
const HISTORY_MS = 60_000;

/** One attempt's reserved start. */
export interface Start {
  /** Order of reservation. */
  readonly seq: number;
  /** When it starts, by the pacer's clock. */
  readonly at: number;
  /** The site answered 429: it did not count against the site's allowance. */
  refused: boolean;
  /** The site answered with anything else: it took this start. */
  accepted: boolean;
}

/** Options of `Pacer`. */
export interface PacerOptions {
  /** The clock in milliseconds (epoch-based, for `X-RateLimit-Reset` times). */
  now: () => number;
  /** How a start waits for its slot. */
  sleep: (ms: number) => Promise<void>;
  /**
   * Quiet time (no 429) after which a learned limit rises by one start per window. Doubles each
   * time such a rise is refused. @default 300_000 (five minutes)
   */
  creepAfterMs?: number;
  /** The longest a `Remaining: 0` header holds starts; a later reset is left to the 429. @default 120_000 */
  maxHoldMs?: number;
}

/** What a site's rate-limit headers say, times by the pacer's clock. */
export interface RateHeaders {
  limit?: number;
  remaining?: number;
  /** When the allowance is whole again. */
  resetAt?: number;
  /** The window the limit counts in, when the site names it. */
  windowMs?: number;
}

interface Pace {
  count: number;
  windowMs: number;
}

interface Quota {
  /** The answered start the headers describe: starts after it use up `remaining`. */
  basis: number;
  remaining: number;
  resetAt: number;
}

const MAX_CREEP_MS = 32 * 60_000;

/** Reserves start times so that a site's limit, once seen, is not hit again. */
export class Pacer {
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #maxHoldMs: number;
  #creepAfterMs: number;
  #starts: Start[] = [];
  #seq = 0;
  /** Learned from 429s. */
  #learned: Pace | undefined;
  /** Starts reserved before this seq were sent under an older pace: their 429s teach nothing. */
  #learnedFrom = 0;
  #quietSince = 0;
  #probing = false;
  /** Advertised by the site's headers. */
  #advertised: Pace | undefined;
  #quota: Quota | undefined;

  constructor(options: PacerOptions) {
    this.#now = options.now;
    this.#sleep = options.sleep;
    this.#creepAfterMs = options.creepAfterMs ?? 300_000;
    this.#maxHoldMs = options.maxHoldMs ?? 120_000;
  }

  /** Wait for the next free slot and take it. */
  async admit(): Promise<Start> {
    const now = this.#now();
    const start = this.reserve(now);
    if (start.at > now) await this.#sleep(start.at - now);
    return start;
  }

  /** Take the earliest slot at or after `now` that keeps every known limit (first come, first served). */
  reserve(now: number): Start {
    this.#creep(now);
    const last = this.#starts.at(-1);
    let at = Math.max(now, last?.at ?? now);
    for (let guard = 0; guard < 8; guard++) {
      const later = Math.max(
        this.#quotaSlot(at, now),
        paceSlot(this.#starts, this.#learned, at),
        paceSlot(this.#starts, this.#advertised, at),
      );
      if (later <= at) break;
      at = later;
    }
    const start: Start = { seq: this.#seq++, at, refused: false, accepted: false };
    this.#starts.push(start);
    this.#forget(now);
    return start;
  }

  /**
   * The site answered `start` with 429: learn the limit from the starts it is known to have
   * accepted in the second before (answers still on their way are not counted: an estimate on
   * the low side). A 429 for a start sent before the last change of pace is part of the same
   * collision and teaches nothing new.
   */
  refused(start: Start): void {
    start.refused = true;
    if (start.seq < this.#learnedFrom) return;
    const accepted = this.#starts.filter((s) => s.accepted && s.at > start.at - SITE_WINDOW_MS).length;
    const now = this.#now();
    if (this.#learned === undefined) {
      // Refused with nothing of ours accepted: someone else used the allowance; our pace says nothing.
      if (accepted === 0) return;
      this.#learned = { count: accepted, windowMs: SITE_WINDOW_MS + RATE_WINDOW_SLACK_MS };
    } else {
      const lower = this.#learned.count - 1;
      this.#learned.count = Math.max(1, accepted > 0 ? Math.min(accepted, lower) : lower);
      if (this.#probing) this.#creepAfterMs = Math.min(MAX_CREEP_MS, this.#creepAfterMs * 2);
    }
    this.#probing = false;
    this.#learnedFrom = this.#seq;
    this.#quietSince = now;
  }

  /** The site answered `start` (not with 429): note it took it, and read its rate-limit headers. */
  answered(start: Start, headers: Record<string, string | string[] | undefined>): void {
    start.accepted = true;
    this.observe(start, headers);
  }

  /** Read the rate-limit headers of the answer to `start`, if it has any. */
  observe(start: Start, headers: Record<string, string | string[] | undefined>): void {
    const now = this.#now();
    const seen = readRateHeaders(headers, now);
    if (seen === undefined) return;
    if (seen.limit !== undefined && seen.limit >= 1) {
      const windowMs = (seen.windowMs ?? SITE_WINDOW_MS) + RATE_WINDOW_SLACK_MS;
      this.#advertised = { count: Math.floor(seen.limit), windowMs };
    }
    if (seen.remaining === undefined || seen.resetAt === undefined) return;
    // Only the newest view counts: an answer to an older start knows less.
    if (this.#quota !== undefined && start.seq < this.#quota.basis) return;
    this.#quota = { basis: start.seq, remaining: seen.remaining, resetAt: seen.resetAt };
  }

  /** The learned limit: starts per window after a 429, undefined before. */
  get learnedLimit(): number | undefined {
    return this.#learned?.count;
  }

  /** The quiet time before the learned limit rises by one. */
  get creepAfterMs(): number {
    return this.#creepAfterMs;
  }

  #creep(now: number): void {
    if (this.#learned === undefined || now - this.#quietSince < this.#creepAfterMs) return;
    this.#learned.count += 1;
    this.#probing = true;
    this.#quietSince = now;
    this.#learnedFrom = this.#seq;
  }

  /** The earliest time from `at` the headers' allowance has room for one more start. */
  #quotaSlot(at: number, now: number): number {
    const quota = this.#quota;
    if (quota === undefined || at >= quota.resetAt || quota.resetAt - now > this.#maxHoldMs) return at;
    let since = 0;
    for (let i = this.#starts.length - 1; i >= 0; i--) {
      const s = this.#starts[i] as Start;
      if (s.seq <= quota.basis) break;
      since += 1;
    }
    return quota.remaining - since > 0 ? at : quota.resetAt;
  }

  #forget(now: number): void {
    const first = this.#starts[0];
    if (first === undefined || first.at >= now - HISTORY_MS || this.#starts.length < 256) return;
    const keep = this.#starts.findIndex((s) => s.at >= now - HISTORY_MS);
    this.#starts = keep < 0 ? [] : this.#starts.slice(keep);
  }
}

/** The earliest time from `at` when fewer than `pace.count` accepted starts lie in the window before it. */
function paceSlot(starts: readonly Start[], pace: Pace | undefined, at: number): number {
  if (pace === undefined) return at;
  const inWindow: number[] = [];
  for (let i = starts.length - 1; i >= 0; i--) {
    const s = starts[i] as Start;
    if (s.at <= at - pace.windowMs) break;
    if (!s.refused) inWindow.push(s.at);
  }
  if (inWindow.length < pace.count) return at;
  // Newest first: the start that must leave the window is the count-th newest.
  return (inWindow[pace.count - 1] as number) + pace.windowMs;
}

/** A reset given as a moment rather than a delay: epoch seconds from 2001 on (or milliseconds). */
const EPOCH_SECONDS_FROM = 1e9;
const EPOCH_MS_FROM = 1e12;

/**
 * The rate-limit headers of an answer: IETF `RateLimit-Limit/-Remaining/-Reset` (Reset in
 * seconds; a window from `w=` in RateLimit-Limit or RateLimit-Policy, or the combined
 * `RateLimit: r=..;t=..`), else `X-RateLimit-*` (Reset in seconds, or an epoch time when it is
 * too large to be a delay). Undefined when there are none.
 */
export function readRateHeaders(
  headers: Record<string, string | string[] | undefined>,
  now: number,
): RateHeaders | undefined {
  const text = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  };
  const policy = text("ratelimit-policy");
  const combined = text("ratelimit");
  const ietf = {
    limit: firstNumber(text("ratelimit-limit")) ?? param(policy, "q"),
    remaining: firstNumber(text("ratelimit-remaining")) ?? param(combined, "r"),
    reset: firstNumber(text("ratelimit-reset")) ?? param(combined, "t"),
  };
  const windowSeconds = param(text("ratelimit-limit"), "w") ?? param(policy, "w");
  if (ietf.limit !== undefined || ietf.remaining !== undefined) {
    return shape(
      ietf.limit,
      ietf.remaining,
      ietf.reset === undefined ? undefined : now + ietf.reset * 1000,
      windowSeconds,
    );
  }
  const limit = firstNumber(text("x-ratelimit-limit"));
  const remaining = firstNumber(text("x-ratelimit-remaining"));
  if (limit === undefined && remaining === undefined) return undefined;
  const reset = firstNumber(text("x-ratelimit-reset"));
  let resetAt: number | undefined;
  if (reset !== undefined) {
    if (reset >= EPOCH_MS_FROM) resetAt = reset;
    else if (reset >= EPOCH_SECONDS_FROM) resetAt = reset * 1000;
    else resetAt = now + reset * 1000;
  }
  return shape(limit, remaining, resetAt, undefined);
}

function shape(
  limit: number | undefined,
  remaining: number | undefined,
  resetAt: number | undefined,
  windowSeconds: number | undefined,
): RateHeaders {
  const seen: RateHeaders = {};
  if (limit !== undefined) seen.limit = limit;
  if (remaining !== undefined) seen.remaining = remaining;
  if (resetAt !== undefined) seen.resetAt = resetAt;
  if (windowSeconds !== undefined && windowSeconds > 0) seen.windowMs = windowSeconds * 1000;
  return seen;
}

/** The leading number of a header value ("10", "10, 10;w=1"). */
function firstNumber(value: string | undefined): number | undefined {
  const match = value?.match(/^\s*(\d+(?:\.\d+)?)/);
  return match === undefined || match === null ? undefined : Number(match[1]);
}

/** A `name=number` parameter of a header value ("10;w=1", `"default";r=5;t=1`). */
function param(value: string | undefined, name: string): number | undefined {
  const match = value?.match(new RegExp(`(?:^|[;,\\s])${name}=(\\d+(?:\\.\\d+)?)`));
  return match === undefined || match === null ? undefined : Number(match[1]);
}
