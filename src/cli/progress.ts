import cliProgress from "cli-progress";
import type { CliIO, GlobalOptions } from "./io.js";
import { type LineStream, LiveLine } from "./live-line.js";
import { type ListingState, listingLine, writesLine } from "./render/progress-line.js";

/** Progress of paged listings: bars on a terminal's stderr, nothing otherwise. */
export interface ListingProgress {
  /** The records a list is expected to hold (the last sync's count), shown as the total. */
  expect(list: string, records: number): void;
  page(list: string, page: number, count: number): void;
  stop(): void;
}

/** Progress of paged listings: the bars, and each page told to `io.onProgress` when given. */
export function listingProgress(
  io: CliIO,
  globals: GlobalOptions,
  lists: readonly string[] = ["courses", "chapters"],
): ListingProgress {
  const bars = listingBars(io, globals, lists);
  const tell = io.onProgress;
  if (!tell) return bars;
  const records = new Map<string, number>();
  return {
    expect: (list, total) => bars.expect(list, total),
    page(list, page, count) {
      bars.page(list, page, count);
      records.set(list, (records.get(list) ?? 0) + count);
      tell({ type: "listing", list, page, records: records.get(list) ?? 0 });
    },
    stop: () => bars.stop(),
  };
}

/**
 * A line per list (cli-progress) from the start of the run when stderr is a TTY and neither
 * --no-progress, --quiet nor CI: a bar against the expected total, the rate and the time left.
 */
function listingBars(io: CliIO, globals: GlobalOptions, lists: readonly string[]): ListingProgress {
  if (!barsShown(io, globals)) return { expect: () => {}, page: () => {}, stop: () => {} };
  const now = io.now ?? Date.now;
  const started = now();
  const multi = new cliProgress.MultiBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: (_options, _params, payload) =>
        listingLine({ ...(payload as ListingState), elapsedMs: now() - started }),
      hideCursor: true,
      clearOnComplete: true,
      stopOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const states = new Map<string, { bar: cliProgress.SingleBar; state: ListingState }>();
  for (const list of lists) {
    const state: ListingState = { list, records: 0, pages: 0, total: undefined, elapsedMs: 0 };
    states.set(list, { bar: multi.create(1, 0, state), state });
  }
  const redraw = (list: string) => {
    const entry = states.get(list);
    if (entry) entry.bar.update(entry.state.records, entry.state);
  };
  return {
    expect(list, records) {
      const entry = states.get(list);
      if (entry && records > 0) entry.state.total = records;
      redraw(list);
    },
    page(list, _page, count) {
      const entry = states.get(list);
      if (!entry) return;
      entry.state.records += count;
      entry.state.pages++;
      redraw(list);
    },
    stop() {
      multi.stop();
    },
  };
}

/** Progress of a push's writes (a restore creates thousands): a line on a terminal's stderr. */
export interface WriteProgress {
  /** Whether the line is on the terminal (else nothing is drawn). */
  shown: boolean;
  /** One more write ended (done, failed or not sent). */
  done(): void;
  /** Print lines above the progress line (it is drawn again below them). */
  above(print: () => void): void;
  /** Erase the line: the cursor is left below everything printed, for the summary. */
  stop(): void;
}

/** A line over `total` writes when stderr is a TTY and neither --no-progress, --quiet nor CI. */
export function writeProgress(io: CliIO, globals: GlobalOptions, total: number): WriteProgress {
  if (!barsShown(io, globals))
    return { shown: false, done: () => {}, above: (print) => print(), stop: () => {} };
  const line = new LiveLine(io.stderr as LineStream, io.now);
  const started = io.now();
  let done = 0;
  line.show(writesLine(0, total, 0), true);
  return {
    shown: true,
    done() {
      done++;
      line.show(writesLine(done, Math.max(done, total), io.now() - started), done >= total);
    },
    above: (print) => line.above(print),
    stop: () => line.stop(),
  };
}

/** Bars go to a terminal's stderr, unless --no-progress, --quiet or CI. */
function barsShown(io: CliIO, globals: GlobalOptions): boolean {
  return io.stderr.isTTY === true && globals.progress && !globals.quiet && !io.env.CI;
}
