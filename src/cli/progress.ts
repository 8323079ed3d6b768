import cliProgress from "cli-progress";
import type { CliIO, GlobalOptions } from "./io.js";

/** Progress of paged listings: bars on a terminal's stderr, nothing otherwise. */
export interface ListingProgress {
  page(list: string, page: number, count: number): void;
  stop(): void;
}

/** Progress bars (cli-progress) when stderr is a TTY and neither --no-progress nor --quiet. */
export function listingProgress(io: CliIO, globals: GlobalOptions): ListingProgress {
  if (!io.stderr.isTTY || !globals.progress || globals.quiet || io.env.CI) {
    return { page: () => {}, stop: () => {} };
  }
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
