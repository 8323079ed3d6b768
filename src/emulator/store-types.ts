/** The emulator store's types: its settings, its answers, and its request log. */
import type { EventSettings } from "./event-log.js";
import type { FieldErrors, StateDump } from "./records.js";

/** How a request ended when it did not end with a plain response. */
export type FaultKind = "rate-limited" | "failed" | "reset" | "lost-write";

/** One line of the request log: every /api request, including login and faulted ones. */
export interface RequestLogEntry {
  method: string;
  /** The path without the query string, e.g. `/api/v1/courses`. */
  path: string;
  /** The query string without `?`, with credentials replaced by `[redacted]`; "" when none. */
  query: string;
  /** The status sent, or null when the connection was dropped before any response. */
  status: number | null;
  /** Set when a fault shaped the outcome. */
  fault?: FaultKind;
}

/** What a store operation came to: the record, or not found, or the errors of a 422. */
export type Outcome<T> =
  | { kind: "ok"; value: T }
  | { kind: "not-found" }
  | { kind: "invalid"; errors: FieldErrors };

/** One page of a list, with the totals the paging headers report. */
export interface Page<T> {
  items: T[];
  total: number;
  pageCount: number;
}

/** Whether a bearer token may be used. */
export type TokenCheck = "ok" | "unknown" | "expired";

/** Settings of the store (see EmulatorOptions for their meaning and defaults). */
export interface StateOptions {
  initial: StateDump;
  pageSize: number;
  listOrder?: ListOrder | undefined;
  now: () => Date;
  email: string;
  password: string;
  tokenTtlMs?: number | undefined;
  tokenUses?: number | undefined;
  /** How the site normalises what it stores (see EmulatorOptions.normalise). */
  normalise?: Normalise | undefined;
  /** Whether events are recorded, and how many are kept (see EmulatorOptions.events, eventsKept). */
  events?: EventSettings | undefined;
}

/** What a site may store otherwise than it was sent, as real ones do. */
export interface Normalise {
  /** `place`: a new chapter goes at the end of its course whatever ordinal it was sent (acts_as_list). */
  ordinals?: "place";
  /** `trim`: titles are stored trimmed, runs of white space collapsed to one space. */
  titles?: "trim";
}

/** How lists are ordered: by id, or by updated_at (oldest first, then id), as some sites list. */
export type ListOrder = "id" | "updated_at";
