import { describe, expect, it } from "vitest";
import {
  backoffCeiling,
  backoffDelay,
  defaultBackoffPolicy,
  parseRetryAfter,
  retryDelay,
} from "../../src/api/retry.js";

const NOW = Date.parse("2025-03-01T12:00:00Z");

describe("parseRetryAfter", () => {
  it("reads delta seconds", () => {
    expect(parseRetryAfter("3", NOW)).toBe(3000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
    expect(parseRetryAfter("1.5", NOW)).toBe(1500);
  });

  it("reads an HTTP date against the injected clock", () => {
    expect(parseRetryAfter("Sat, 01 Mar 2025 12:00:07 GMT", NOW)).toBe(7000);
    expect(parseRetryAfter(["Sat, 01 Mar 2025 12:01:00 GMT"], NOW)).toBe(60_000);
  });

  it("gives 0 for a date in the past", () => {
    expect(parseRetryAfter("Sat, 01 Mar 2025 11:59:00 GMT", NOW)).toBe(0);
  });

  it("gives undefined for missing or unreadable values", () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter("", NOW)).toBeUndefined();
    expect(parseRetryAfter("-5", NOW)).toBeUndefined();
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
    expect(parseRetryAfter("1e3", NOW)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("doubles the ceiling per attempt up to the cap", () => {
    const policy = { baseMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffCeiling(a, policy))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it("picks within [0, ceiling) with full jitter", () => {
    const policy = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(2, () => 0, policy)).toBe(0);
    expect(backoffDelay(2, () => 0.5, policy)).toBe(200);
    expect(backoffDelay(2, () => 0.999999, policy)).toBeLessThan(400);
    for (let attempt = 0; attempt < 10; attempt++) {
      for (const r of [0, 0.1, 0.5, 0.9, 0.9999]) {
        const d = backoffDelay(attempt, () => r);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(backoffCeiling(attempt) + 1);
      }
    }
  });

  it("grows for a fixed random draw", () => {
    const delays = [0, 1, 2, 3, 4].map((a) => backoffDelay(a, () => 0.5));
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1] ?? 0);
    expect(delays[0]).toBe(defaultBackoffPolicy.baseMs / 2);
  });
});

describe("retryDelay", () => {
  it("prefers Retry-After over backoff", () => {
    expect(retryDelay({ attempt: 3, retryAfterMs: 2000, random: () => 0.5 })).toBe(2000);
    expect(retryDelay({ attempt: 1, retryAfterMs: undefined, random: () => 0.5 })).toBe(500);
  });

  it("refuses to wait longer than the cap", () => {
    const policy = { ...defaultBackoffPolicy, maxRetryAfterMs: 60_000 };
    expect(retryDelay({ attempt: 0, retryAfterMs: 3_600_000, random: () => 0.5, policy })).toBeUndefined();
    expect(retryDelay({ attempt: 0, retryAfterMs: 60_000, random: () => 0.5, policy })).toBe(60_000);
  });
});
