import { afterEach, describe, expect, it } from "vitest";
import { equivalentHtml, htmlToBody, markdownToHtml } from "../../src/tree/markdown/index.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { BASE, BASE_MD, LINE, overlapping, SITE, spellings } from "../helpers/merge-cases.js";
import { edit, pulledSite, recordPatches } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const FILE = "courses/web/01-intro.md";

async function site(content: string) {
  const s = await pulledSite(start, {
    body: "markdown",
    options: { now: manualClock().now },
    courses: [{ title: "Web" }],
    chapters: [{ course_id: 1, title: "Intro", ordinal: 1, content }],
  });
  expect(await s.read(FILE)).toContain(htmlToBody(content).body);
  return s;
}

describe("an edit spelled by hand merges with a site edit elsewhere in the chapter", () => {
  it.each(spellings)("%s", async (_name, canonical, written) => {
    const s = await site(BASE);
    await s.replace(FILE, canonical, written);
    edit(s.emulator, "chapters", 1, { content: SITE });
    const pull = await s.cli("pull");
    expect(pull.code, pull.stdout + pull.stderr).toBe(0);
    expect(pull.stdout).not.toMatch(/conflict/);
    // The file holds both edits, the author's in the author's spelling.
    const text = await s.read(FILE);
    expect(text).toContain(written);
    expect(text).toContain("Last paragraph, edited on the site.");

    const patches = recordPatches(s.emulator);
    const push = await s.cli("push", "--yes");
    expect(push.code, push.stdout + push.stderr).toBe(0);
    const sent = (patches[0]!.body as { chapter: { content: string } }).chapter.content;
    const local = BASE_MD.replace(canonical, written);
    const expected = markdownToHtml(
      local.replace("Last paragraph here.", "Last paragraph, edited on the site."),
    );
    expect(equivalentHtml(sent, expected), sent).toBe(true);
    expect(await s.read(FILE)).toBe(text);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });
});

describe("push merges an edit spelled by hand the same way", () => {
  it.each(spellings.slice(0, 2))("%s", async (_name, canonical, written) => {
    const s = await site(BASE);
    await s.replace(FILE, canonical, written);
    edit(s.emulator, "chapters", 1, { content: SITE });
    const patches = recordPatches(s.emulator);
    const push = await s.cli("push", "--yes");
    expect(push.code, push.stdout + push.stderr).toBe(0);
    const sent = (patches[0]!.body as { chapter: { content: string } }).chapter.content;
    expect(sent).toContain("Last paragraph, edited on the site.");
    const text = await s.read(FILE);
    expect(text).toContain(written);
    expect(text).toContain("Last paragraph, edited on the site.");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });
});

describe("inline markup changed on both sides in one stretch is a conflict", () => {
  it.each(overlapping)("%s", async (_name, local, remote, base = LINE) => {
    const s = await site(base);
    await s.replace(FILE, htmlToBody(base).body, local);
    edit(s.emulator, "chapters", 1, { content: remote });
    const pull = await s.cli("pull");
    expect(pull.code, pull.stdout + pull.stderr).toBe(3);
    expect(pull.stdout).toContain("both sides are in the file between conflict markers");
    expect(await s.read(FILE)).toContain(
      `<<<<<<< local\n${local}\n=======\n${htmlToBody(remote).body}\n>>>>>>> site\n`,
    );
    // Push refuses the markers; nothing was sent.
    expect((await s.cli("push", "--yes")).code).toBe(1);
    expect(s.writes()).toEqual([]);
  });
});
