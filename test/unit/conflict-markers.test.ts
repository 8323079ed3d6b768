import { describe, expect, it } from "vitest";
import {
  type CodeSyntax,
  conflictMarkerLine,
  markerBlockLines,
} from "../../src/tree/bodies/conflict-markers.js";
import { mergeBody } from "../../src/tree/bodies/merge.js";
import { markerProblem } from "../../src/tree/marker-problem.js";

const lines = (...all: string[]) => `${all.join("\n")}\n`;
const BLOCK = ["<<<<<<< HEAD", "ours", "=======", "theirs", ">>>>>>> feature"];

describe("conflict marker detection", () => {
  it.each<[string, string, CodeSyntax, number | undefined]>([
    ["a real block outside code", lines("Intro", "", ...BLOCK), "markdown", 3],
    ["a real block after a closed fence", lines("```", "x", "```", ...BLOCK), "markdown", 4],
    ["a block in a backtick fence", lines("Intro", "", "```text", ...BLOCK, "```"), "markdown", undefined],
    ["a block in a tilde fence", lines("~~~", ...BLOCK, "~~~"), "markdown", undefined],
    [
      "a block in a longer fence holding a shorter one",
      lines("`````", "```", ...BLOCK, "```", "`````"),
      "markdown",
      undefined,
    ],
    ["a block in a fence indented three spaces", lines("   ```", ...BLOCK, "   ```"), "markdown", undefined],
    ["a block in an unclosed fence", lines("Intro", "```", ...BLOCK), "markdown", undefined],
    [
      "a block in a fence that a tilde line does not close",
      lines("```", "~~~", ...BLOCK, "```"),
      "markdown",
      undefined,
    ],
    [
      "a block after four-space indented backticks (code, not a fence)",
      lines("    ```", "", ...BLOCK),
      "markdown",
      3,
    ],
    [
      "a block in indented code",
      lines("Intro", "", ...BLOCK.map((line) => `    ${line}`)),
      "markdown",
      undefined,
    ],
    [
      "a block in raw <pre> in Markdown",
      lines("Intro", "", "<pre>", ...BLOCK, "</pre>"),
      "markdown",
      undefined,
    ],
    [
      "a block in <pre> of an HTML body",
      lines("<p>Intro</p>", "<div><pre><code>", ...BLOCK, "</code></pre></div>"),
      "html",
      undefined,
    ],
    ["a block after a closed <pre> of an HTML body", lines("<pre>x</pre>", ...BLOCK), "html", 2],
    ["a block in an unclosed <pre> of an HTML body", lines("<pre>", ...BLOCK), "html", undefined],
    ["a fence in an HTML body is not code", lines("```", ...BLOCK, "```"), "html", 2],
    ["a fence in YAML is not code", lines("title: x", "```", ...BLOCK, "```"), "none", 3],
    [
      "an opening outside a fence, the rest inside",
      lines("<<<<<<< HEAD", "```", "=======", ">>>>>>> x", "```"),
      "markdown",
      undefined,
    ],
    [
      "an opening inside a fence, the rest outside",
      lines("```", "<<<<<<< HEAD", "```", "=======", ">>>>>>> x"),
      "markdown",
      undefined,
    ],
    [
      "a separator inside a fence",
      lines("<<<<<<< HEAD", "```", "=======", "```", ">>>>>>> x"),
      "markdown",
      undefined,
    ],
    ["an opening and a closing only", lines("<<<<<<< HEAD", "a", ">>>>>>> x"), "markdown", undefined],
    ["a separator and a closing only", lines("a", "=======", "b", ">>>>>>> x"), "markdown", undefined],
    ["an opening and a separator only", lines("<<<<<<< HEAD", "a", "=======", "b"), "markdown", undefined],
    ["the three lines out of order", lines(">>>>>>> x", "=======", "<<<<<<< HEAD"), "markdown", undefined],
    ["a setext heading and a quote", lines("Title", "=======", "", ">>>>>>> quoted"), "markdown", undefined],
  ])("%s", (_name, text, syntax, line) => {
    expect(conflictMarkerLine(text, syntax)).toBe(line);
  });

  it("reads a chapter file's front matter as YAML and its body in its syntax", () => {
    const frontMatter = [
      "---",
      "id: 1",
      "<<<<<<< HEAD",
      "title: A",
      "=======",
      "title: B",
      ">>>>>>> x",
      "---",
    ];
    expect(conflictMarkerLine(lines(...frontMatter, "Body"), "markdown", { chapter: true })).toBe(3);
    const lesson = lines("---", "id: 1", "title: Git", "ordinal: 1", "---", "```", ...BLOCK, "```");
    expect(conflictMarkerLine(lesson, "markdown", { chapter: true })).toBeUndefined();
    // A front matter line '---' is not a setext underline or a thematic break of the body.
    const real = lines("---", "id: 1", "---", ...BLOCK);
    expect(conflictMarkerLine(real, "markdown", { chapter: true })).toBe(4);
  });

  it("counts each full block once", () => {
    expect(markerBlockLines(lines(...BLOCK, "between", ...BLOCK), "markdown")).toEqual([0, 6]);
  });
});

describe("conflicts inside code", () => {
  const prose = ["# Git", "", "Intro.", ""];

  it("widens a conflict inside a fence to the whole block on each side", () => {
    const base = lines(...prose, "```sh", "git merge feature", "git status", "```", "", "Outro.");
    const local = lines(...prose, "```sh", "git merge --no-ff feature", "git status", "```", "", "Outro.");
    const remote = lines(...prose, "```sh", "git merge --squash feature", "git status", "```", "", "Outro.");
    const result = mergeBody(base, local, remote);
    expect(result).toEqual({
      kind: "conflict",
      conflicts: 1,
      text: lines(
        ...prose,
        "<<<<<<< local",
        "```sh",
        "git merge --no-ff feature",
        "git status",
        "```",
        "=======",
        "```sh",
        "git merge --squash feature",
        "git status",
        "```",
        ">>>>>>> site",
        "",
        "Outro.",
      ),
    });
    if (result.kind === "conflict") expect(conflictMarkerLine(result.text, "markdown")).toBe(5);
  });

  it("widens a conflict inside a <pre> of an HTML body to the whole element", () => {
    const base = lines("<p>a</p>", "<pre>", "one", "two", "</pre>", "<p>b</p>");
    const local = lines("<p>a</p>", "<pre>", "one!", "two", "</pre>", "<p>b</p>");
    const remote = lines("<p>a</p>", "<pre>", "one?", "two", "</pre>", "<p>b</p>");
    const result = mergeBody(base, local, remote, { words: false });
    expect(result.kind === "conflict" && result.text).toBe(
      lines(
        "<p>a</p>",
        "<<<<<<< local",
        "<pre>",
        "one!",
        "two",
        "</pre>",
        "=======",
        "<pre>",
        "one?",
        "two",
        "</pre>",
        ">>>>>>> site",
        "<p>b</p>",
      ),
    );
  });

  it("lets a git lesson's marker block merge and conflict like any code", () => {
    const lesson = (intro: string, line: string) =>
      lines(intro, "", "```text", "<<<<<<< HEAD", line, "=======", "theirs", ">>>>>>> feature", "```");
    const base = lesson("Intro.", "ours");
    expect(mergeBody(base, lesson("Intro!", "ours"), lesson("Intro.", "mine"))).toEqual({
      kind: "clean",
      text: lesson("Intro!", "mine"),
    });
    const result = mergeBody(base, lesson("Intro.", "local"), lesson("Intro.", "site"));
    expect(result.kind).toBe("conflict");
    if (result.kind !== "conflict") return;
    expect(markerBlockLines(result.text, "markdown")).toEqual([2]);
    expect(
      result.text.startsWith(lines("Intro.", "", "<<<<<<< local", "```text", "<<<<<<< HEAD", "local")),
    ).toBe(true);
  });

  it("keeps a conflict next to code as narrow as before", () => {
    const base = lines("a", "```", "code", "```", "b");
    const result = mergeBody(
      base,
      lines("a", "```", "code", "```", "B1"),
      lines("a", "```", "code", "```", "B2"),
    );
    expect(result.kind === "conflict" && result.text).toBe(
      lines("a", "```", "code", "```", "<<<<<<< local", "B1", "=======", "B2", ">>>>>>> site"),
    );
  });

  it("joins two conflicts in one block into one", () => {
    const base = lines("```", "1", "2", "3", "4", "```");
    const result = mergeBody(
      base,
      lines("```", "1a", "2", "3", "4a", "```"),
      lines("```", "1b", "2", "3", "4b", "```"),
    );
    expect(result.kind === "conflict" && result.conflicts).toBe(1);
  });

  it("writes no markers a fence left open on one side would swallow", () => {
    const base = lines("p", "```", "code", "```", "q");
    const local = lines("p", "```", "code mine", "q");
    const remote = lines("p", "```", "code theirs", "```", "q");
    expect(mergeBody(base, local, remote)).toEqual({ kind: "unmarked", conflicts: 1 });
  });
});

describe("git's longer markers (a rename conflict: two whole files in one)", () => {
  const RENAMED = [
    "---",
    "title: Intro",
    "ordinal: 1",
    "format: html",
    "---",
    "<<<<<<<< HEAD:courses/web/01-intro.md",
    "<p>one</p>",
    "========",
    "<p>the other file</p>",
    ">>>>>>>> side:courses/web/01-start.md",
    "",
  ].join("\n");

  it("are conflict markers, at their opening line, with the advice to keep one of the files", () => {
    const problem = markerProblem("courses/web/01-intro.md", RENAMED, undefined);
    expect(problem?.rule).toBe("conflict-markers");
    expect(problem?.line).toBe(6);
    expect(problem?.problem).toMatch(/^holds git's conflict markers of 8 characters \(<{8} \.\.\. >{8}\)/);
    expect(problem?.hint).toMatch(/^Keep one of the files/);
  });

  it("count only as a block of one size: a seven-character separator does not close eight", () => {
    expect(markerProblem("a.md", "<<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n", undefined)).toBeUndefined();
    const nine = markerProblem("course.yaml", "title: A\n<<<<<<<<<\nx\n=========\ny\n>>>>>>>>>\n", "course");
    expect([nine?.line, nine?.rule]).toEqual([2, "conflict-markers"]);
  });
});
