import { describe, expect, it } from "vitest";
import { mergeMarkdown } from "../../src/tree/bodies/rendered-merge.js";
import { equivalentHtml, markdownToHtml } from "../../src/tree/markdown/index.js";
import { seededRandom } from "../helpers/random.js";

// Generated chapters edited on both sides, in the spellings authors use: whatever the merge
// gives, no edit is lost, and a clean merge renders to exactly what both edits make.

interface Block {
  heading: boolean;
  words: string[];
}

/** One side's edit: a word replaced, emphasis put on words [from, to), or a heading spelled setext. */
type Edit =
  | { kind: "word"; block: number; word: number; fresh: string }
  | { kind: "em"; block: number; from: number; to: number; mark: "*" | "_" }
  | { kind: "setext"; block: number };

type Random = ReturnType<typeof seededRandom>;

function generate(random: Random): Block[] {
  let n = 0;
  return Array.from({ length: 2 + random.below(5) }, () => ({
    heading: random.below(4) === 0,
    words: Array.from({ length: 2 + random.below(10) }, () => `w${n++}`),
  }));
}

function randomEdit(doc: Block[], random: Random, fresh: string): Edit {
  const block = random.below(doc.length);
  const count = doc[block]!.words.length;
  const kind = random.pick(["word", "em", "em", "setext"] as const);
  if (kind === "setext" && doc[block]!.heading) return { kind, block };
  if (kind === "word") return { kind, block, word: random.below(count), fresh };
  const from = random.below(count);
  return {
    kind: "em",
    block,
    from,
    to: from + 1 + random.below(count - from),
    mark: random.pick(["*", "_"]),
  };
}

function render(doc: Block[], edits: Edit[]): string {
  return `${doc
    .map((block, b) => {
      const mine = edits.filter((e) => e.block === b);
      const words = block.words.map((word, w) => {
        const fresh = mine.find((e) => e.kind === "word" && e.word === w);
        let out = fresh?.kind === "word" ? fresh.fresh : word;
        for (const e of mine) {
          if (e.kind === "em" && e.from === w) out = e.mark + out;
          if (e.kind === "em" && e.to - 1 === w) out += e.mark;
        }
        return out;
      });
      const text = words.join(" ");
      if (!block.heading) return text;
      return mine.some((e) => e.kind === "setext") ? `${text}\n===` : `# ${text}`;
    })
    .join("\n\n")}\n`;
}

/** Emphasis from both sides on words of one block that overlap: markup neither side had. */
function interleaved(a: Edit, b: Edit): boolean {
  if (JSON.stringify(a) === JSON.stringify(b)) return false;
  return a.kind === "em" && b.kind === "em" && a.block === b.block && a.from < b.to && b.from < a.to;
}

/** The text with each conflict resolved to one side. */
function takeSide(text: string, side: "local" | "site"): string {
  const out: string[] = [];
  let section = "both";
  for (const line of text.split("\n")) {
    if (/^<{7} /.test(line)) section = "local";
    else if (/^={7}$/.test(line) && section === "local") section = "site";
    else if (/^>{7} /.test(line)) section = "both";
    else if (section === "both" || section === side) out.push(line);
  }
  return out.join("\n");
}

describe("mergeMarkdown on generated chapters", () => {
  it("loses no edit, renders a clean merge as both edits make it, and refuses interleaved markup", () => {
    const random = seededRandom(28);
    let clean = 0;
    let refused = 0;
    for (let round = 0; round < 400; round++) {
      const doc = generate(random);
      const mine = randomEdit(doc, random, "LOCAL");
      const theirs = randomEdit(doc, random, "REMOTE");
      const [base, local, remote] = [render(doc, []), render(doc, [mine]), render(doc, [theirs])];
      const result = mergeMarkdown(base, local, remote);
      // Markers that a reader would not see as a block are never written.
      if (result.kind === "unmarked") throw new Error(`unmarked: ${JSON.stringify({ base, local, remote })}`);
      const context = JSON.stringify({ base, local, remote, text: result.text });
      if (result.kind === "conflict") {
        expect(takeSide(result.text, "local"), context).toBe(local);
        expect(takeSide(result.text, "site"), context).toBe(remote);
        if (interleaved(mine, theirs)) refused++;
        continue;
      }
      clean++;
      expect(interleaved(mine, theirs), context).toBe(false);
      const same = JSON.stringify(mine) === JSON.stringify(theirs);
      const both = markdownToHtml(render(doc, same ? [mine] : [mine, theirs]));
      expect(equivalentHtml(markdownToHtml(result.text), both), context).toBe(true);
    }
    // Each outcome was exercised, not just one.
    expect(clean).toBeGreaterThan(150);
    expect(refused).toBeGreaterThan(5);
  });
});
