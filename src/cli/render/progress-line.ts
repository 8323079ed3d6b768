import { counted, grouped } from "../../util/words.js";

/** Where one paged listing stands, for its progress line. */
export interface ListingState {
  /** "courses" or "chapters". */
  list: string;
  records: number;
  pages: number;
  /** The records expected: the last sync's count until the listing ends, then the true one. */
  total: number | undefined;
  /** Milliseconds since the listing started. */
  elapsedMs: number;
}

const WIDTH = 24;

/**
 * One progress line: a bar and a count against the total when one is known (the last sync's
 * count is an estimate, raised when the site holds more), the rate, and the time left.
 */
export function listingLine(state: ListingState): string {
  const name = state.list.padEnd(8);
  const pages = counted(state.pages, "page");
  const rate = state.elapsedMs >= 250 ? Math.round((state.records * 1000) / state.elapsedMs) : undefined;
  const perSecond = rate === undefined ? "" : ` · ${grouped(rate)}/s`;
  if (state.records === 0 && state.pages === 0) return ` ${name} waiting for the first page`;
  if (state.total === undefined || state.total === 0)
    return ` ${name} ${counted(state.records, "record")} in ${pages}${perSecond}`;
  const total = Math.max(state.total, state.records);
  const filled = Math.min(WIDTH, Math.round((state.records / total) * WIDTH));
  const bar = `${"█".repeat(filled)}${"░".repeat(WIDTH - filled)}`;
  const left = rate ? Math.ceil((total - state.records) / rate) : undefined;
  const eta = left === undefined ? "" : ` · ${formatSeconds(left)} left`;
  return ` ${name} ${bar} ${grouped(state.records)}/${grouped(total)} records in ${pages}${perSecond}${eta}`;
}

/**
 * The line of a push's writes: a bar of those done against all, the rate and the time left
 * (once a quarter of a second has shown a rate).
 */
export function writesLine(done: number, total: number, elapsedMs: number): string {
  const filled = total === 0 ? WIDTH : Math.min(WIDTH, Math.round((done / total) * WIDTH));
  const bar = `${"█".repeat(filled)}${"░".repeat(WIDTH - filled)}`;
  const rate = elapsedMs >= 250 && done > 0 ? (done * 1000) / elapsedMs : undefined;
  const perSecond = rate === undefined ? "" : ` · ${grouped(Math.round(rate))}/s`;
  const eta = rate === undefined ? "" : ` · ${formatSeconds(Math.ceil((total - done) / rate))} left`;
  return ` ${"writes".padEnd(8)} ${bar} ${grouped(done)}/${grouped(total)}${perSecond}${eta}`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`;
}
