import { describe, expect, it } from "vitest";
import { recordName } from "../../src/cli/render/words.js";
import { countsLine } from "../../src/cli/summary.js";
import type { Change } from "../../src/sync/model/report.js";
import { counted, grouped } from "../../src/util/words.js";

const change = (outcome: Change["outcome"]): Change =>
  ({ kind: "chapter", id: 1, path: "courses/web/01-intro.md", outcome }) as Change;

describe("counts read right", () => {
  it.each([
    [0, "page", "0 pages"],
    [1, "page", "1 page"],
    [2, "page", "2 pages"],
    [1_000, "file", "1,000 files"],
  ])("counted(%i, %s) is %s", (n, noun, text) => {
    expect(counted(n, noun)).toBe(text);
  });

  it("groups thousands as en-US does, for every size of number", () => {
    const numbers = [0, 7, 999, 1_000, 55_000, 123_456, 1_000_000, 98_765_432_1, -1_234, 12.5];
    for (const n of numbers) expect(grouped(n)).toBe(n.toLocaleString("en-US"));
  });

  it("takes an irregular plural", () => {
    expect(counted(2, "entry", "entries")).toBe("2 entries");
  });

  it.each([
    [["conflict"], "1 conflict"],
    [["conflict", "conflict", "created"], "1 created, 2 conflicts"],
    [["updated", "updated"], "2 updated"],
    [["unchanged"], "no changes"],
  ] as const)("the outcomes %j are said as %s", (outcomes, text) => {
    expect(countsLine(outcomes.map(change))).toBe(text);
  });

  it.each([
    ["chapter", 12, "chapter 12"],
    ["course", undefined, "new course"],
    ["chapter", undefined, "new chapter"],
  ] as const)("a %s with id %s is named %s", (kind, id, text) => {
    expect(recordName(kind, id)).toBe(text);
  });
});
