import { describe, expect, it } from "vitest";
import { type ListingState, listingLine } from "../../src/cli/render/progress-line.js";

const at = (state: Partial<ListingState>): string =>
  listingLine({
    list: "chapters",
    records: 0,
    pages: 0,
    total: undefined,
    elapsedMs: 0,
    ...state,
  });

describe("a listing's progress line", () => {
  it.each([
    ["before the first page", {}, " chapters waiting for the first page"],
    [
      "no estimate: the count and the rate",
      { records: 200, pages: 2, elapsedMs: 500 },
      " chapters 200 records in 2 pages · 400/s",
    ],
    [
      "one page, too soon for a rate",
      { records: 1, pages: 1, elapsedMs: 100 },
      " chapters 1 record in 1 page",
    ],
    [
      "the last sync's count as the total: a bar, the rate and the time left",
      { records: 1000, pages: 10, total: 4000, elapsedMs: 1000 },
      " chapters ██████░░░░░░░░░░░░░░░░░░ 1,000/4,000 records in 10 pages · 1,000/s · 3 s left",
    ],
    [
      "more records than the estimate: the total follows the count",
      { records: 5000, pages: 50, total: 4000, elapsedMs: 5000 },
      " chapters ████████████████████████ 5,000/5,000 records in 50 pages · 1,000/s · 0 s left",
    ],
    [
      "minutes left",
      { records: 100, pages: 1, total: 50_000, elapsedMs: 1000 },
      " chapters ░░░░░░░░░░░░░░░░░░░░░░░░ 100/50,000 records in 1 page · 100/s · 8 min 19 s left",
    ],
  ])("%s", (_name, state, line) => {
    expect(at(state)).toBe(line);
  });
});
