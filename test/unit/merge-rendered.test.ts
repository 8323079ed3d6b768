import { describe, expect, it } from "vitest";
import { contentMerger } from "../../src/sync/content-merge.js";
import { mergeBody } from "../../src/tree/bodies/merge.js";
import { mergeMarkdown } from "../../src/tree/bodies/rendered-merge.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { equivalentHtml, htmlToBody, markdownToHtml } from "../../src/tree/markdown/index.js";
import {
  BASE,
  BASE_MD,
  composing,
  LINE,
  LINE_MD,
  overlapping,
  SITE,
  spellings,
} from "../helpers/merge-cases.js";

/** The merge as pull and push run it, for a Markdown file holding `local`. */
function merge(local: string, remote = SITE, base = BASE): string | undefined {
  const mergeText = contentMerger(markdownCodec, new Map(), { format: "markdown", text: local });
  return mergeText("content", base, markdownToHtml(local), remote) as string | undefined;
}

describe("a merge is judged by what it renders, not by its Markdown spelling", () => {
  it("starts from a chapter written in the converter's own spellings", () => {
    for (const [, canonical] of spellings) expect(BASE_MD).toContain(canonical);
  });

  it.each(spellings)("%s here, an edit elsewhere on the site: merged", (_name, canonical, written) => {
    const local = BASE_MD.replace(canonical, written);
    const merged = merge(local);
    expect(merged, "a clean merge").toBeTypeOf("string");
    // What both changes make: the author's rendering with the site's edit in it.
    const expected = markdownToHtml(
      local.replace("Last paragraph here.", "Last paragraph, edited on the site."),
    );
    expect(equivalentHtml(merged as string, expected), `${merged}\n!=\n${expected}`).toBe(true);
  });
});

describe("a merge clean line by line that renders to what neither side wrote", () => {
  it("is one conflict over the whole of what differs, each side whole in it", () => {
    // Each side adds a literal asterisk on its own line; merged, the two pair into emphasis.
    const base = "Stars are a b c\nand d e f.\n";
    const local = "Stars are *a b c\nand d e f.\n";
    const remote = "Stars are a b c\nand d e f*.\n";
    expect(mergeBody(base, local, remote)).toEqual({
      kind: "clean",
      text: "Stars are *a b c\nand d e f*.\n",
    });
    const result = mergeMarkdown(base, local, remote);
    expect(result).toEqual({
      kind: "conflict",
      text: `<<<<<<< local\n${local}=======\n${remote}>>>>>>> site\n`,
      conflicts: 1,
    });
  });
});

describe("a block the author only respelled takes the site's edit of it", () => {
  it.each([
    [
      "emphasis respelled in a heading the site edited",
      "# Intro *here*\n\n## Then *there*\n",
      "Intro, mine _here_\n===\n\n## Then _there_\n",
      "# Intro *here*\n\n## Then *there, theirs*\n",
      "Intro, mine _here_\n===\n\n## Then *there, theirs*\n",
    ],
    [
      "bullets respelled in a list the site edited",
      "First *word* here.\n\n- a\n- b\n",
      "First _words_ here.\n\n* a\n* b\n",
      "First *word* here.\n\n- a\n- bee\n",
      "First _words_ here.\n\n- a\n- bee\n",
    ],
  ])("%s", (_name, base, local, remote, merged) => {
    // Line by line the two sides touch: the respelled line is the one the site edited.
    expect(mergeBody(base, local, remote).kind).toBe("conflict");
    expect(mergeMarkdown(base, local, remote)).toEqual({ kind: "clean", text: merged });
  });
});

describe("a merge that interleaves inline markup from both sides is a conflict", () => {
  it("starts from a line both sides can edit", () => {
    expect(htmlToBody(LINE).body).toBe(LINE_MD);
  });

  it.each(overlapping)("%s", (_name, local, site, base = LINE) => {
    // The word merge alone takes both sides: what it renders to is neither side's markup.
    expect(mergeBody(htmlToBody(base).body, local, htmlToBody(site).body).kind).toBe("clean");
    expect(merge(local, site, base)).toBeUndefined();
    // As pull shows it: markers around the line, each side whole between them.
    const result = mergeMarkdown(htmlToBody(base).body, `${local}\n`, `${htmlToBody(site).body}\n`);
    expect(result.kind).toBe("conflict");
    if (result.kind !== "conflict") return;
    expect(result.text).toContain(`<<<<<<< local\n${local}\n=======\n${htmlToBody(site).body}\n>>>>>>> site`);
  });

  it.each(composing)("but %s merges", (_name, local, site, merged, base = LINE) => {
    const result = merge(local, site, base);
    expect(result, "a clean merge").toBeTypeOf("string");
    expect(equivalentHtml(result as string, merged), result).toBe(true);
  });
});
