import { describe, expect, it } from "vitest";
import { fileSelection } from "../../src/sync/selection.js";

const FILES = [
  "courses/intro-python/course.yaml",
  "courses/intro-python/01-basics.md",
  "courses/intro-python/02-draft-notes.md",
  "courses/intro-go/01-tour.md",
  "courses/advanced/course.yaml",
  "courses/advanced/01-macros.md",
];

/** The files of FILES a selection takes. */
function selected(only: string[], ignore: string[]): string[] {
  const select = fileSelection(only, ignore);
  if (!select) throw new Error("no selection");
  return FILES.filter(select);
}

describe("--only / --ignore globs", () => {
  it("is no selection at all without either flag", () => {
    expect(fileSelection([], [])).toBeUndefined();
  });

  it("matches gitignore's way: * within a folder, ** across, a folder takes its files", () => {
    expect(selected(["courses/intro-*/**"], [])).toEqual(FILES.slice(0, 4));
    expect(selected(["courses/advanced"], [])).toEqual(FILES.slice(4));
    expect(selected(["courses/*/0*.md"], [])).toEqual(FILES.filter((f) => f.endsWith(".md")));
    // Without a slash a pattern matches at any depth.
    expect(selected(["course.yaml"], [])).toEqual([FILES[0], FILES[4]]);
    expect(selected(["./courses/intro-go/**"], [])).toEqual([FILES[3]]);
    // A leading slash anchors a pattern at the tree's root, as in .gitignore.
    expect(selected(["/courses/intro-go/**"], [])).toEqual([FILES[3]]);
  });

  it("takes what matches an --only glob (any) and no --ignore glob", () => {
    expect(selected([], ["**/*draft*.md"])).toEqual(FILES.filter((f) => !f.includes("draft")));
    expect(selected(["courses/intro-python/**", "courses/advanced/**"], ["*.yaml"])).toEqual([
      "courses/intro-python/01-basics.md",
      "courses/intro-python/02-draft-notes.md",
      "courses/advanced/01-macros.md",
    ]);
    // A negation brings a file back, as in .gitignore.
    expect(selected([], ["courses/intro-python/*", "!**/01-*.md"])).toEqual([
      "courses/intro-python/01-basics.md",
      ...FILES.slice(3),
    ]);
  });

  it("refuses globs that are not tree paths, naming the flag", () => {
    expect(() => fileSelection(["../x/**"], [])).toThrow('--only "../x/**": not a glob of tree paths');
    expect(() => fileSelection([], ["C:\\courses"])).toThrow(
      '--ignore "C:\\\\courses": not a glob of tree paths',
    );
    expect(() => fileSelection([""], [])).toThrow('--only "": not a glob of tree paths');
  });
});
