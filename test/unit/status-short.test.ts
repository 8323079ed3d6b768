import { describe, expect, it } from "vitest";
import { shortLines } from "../../src/cli/render/status.js";

describe("status --short lines", () => {
  it("keeps one line per path, invalid and conflict before any other state", () => {
    expect(
      shortLines([
        { state: "modified", kind: "chapter", id: 1, path: "courses/a/01-x.md" },
        { state: "invalid", kind: "file", id: undefined, path: "courses/a/01-x.md", message: "line 2" },
        { state: "invalid", kind: "file", id: undefined, path: "courses/a/01-x.md", message: "line 3" },
        { state: "deleted", kind: "chapter", id: 2, path: "courses/a/02-y.md" },
      ]),
    ).toEqual(["!! courses/a/01-x.md", " D courses/a/02-y.md"]);
  });

  it("quotes a path that holds a quote, backslash, control character or the arrow, as JSON", () => {
    expect(
      shortLines([
        { state: "new", kind: "chapter", id: undefined, path: 'courses/a/01-"q".md' },
        { state: "new", kind: "chapter", id: undefined, path: "courses/a/02-tab\t.md" },
        {
          state: "renamed",
          kind: "chapter",
          id: 3,
          path: "courses/a/03-a -> b.md",
          from: "courses/a/03 x.md",
        },
      ]),
    ).toEqual([
      'A  "courses/a/01-\\"q\\".md"',
      'A  "courses/a/02-tab\\t.md"',
      'R  courses/a/03 x.md -> "courses/a/03-a -> b.md"',
    ]);
  });
});
