import { describe, expect, it } from "vitest";
import { conflictMarkerLine, hasConflictMarkers } from "../../src/tree/bodies/conflict-markers.js";
import { type MergeResult, mergeBody, mergeLines } from "../../src/tree/bodies/merge.js";
import { seededRandom } from "../helpers/random.js";

/** The text with every conflict resolved to one side, as an author deleting markers would. */
function takeSide(text: string, side: "local" | "site"): string {
  const out: string[] = [];
  let section: "both" | "local" | "site" = "both";
  for (const line of text.split("\n")) {
    if (/^<{7} /.test(line)) section = "local";
    else if (/^={7}\r?$/.test(line) && section === "local") section = "site";
    else if (/^>{7} /.test(line)) section = "both";
    else if (section === "both" || section === side) out.push(line);
  }
  return out.join("\n");
}

/** The merged text, marked or clean; a merge that could not place its markers has none. */
function textOf(result: MergeResult): string {
  if (result.kind === "unmarked") throw new Error("the merge placed no markers where they are seen");
  return result.text;
}

function clean(text: string): MergeResult {
  return { kind: "clean", text };
}

const lines = (...ls: string[]) => `${ls.join("\n")}\n`;
const fence = "```";

type Row = [name: string, base: string, local: string, remote: string, merged: string | "conflict"];

const table: Row[] = [
  [
    "disjoint lines",
    lines("a", "b", "c", "d"),
    lines("A", "b", "c", "d"),
    lines("a", "b", "c", "D"),
    lines("A", "b", "c", "D"),
  ],
  [
    "same line, different words",
    lines("The quick brown fox jumps over the lazy dog."),
    lines("The slow brown fox jumps over the lazy dog."),
    lines("The quick brown fox jumps over the lazy cat."),
    lines("The slow brown fox jumps over the lazy cat."),
  ],
  [
    "same paragraph, different sentences",
    lines("# T", "", "First it rains. Then it pours. At last it stops."),
    lines("# T", "", "First it drizzles. Then it pours. At last it stops."),
    lines("# T", "", "First it rains. Then it pours. At long last it stops."),
    lines("# T", "", "First it drizzles. Then it pours. At long last it stops."),
  ],
  ["overlapping words", lines("one two three"), lines("one 2 three"), lines("one II three"), "conflict"],
  [
    "a word deleted against the same word edited",
    lines("one two three"),
    lines("one three"),
    lines("one 2 three"),
    "conflict",
  ],
  [
    "list: items added at different places",
    lines("- a", "- b", "- c", "- d"),
    lines("- a", "- a2", "- b", "- c", "- d"),
    lines("- a", "- b", "- c", "- c2", "- d"),
    lines("- a", "- a2", "- b", "- c", "- c2", "- d"),
  ],
  [
    "list: items added at one place",
    lines("- a", "- b"),
    lines("- a", "- x", "- b"),
    lines("- a", "- y", "- b"),
    "conflict",
  ],
  [
    "list: one item edited on both sides, words apart",
    lines("- a", "- set the oven to 200 degrees", "- c"),
    lines("- a", "- heat the oven to 200 degrees", "- c"),
    lines("- a", "- set the oven to 180 degrees", "- c"),
    lines("- a", "- heat the oven to 180 degrees", "- c"),
  ],
  [
    "list: one item edited on both sides, same word",
    lines("- a", "- set the oven to 200 degrees", "- c"),
    lines("- a", "- set the oven to 220 degrees", "- c"),
    lines("- a", "- set the oven to 180 degrees", "- c"),
    "conflict",
  ],
  [
    "list: the last word of an item and the first of the next",
    lines("- alpha beta", "- gamma delta"),
    lines("- alpha BETA", "- gamma delta"),
    lines("- alpha beta", "- GAMMA delta"),
    "conflict",
  ],
  [
    "code block: edits in different lines",
    lines("Intro", fence, "let a = 1;", "let b = 2;", "let c = 3;", fence),
    lines("Intro", fence, "let a = 10;", "let b = 2;", "let c = 3;", fence),
    lines("Intro", fence, "let a = 1;", "let b = 2;", "let c = 30;", fence),
    lines("Intro", fence, "let a = 10;", "let b = 2;", "let c = 30;", fence),
  ],
  [
    "code block: edits in neighbouring lines (lines only in code)",
    lines(fence, "let a = 1;", "let b = 2;", fence),
    lines(fence, "let a = 10;", "let b = 2;", fence),
    lines(fence, "let a = 1;", "let b = 20;", fence),
    "conflict",
  ],
  [
    "code block: edits in one line, words apart (lines only in code)",
    lines("~~~ts", "call(first, second, third, fourth);", "~~~"),
    lines("~~~ts", "call(FIRST, second, third, fourth);", "~~~"),
    lines("~~~ts", "call(first, second, third, FOURTH);", "~~~"),
    "conflict",
  ],
  [
    "the same two edits outside a code block merge",
    lines("call(first, second, third, fourth);"),
    lines("call(FIRST, second, third, fourth);"),
    lines("call(first, second, third, FOURTH);"),
    lines("call(FIRST, second, third, FOURTH);"),
  ],
  [
    "code block in a list item: lines only",
    lines("- step", "  ```", "  run one two three", "  ```"),
    lines("- step", "  ```", "  run ONE two three", "  ```"),
    lines("- step", "  ```", "  run one two THREE", "  ```"),
    "conflict",
  ],
  [
    "prose after a closed code block merges by words again",
    lines("````", "```", "code", "````", "", "Prose with words here and there."),
    lines("````", "```", "code", "````", "", "Text with words here and there."),
    lines("````", "```", "code", "````", "", "Prose with words here and everywhere."),
    lines("````", "```", "code", "````", "", "Text with words here and everywhere."),
  ],
  [
    "table: a cell each side in one row, a cell apart",
    lines("| a | b |", "|---|---|", "| red | green | blue |"),
    lines("| a | b |", "|---|---|", "| RED | green | blue |"),
    lines("| a | b |", "|---|---|", "| red | green | BLUE |"),
    lines("| a | b |", "|---|---|", "| RED | green | BLUE |"),
  ],
  [
    "table: neighbouring cells of one row",
    lines("| red | green | blue |"),
    lines("| RED | green | blue |"),
    lines("| red | GREEN | blue |"),
    "conflict",
  ],
  [
    "table: a row each side",
    lines("| k | v |", "|---|---|", "| a | 1 |", "| b | 2 |", "| c | 3 |"),
    lines("| k | v |", "|---|---|", "| a | 1 |", "| a2 | 1.5 |", "| b | 2 |", "| c | 3 |"),
    lines("| k | v |", "|---|---|", "| a | 1 |", "| b | 2 |", "| c | 3 |", "| d | 4 |"),
    lines("| k | v |", "|---|---|", "| a | 1 |", "| a2 | 1.5 |", "| b | 2 |", "| c | 3 |", "| d | 4 |"),
  ],
  [
    "table: a row each side at the same place",
    lines("| k | v |", "| a | 1 |"),
    lines("| k | v |", "| a | 1 |", "| b | 2 |"),
    lines("| k | v |", "| a | 1 |", "| c | 3 |"),
    "conflict",
  ],
  [
    "edits to neighbouring words",
    lines("the quick brown fox"),
    lines("the slow brown fox"),
    lines("the quick red fox"),
    "conflict",
  ],
  [
    "edits to words with only punctuation between",
    lines("Hello, world."),
    lines("Hi, world."),
    lines("Hello, there."),
    "conflict",
  ],
  [
    "an insertion right before an edited word",
    lines("a b c"),
    lines("a new b c"),
    lines("a B c"),
    "conflict",
  ],
  [
    "an inserted line next to an edited line, the edit words away",
    lines("intro", "This paragraph is one long line of prose.", "outro"),
    lines("intro", "This paragraph is one long line of prose.", "An added line.", "outro"),
    lines("intro", "That paragraph is one long line of prose.", "outro"),
    lines("intro", "That paragraph is one long line of prose.", "An added line.", "outro"),
  ],
  [
    "an inserted line next to an edit at the end of the line",
    lines("intro", "This paragraph is one long line of prose.", "outro"),
    lines("intro", "This paragraph is one long line of prose.", "An added line.", "outro"),
    lines("intro", "This paragraph is one long line of verse.", "outro"),
    "conflict",
  ],
  [
    "a line split in two on one side, a word far away edited on the other",
    lines("One sentence here. Another sentence there."),
    lines("One sentence here.", "Another sentence there."),
    lines("One clause here. Another sentence there."),
    lines("One clause here.", "Another sentence there."),
  ],
  [
    "a deleted paragraph against an edited one",
    lines("# T", "", "Keep me.", "", "Drop this paragraph now.", "", "End."),
    lines("# T", "", "Keep me.", "", "End."),
    lines("# T", "", "Keep me.", "", "Drop this paragraph later.", "", "End."),
    "conflict",
  ],
  [
    "a line deleted on one side, another edited on the other",
    lines("a", "b", "c", "d"),
    lines("a", "c", "d"),
    lines("a", "b", "c", "D"),
    lines("a", "c", "D"),
  ],
  [
    "a line deleted on one side, the next line edited far from its start",
    lines("gone line", "kept words here"),
    lines("kept words here"),
    lines("gone line", "kept words there"),
    lines("kept words there"),
  ],
  [
    "a line deleted on one side, the first word of the next edited",
    lines("gone line", "kept words here"),
    lines("kept words here"),
    lines("gone line", "KEPT words here"),
    "conflict",
  ],
  [
    "the same change on both sides",
    lines("a", "b", "c"),
    lines("a", "B", "c"),
    lines("a", "B", "c"),
    lines("a", "B", "c"),
  ],
  [
    "the same change on both sides, and more on one",
    lines("a", "b", "c", "d"),
    lines("a", "B", "c", "d"),
    lines("a", "B", "c", "D"),
    lines("a", "B", "c", "D"),
  ],
  ["one side removes the trailing newline", "a\nb\nc\n", "A\nb\nc\n", "a\nb\nc", "A\nb\nc"],
  ["one side adds a trailing newline", "a\nb\nc", "A\nb\nc", "a\nb\nc\n", "A\nb\nc\n"],
  ["no trailing newline anywhere", "a\nb\nc", "A\nb\nc", "a\nb\nC", "A\nb\nC"],
  ["a trailing newline added next to an edit of the last line", "a\nb", "a\nb\n", "a\nB", "conflict"],
  ["CRLF: disjoint lines", "a\r\nb\r\nc\r\n", "A\r\nb\r\nc\r\n", "a\r\nb\r\nC\r\n", "A\r\nb\r\nC\r\n"],
  [
    "CRLF: one line, words apart",
    "one two three\r\nx\r\n",
    "1 two three\r\nx\r\n",
    "one two 3\r\nx\r\n",
    "1 two 3\r\nx\r\n",
  ],
  ["empty base, both created the same", "", "# New\n", "# New\n", "# New\n"],
  ["empty base, one side created", "", "", "# New\n", "# New\n"],
  ["empty base, both created different text", "", "# Mine\n", "# Theirs\n", "conflict"],
  [
    "accented words",
    lines("Le café est très chaud et la crème est fraîche."),
    lines("Le thé est très chaud et la crème est fraîche."),
    lines("Le café est très chaud et la crème est épaisse."),
    lines("Le thé est très chaud et la crème est épaisse."),
  ],
  [
    "decomposed accents are part of their word",
    lines("one cafe\u0301 two"),
    lines("ONE cafe\u0301 two"),
    lines("one cafe\u0301 TWO"),
    lines("ONE cafe\u0301 TWO"),
  ],
  [
    "CJK: one character each side, apart",
    lines("我们喜欢猫。他们喜欢狗。"),
    lines("你们喜欢猫。他们喜欢狗。"),
    lines("我们喜欢猫。他们喜欢鸟。"),
    lines("你们喜欢猫。他们喜欢鸟。"),
  ],
  [
    "CJK: neighbouring characters",
    lines("我们喜欢猫。"),
    lines("我们讨厌猫。"),
    lines("我们喜欢狗。"),
    "conflict",
  ],
  [
    "emoji count as words",
    lines("Great 🎉 work 👍🏽 today"),
    lines("Great 🎊 work 👍🏽 today"),
    lines("Great 🎉 work 👍🏽 tonight"),
    lines("Great 🎊 work 👍🏽 tonight"),
  ],
  [
    "an emoji between two edits keeps them apart",
    lines("left 👩‍👩‍👧 right"),
    lines("LEFT 👩‍👩‍👧 right"),
    lines("left 👩‍👩‍👧 RIGHT"),
    lines("LEFT 👩‍👩‍👧 RIGHT"),
  ],
  [
    "words that are Object.prototype names",
    lines("constructor toString valueOf", "__proto__"),
    lines("constructor toString valueOf", "hasOwnProperty"),
    lines("Constructor toString valueOf", "__proto__"),
    lines("Constructor toString valueOf", "hasOwnProperty"),
  ],
];

describe("mergeBody", () => {
  it.each(table)("%s", (_name, base, local, remote, merged) => {
    const result = mergeBody(base, local, remote);
    if (merged !== "conflict") {
      expect(result).toEqual(clean(merged));
      return;
    }
    expect(result.kind).toBe("conflict");
    // Each side resolves back to itself: the markers hold all of both sides' change.
    expect(takeSide(textOf(result), "local")).toBe(local);
    expect(takeSide(textOf(result), "site")).toBe(remote);
  });

  it("writes markers around just the overlapping lines, the rest merged around them", () => {
    const base = lines("# Title", "", "Intro text.", "", "Shared line one", "Shared line two", "", "End.");
    const local = lines("# New title", "", "Intro text.", "", "Mine one", "Shared line two", "", "End.");
    const remote = lines("# Title", "", "Intro text.", "", "Theirs one", "Shared line two", "", "The end.");
    expect(mergeBody(base, local, remote)).toEqual({
      kind: "conflict",
      conflicts: 1,
      text: lines(
        "# New title",
        "",
        "Intro text.",
        "",
        "<<<<<<< local",
        "Mine one",
        "=======",
        "Theirs one",
        ">>>>>>> site",
        "Shared line two",
        "",
        "The end.",
      ),
    });
  });

  it("writes an empty local section for a deleted paragraph edited on the site", () => {
    const base = lines("Keep.", "", "Drop this paragraph now.", "", "End.");
    const local = lines("Keep.", "", "End.");
    const remote = lines("Keep.", "", "Drop this paragraph later.", "", "End.");
    expect(mergeBody(base, local, remote)).toEqual({
      kind: "conflict",
      conflicts: 1,
      text: lines(
        "Keep.",
        "",
        "<<<<<<< local",
        "=======",
        "Drop this paragraph later.",
        "",
        ">>>>>>> site",
        "End.",
      ),
    });
  });

  it("counts each conflict, and takes the labels it is given", () => {
    const base = lines("a x", "b", "c", "d", "e y");
    const result = mergeBody(base, lines("a 1", "b", "c", "d", "e 1"), lines("a 2", "b", "c", "d", "e 2"), {
      labels: { local: "mine", remote: "production" },
    });
    expect(result).toEqual({
      kind: "conflict",
      conflicts: 2,
      text: lines(
        ...["<<<<<<< mine", "a 1", "=======", "a 2", ">>>>>>> production", "b", "c", "d"],
        ...["<<<<<<< mine", "e 1", "=======", "e 2", ">>>>>>> production"],
      ),
    });
  });

  it("keeps CRLF on marker lines in a CRLF body", () => {
    const result = mergeBody("a\r\nb\r\n", "A\r\nb\r\n", "Z\r\nb\r\n");
    expect(textOf(result)).toBe("<<<<<<< local\r\nA\r\n=======\r\nZ\r\n>>>>>>> site\r\nb\r\n");
  });

  it("merges by lines only when words are off (raw-HTML bodies)", () => {
    const base = lines("<p>The quick brown fox jumps over the lazy dog.</p>");
    const local = lines("<p>The slow brown fox jumps over the lazy dog.</p>");
    const remote = lines("<p>The quick brown fox jumps over the lazy cat.</p>");
    expect(mergeBody(base, local, remote).kind).toBe("clean");
    expect(mergeBody(base, local, remote, { words: false }).kind).toBe("conflict");
  });

  it("gives a body rewritten throughout on both sides as one conflict", () => {
    const base = Array.from({ length: 100_000 }, (_, i) => `line ${i}`);
    const local = base.map((line, i) => (i % 50 === 1 ? `${line} mine` : line));
    const remote = base.map((line, i) => (i % 50 === 2 ? `${line} theirs` : line));
    const result = mergeBody(lines(...base), lines(...local), lines(...remote));
    expect(result.kind === "conflict" && result.conflicts).toBe(1);
    expect(takeSide(textOf(result), "local")).toBe(lines(...local));
    expect(takeSide(textOf(result), "site")).toBe(lines(...remote));
  });
});

describe("mergeLines", () => {
  it("merges lines that do not touch and refuses those that do", () => {
    expect(mergeLines("a\nb\nc", "A\nb\nc", "a\nb\nC")).toBe("A\nb\nC");
    expect(mergeLines("a b\n", "A b\n", "a B\n")).toBeUndefined();
  });
});

describe("conflict markers", () => {
  it.each([
    ["plain text", "a\nb\n", undefined],
    ["a marker block", "a\n<<<<<<< local\nx\n=======\ny\n>>>>>>> site\n", 2],
    ["bare markers", "<<<<<<<\nx\n=======\ny\n>>>>>>>", 1],
    ["CRLF markers", "a\r\n<<<<<<<\r\nx\r\n=======\r\ny\r\n>>>>>>>\r\n", 2],
    ["an opening marker alone", "<<<<<<< local\nx\n", undefined],
    ["markers inside a line", "a <<<<<<< b\nc >>>>>>> d\n", undefined],
    ["eight angle brackets", "<<<<<<<<\nx\n>>>>>>>>\n", undefined],
  ])("%s", (_name, text, line) => {
    expect(conflictMarkerLine(text)).toBe(line);
    expect(hasConflictMarkers(text)).toBe(line !== undefined);
  });

  it("finds the markers mergeBody writes", () => {
    const result = mergeBody("a\n", "b\n", "c\n");
    expect(hasConflictMarkers(textOf(result))).toBe(true);
  });
});

// ---- generated documents ---------------------------------------------------------------------

interface Line {
  prefix: string;
  words: string[];
  seps: string[];
}

/** One side's edit: a word replaced, a line deleted, or a line inserted after `line` (-1: on top). */
type Edit =
  | { kind: "word"; line: number; word: number; fresh: string }
  | { kind: "delete"; line: number }
  | { kind: "insert"; line: number; fresh: string };

/** A Markdown-like document whose every word is distinct, so each edit has one reading. */
function generate(random: ReturnType<typeof seededRandom>): Line[] {
  let n = 0;
  const doc: Line[] = [];
  const count = 4 + random.below(10);
  for (let block = 0; block < count; block++) {
    if (block > 0) doc.push({ prefix: "", words: [], seps: [] });
    const prefix = random.pick(["", "", "# ", "- ", "> "]);
    const items = prefix === "- " ? 1 + random.below(3) : 1;
    for (let i = 0; i < items; i++) {
      const words = Array.from({ length: 1 + random.below(12) }, () => `w${n++}`);
      doc.push({ prefix, words, seps: words.map(() => random.pick([" ", " ", " ", ", ", ". ", " — "])) });
    }
  }
  return doc;
}

function render(doc: Line[], edits: Edit[], trailing: boolean): string {
  const inserted = (line: number) =>
    edits.flatMap((e) => (e.kind === "insert" && e.line === line ? [e.fresh] : []));
  const out = inserted(-1);
  doc.forEach((line, i) => {
    if (edits.some((e) => e.kind === "delete" && e.line === i)) return;
    const replaced = (w: number) =>
      edits.flatMap((e) => (e.kind === "word" && e.line === i && e.word === w ? [e.fresh] : []))[0];
    const words = line.words.map((word, w) => replaced(w) ?? word);
    out.push(
      line.prefix + words.map((word, w) => (w === words.length - 1 ? word : word + line.seps[w])).join(""),
    );
    out.push(...inserted(i));
  });
  return out.join("\n") + (trailing ? "\n" : "");
}

function randomEdit(doc: Line[], random: ReturnType<typeof seededRandom>, fresh: string): Edit {
  const texts = doc.flatMap((line, i) => (line.words.length > 0 ? [i] : []));
  const line = random.pick(texts);
  const kind = random.pick(["word", "word", "word", "delete", "insert"] as const);
  if (kind === "insert") return { kind, line: random.below(doc.length + 1) - 1, fresh: `${fresh} line` };
  if (kind === "delete") return { kind, line };
  return { kind, line, word: random.below(doc[line]!.words.length), fresh };
}

type Span = readonly [start: number, end: number];

/** Where an edit sits in the base: its span of lines and its span of words (all words numbered). */
function spans(doc: Line[], edit: Edit): { lines: Span; words: Span } {
  const firstWord = (line: number) => doc.slice(0, line).reduce((sum, l) => sum + l.words.length, 0);
  if (edit.kind === "insert") {
    const at = firstWord(edit.line + 1);
    return { lines: [edit.line + 1, edit.line + 1], words: [at, at] };
  }
  const start = firstWord(edit.line);
  const words: Span =
    edit.kind === "word" ? [start + edit.word, start + edit.word + 1] : [start, firstWord(edit.line + 1)];
  return { lines: [edit.line, edit.line + 1], words };
}

/** The rule under test: at least one unchanged line, or one unchanged word, between the edits. */
function apart(a: Span, b: Span): boolean {
  const [first, second] = a[0] <= b[0] ? [a, b] : [b, a];
  return second[0] - first[1] >= 1;
}

function expectResolvesToSides(result: MergeResult, local: string, remote: string): void {
  expect(takeSide(textOf(result), "local")).toBe(local);
  expect(takeSide(textOf(result), "site")).toBe(remote);
}

describe("mergeBody on generated documents", () => {
  it("merges an edit on each side exactly when a line or a word lies between them", () => {
    const random = seededRandom(11);
    let merged = 0;
    for (let round = 0; round < 400; round++) {
      const doc = generate(random);
      const trailing = random.random() < 0.8;
      const mine = randomEdit(doc, random, "LOCAL");
      const theirs = randomEdit(doc, random, "REMOTE");
      // Both deleting one line is one change made twice: clean, and not what this measures.
      if (mine.kind === "delete" && theirs.kind === "delete" && mine.line === theirs.line) continue;
      const [a, b] = [spans(doc, mine), spans(doc, theirs)];
      const base = render(doc, [], trailing);
      const local = render(doc, [mine], trailing);
      const remote = render(doc, [theirs], trailing);
      const result = mergeBody(base, local, remote);
      const context = { base, local, remote, text: result.kind === "unmarked" ? undefined : result.text };
      if (apart(a.lines, b.lines) || apart(a.words, b.words)) {
        merged++;
        expect(result, JSON.stringify(context)).toEqual(clean(render(doc, [mine, theirs], trailing)));
      } else {
        expect(result.kind, JSON.stringify(context)).toBe("conflict");
        expectResolvesToSides(result, local, remote);
      }
    }
    // Both outcomes were exercised, not just one.
    expect(merged).toBeGreaterThan(100);
    expect(merged).toBeLessThan(390);
  });

  it("merges several edits a side on disjoint lines, keeping every one", () => {
    const random = seededRandom(12);
    for (let round = 0; round < 150; round++) {
      const doc = generate(random);
      const pick = (side: string) =>
        Array.from({ length: 1 + random.below(3) }, (_, i) => randomEdit(doc, random, `${side}${i}`));
      const mine = pick("LOCAL");
      const theirs = pick("REMOTE");
      const lineSpans = (edits: Edit[]) => edits.map((e) => spans(doc, e).lines);
      const disjoint = lineSpans(mine).every((a) => lineSpans(theirs).every((b) => apart(a, b)));
      const sameSideClash = (edits: Edit[]) =>
        edits.some((e, i) =>
          edits.some((f, j) => i !== j && e.kind !== "insert" && f.kind !== "insert" && e.line === f.line),
        );
      if (!disjoint || sameSideClash(mine) || sameSideClash(theirs)) continue;
      const result = mergeBody(render(doc, [], true), render(doc, mine, true), render(doc, theirs, true));
      expect(result).toEqual(clean(render(doc, [...mine, ...theirs], true)));
    }
  });
});
