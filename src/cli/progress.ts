import cliProgress from "cli-progress";
import type { CliIO, GlobalOptions } from "./io.js";

/** Progress of paged listings: bars on a terminal's stderr, nothing otherwise. */
export interface ListingProgress {
  page(list: string, page: number, count: number): void;
  stop(): void;
}

/** Progress bars (cli-progress) when stderr is a TTY and neither --no-progress nor --quiet. */
export function listingProgress(io: CliIO, globals: GlobalOptions): ListingProgress {
  if (!barsShown(io, globals)) return { page: () => {}, stop: () => {} };
  const multi = new cliProgress.MultiBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: " {list} | {value} records in {pages} pages",
      hideCursor: true,
      clearOnComplete: true,
      stopOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, { bar: cliProgress.SingleBar; records: number; pages: number }>();
  return {
    page(list, _page, count) {
      let state = bars.get(list);
      if (!state) {
        state = { bar: multi.create(0, 0, { list: list.padEnd(8), pages: 0 }), records: 0, pages: 0 };
        bars.set(list, state);
      }
      state.records += count;
      state.pages++;
      state.bar.setTotal(state.records);
      state.bar.update(state.records, { list: list.padEnd(8), pages: state.pages });
    },
    stop() {
      multi.stop();
    },
  };
}

/** Progress of a push's writes (a restore creates thousands): a bar on a terminal's stderr. */
export interface WriteProgress {
  done(): void;
  stop(): void;
}

/** A bar over `total` writes when stderr is a TTY and neither --no-progress nor --quiet. */
export function writeProgress(io: CliIO, globals: GlobalOptions, total: number): WriteProgress {
  if (!io.stderr.isTTY || !globals.progress || globals.quiet || io.env.CI)
    return { done: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: " writes   | {bar} {value}/{total}",
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return { done: () => bar.increment(), stop: () => bar.stop() };
}

/** Bars go to a terminal's stderr, unless --no-progress, --quiet or CI. */
function barsShown(io: CliIO, globals: GlobalOptions): boolean {
  return io.stderr.isTTY === true && globals.progress && !globals.quiet && !io.env.CI;
}
