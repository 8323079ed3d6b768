/**
 * The emulator's misbehaviour: latency, a sliding-window rate limit, random and one-shot 5xx,
 * connection resets and lost writes. Random decisions come from a seeded PRNG, so a test that
 * sends the same requests sees the same faults.
 */
import type { Checked, FieldErrors } from "./records.js";

/** The fault levels in force; every field can be changed at runtime. */
export interface FaultSettings {
  /** Milliseconds added before every API response. */
  latencyMs: number;
  /** Most API requests admitted in any 1 s window; undefined = unlimited. */
  rate: number | undefined;
  /** Probability (0..1) of a 500/502/503 before anything is applied. */
  failRate: number;
  /** Probability (0..1) that the connection is dropped before anything is applied. */
  resetRate: number;
  /** Probability (0..1) that an applied write is answered with a dropped connection. */
  lostWriteRate: number;
}

/** Which requests a one-shot fault hits: method (any case) and a path prefix, both optional. */
export interface RequestMatch {
  method?: string;
  /** Matches this path and everything below it, e.g. `/api/v1/courses` also hits `/api/v1/courses/7`. */
  path?: string;
  /** Matches only the list page asked for with `?page=` this number. */
  page?: number;
}

/** A change to the faults, as POST /__admin/faults takes it. */
export interface FaultPatch {
  latencyMs?: number;
  /** null removes the limit. */
  rate?: number | null;
  failRate?: number;
  resetRate?: number;
  lostWriteRate?: number;
  /** The next n matching API requests get a 5xx (replaces any pending count; 0 cancels). */
  failNext?: number;
  /** The status those one-shot failures use; default 500. */
  failStatus?: number;
  /** The next n matching API requests have their connection dropped before anything is applied. */
  resetNext?: number;
  /** The next n matching writes that succeed are applied, then their connection is dropped. */
  loseNextWrites?: number;
  /** Narrows the one-shots set in the same patch; default: every API request. */
  match?: RequestMatch;
}

/** The one-shots still waiting, by kind. */
export interface PendingOneShots {
  failNext: number;
  resetNext: number;
  loseNextWrites: number;
}

/** What to do with a request before it is applied. */
export type Verdict = { kind: "pass" } | { kind: "fail"; status: number } | { kind: "reset" };

/** The request facts a fault decision needs. */
export interface FaultRequest {
  method: string;
  path: string;
  /** The `?page=` asked for, when it is a number. */
  page?: number;
}

interface OneShot {
  remaining: number;
  match: RequestMatch;
  status: number;
}

/** A small seeded PRNG (mulberry32): uniform numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RANDOM_STATUSES = [500, 502, 503] as const;

function matches(match: RequestMatch, request: FaultRequest): boolean {
  if (match.method !== undefined && match.method.toUpperCase() !== request.method.toUpperCase()) return false;
  if (match.page !== undefined && match.page !== request.page) return false;
  if (match.path === undefined) return true;
  const prefix = match.path.replace(/\/+$/, "");
  return request.path === prefix || request.path.startsWith(`${prefix}/`);
}

/** Decides, request by request, which fault (if any) strikes. */
export class Faults {
  private current: FaultSettings;
  private readonly random: () => number;
  private readonly clock: () => number;
  private admitted: number[] = [];
  private oneShots: { fail?: OneShot; reset?: OneShot; lose?: OneShot } = {};

  constructor(settings: FaultSettings, options: { randomSeed?: number; clock?: () => number } = {}) {
    this.current = { ...settings };
    this.random = mulberry32(options.randomSeed ?? Math.floor(Math.random() * 2 ** 32));
    this.clock = options.clock ?? (() => performance.now());
  }

  /** The levels in force. */
  get settings(): FaultSettings {
    return { ...this.current };
  }

  /** The one-shot counts still pending. */
  get pending(): PendingOneShots {
    return {
      failNext: this.oneShots.fail?.remaining ?? 0,
      resetNext: this.oneShots.reset?.remaining ?? 0,
      loseNextWrites: this.oneShots.lose?.remaining ?? 0,
    };
  }

  /** Apply a change (checked with `checkFaultPatch` when it comes from outside). */
  update(patch: FaultPatch): void {
    const { rate, failNext, failStatus, resetNext, loseNextWrites, match } = patch;
    for (const key of ["latencyMs", "failRate", "resetRate", "lostWriteRate"] as const) {
      const value = patch[key];
      if (value !== undefined) this.current[key] = value;
    }
    if (rate !== undefined) {
      this.current.rate = rate ?? undefined;
      this.admitted = [];
    }
    const shot = (count: number) => ({ remaining: count, match: { ...match }, status: failStatus ?? 500 });
    if (failNext !== undefined) this.oneShots.fail = shot(failNext);
    if (resetNext !== undefined) this.oneShots.reset = shot(resetNext);
    if (loseNextWrites !== undefined) this.oneShots.lose = shot(loseNextWrites);
  }

  /**
   * Count a request against the rate limit. Returns undefined when admitted, else the whole
   * seconds until the oldest request in the window leaves it (the Retry-After value).
   */
  admit(): number | undefined {
    const rate = this.current.rate;
    if (rate === undefined) return undefined;
    const now = this.clock();
    this.admitted = this.admitted.filter((at) => at > now - 1000);
    const oldest = this.admitted[0];
    if (oldest !== undefined && this.admitted.length >= rate) {
      return Math.max(1, Math.ceil((oldest + 1000 - now) / 1000));
    }
    this.admitted.push(now);
    return undefined;
  }

  /**
   * The allowance after the last `admit`, for rate-limit headers: the limit, the requests left
   * in the window now, and the milliseconds until the window is empty again (the allowance
   * whole). Undefined without a limit.
   */
  allowance(): { limit: number; remaining: number; resetMs: number } | undefined {
    const rate = this.current.rate;
    if (rate === undefined) return undefined;
    const now = this.clock();
    const inWindow = this.admitted.filter((at) => at > now - 1000);
    const newest = inWindow.at(-1);
    const resetMs = newest === undefined ? 0 : Math.max(0, newest + 1000 - now);
    return { limit: rate, remaining: Math.max(0, rate - inWindow.length), resetMs };
  }

  /** Decide whether a request fails or loses its connection before it is applied. */
  beforeApply(request: FaultRequest): Verdict {
    const fail = this.take("fail", request);
    if (fail) return { kind: "fail", status: fail.status };
    if (this.take("reset", request)) return { kind: "reset" };
    if (this.current.failRate > 0 && this.random() < this.current.failRate) {
      const index = Math.floor(this.random() * RANDOM_STATUSES.length);
      return { kind: "fail", status: RANDOM_STATUSES[index] ?? 500 };
    }
    if (this.current.resetRate > 0 && this.random() < this.current.resetRate) return { kind: "reset" };
    return { kind: "pass" };
  }

  /**
   * Decide whether a write's response is lost. Called for every write so the random sequence
   * does not depend on outcomes; only a write that was applied is ever lost.
   */
  loseWrite(request: FaultRequest, applied: boolean): boolean {
    const drawn = this.current.lostWriteRate > 0 && this.random() < this.current.lostWriteRate;
    if (!applied) return false;
    return this.take("lose", request) !== undefined || drawn;
  }

  private take(kind: "fail" | "reset" | "lose", request: FaultRequest): OneShot | undefined {
    const shot = this.oneShots[kind];
    if (shot === undefined || shot.remaining <= 0 || !matches(shot.match, request)) return undefined;
    shot.remaining--;
    return shot;
  }
}

const PATCH_KEYS = new Set([
  "latencyMs",
  "rate",
  "failRate",
  "resetRate",
  "lostWriteRate",
  "failNext",
  "failStatus",
  "resetNext",
  "loseNextWrites",
  "match",
]);

/** Check a fault change from outside: unknown keys and out-of-range values are errors. */
export function checkFaultPatch(value: unknown): Checked<FaultPatch> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, errors: { faults: ["must be a JSON object"] } };
  }
  const input = value as Record<string, unknown>;
  const errors: FieldErrors = {};
  const fail = (key: string, message: string) => {
    errors[key] = [message];
  };
  const isCount = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
  for (const key of Object.keys(input)) if (!PATCH_KEYS.has(key)) fail(key, "is not a fault setting");
  const { latencyMs, rate, failStatus, match } = input;
  if (latencyMs !== undefined && !(typeof latencyMs === "number" && latencyMs >= 0 && latencyMs < 2 ** 31)) {
    fail("latencyMs", "must be a number of milliseconds, 0 or more");
  }
  if (rate !== undefined && rate !== null && !(isCount(rate) && (rate as number) > 0)) {
    fail("rate", "must be a whole number of requests per second, or null for no limit");
  }
  for (const key of ["failRate", "resetRate", "lostWriteRate"]) {
    const p = input[key];
    if (p !== undefined && !(typeof p === "number" && p >= 0 && p <= 1))
      fail(key, "must be a probability from 0 to 1");
  }
  for (const key of ["failNext", "resetNext", "loseNextWrites"]) {
    if (input[key] !== undefined && !isCount(input[key])) fail(key, "must be a whole number, 0 or more");
  }
  if (
    failStatus !== undefined &&
    !(isCount(failStatus) && (failStatus as number) >= 400 && (failStatus as number) <= 599)
  ) {
    fail("failStatus", "must be an HTTP error status from 400 to 599");
  }
  if (match !== undefined) {
    const ok =
      match !== null &&
      typeof match === "object" &&
      !Array.isArray(match) &&
      Object.entries(match).every(([k, v]) =>
        k === "page" ? isCount(v) : (k === "method" || k === "path") && typeof v === "string",
      );
    if (!ok) fail("match", 'must be an object {"method"?: string, "path"?: string, "page"?: number}');
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: input as FaultPatch };
}
