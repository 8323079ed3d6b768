import { rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { addChapter, edit, ok, type PulledSite, pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/**
 * Three courses: "Intro Python" (1) with Basics (1) and Draft notes (2), "Intro Go" (2) with
 * Tour (3), "Advanced" (3) with Macros (4) and Draft ideas (5). HTML bodies.
 */
function site(start: Parameters<typeof pulledSite>[0]): Promise<PulledSite> {
  return pulledSite(start, {
    body: "html",
    options: { now: manualClock().now, admin: true },
    courses: [{ title: "Intro Python" }, { title: "Intro Go" }, { title: "Advanced" }],
    chapters: [
      { course_id: 1, title: "Basics", ordinal: 1, content: "<p>basics</p>" },
      { course_id: 1, title: "Draft notes", ordinal: 2, content: "<p>notes</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
      { course_id: 3, title: "Macros", ordinal: 1, content: "<p>macros</p>" },
      { course_id: 3, title: "Draft ideas", ordinal: 2, content: "<p>ideas</p>" },
    ],
  });
}

const BASICS = "courses/intro-python/01-basics.md";
const NOTES = "courses/intro-python/02-draft-notes.md";
const TOUR = "courses/intro-go/01-tour.md";
const MACROS = "courses/advanced/01-macros.md";
const IDEAS = "courses/advanced/02-draft-ideas.md";

/** The files of the tree that differ between two readings (added, changed or gone), sorted. */
function changed(before: Record<string, string>, after: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name] && !name.startsWith(".coursesync/")).sort();
}

describe("push --only / --ignore", () => {
  it("sends only what the --only globs select: edits, creates and deletes outside are not sent", async () => {
    const s = await site(start);
    await s.replace(BASICS, "<p>basics</p>", "<p>basics, edited</p>");
    await s.replace(MACROS, "<p>macros</p>", "<p>macros, edited</p>");
    await rm(s.file(TOUR));
    await rm(s.file(IDEAS));
    await s.write("courses/intro-python/03-loops.md", "---\ntitle: Loops\nordinal: 3\n---\n<p>loops</p>\n");
    await s.write("courses/advanced/03-traits.md", "---\ntitle: Traits\nordinal: 3\n---\n<p>traits</p>\n");

    const result = await s.cli("push", "--yes", "--only", "courses/intro-*/**");
    expect(result.code, result.stderr).toBe(0);
    expect(s.writes().sort()).toEqual([
      "DELETE /api/v1/chapters/3",
      "PATCH /api/v1/chapters/1",
      "POST /api/v1/chapters",
    ]);
    expect(s.emulator.state.get("chapters", 4)?.content).toBe("<p>macros</p>");
    expect(s.emulator.state.get("chapters", 5)).toBeDefined();

    // What was left out is still pending, and a push without the flags sends it.
    const status = await s.cli("status", "-s");
    expect(status.stdout.split("\n").filter(Boolean).sort()).toEqual([
      " D courses/advanced/02-draft-ideas.md",
      " M courses/advanced/01-macros.md",
      "A  courses/advanced/03-traits.md",
    ]);
    s.emulator.state.clearRequests();
    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(s.writes().sort()).toEqual([
      "DELETE /api/v1/chapters/5",
      "PATCH /api/v1/chapters/4",
      "POST /api/v1/chapters",
    ]);
  });

  it("leaves alone what an --ignore glob matches, with --only and paths too", async () => {
    const s = await site(start);
    await s.replace(BASICS, "<p>basics</p>", "<p>basics, edited</p>");
    await s.replace(NOTES, "<p>notes</p>", "<p>notes, edited</p>");
    await s.replace(MACROS, "<p>macros</p>", "<p>macros, edited</p>");
    await rm(s.file(IDEAS));

    const dry = await s.cli("push", "--dry-run", "--json", "--ignore", "**/*draft*.md");
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as { plan: { type: string; path: string }[] };
    expect(plan.plan.map((op) => `${op.type} ${op.path}`).sort()).toEqual([
      `update ${MACROS}`,
      `update ${BASICS}`,
    ]);
    expect(s.writes()).toEqual([]);
    // Each flag repeats: what any --ignore glob matches is left out.
    const twice = await s.cli(
      "push",
      "--dry-run",
      "--json",
      "--ignore",
      "**/*draft*.md",
      "--ignore",
      "courses/advanced",
    );
    expect((JSON.parse(twice.stdout) as typeof plan).plan.map((op) => op.path)).toEqual([BASICS]);

    const both = await s.cli("push", "--yes", "--ignore", "**/*draft*.md", "--only", "courses/advanced");
    expect(both.code, both.stderr).toBe(0);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/4"]);
    s.emulator.state.clearRequests();

    const paths = await s.cli("push", "--yes", "--ignore", "**/*draft*.md", "courses/intro-python");
    expect(paths.code, paths.stderr).toBe(0);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/1"]);
    expect(s.emulator.state.get("chapters", 2)?.content).toBe("<p>notes</p>");
    expect(s.emulator.state.get("chapters", 5)).toBeDefined();
  });

  it("an invalid file outside the selection does not stop the push", async () => {
    const s = await site(start);
    await s.replace(BASICS, "<p>basics</p>", "<p>basics, edited</p>");
    await s.replace(IDEAS, "title: Draft ideas", "title: [unclosed");
    expect((await s.cli("push", "--yes")).code).toBe(1);
    expect(s.writes()).toEqual([]);
    const result = await s.cli("push", "--yes", "--ignore", "**/*draft*");
    expect(result.code, result.stderr).toBe(0);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/1"]);
  });

  it("refuses a glob that is not a tree path, and --only with --watch", async () => {
    const s = await site(start);
    const outside = await s.cli("push", "--dry-run", "--only", "../other/**");
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('--only "../other/**": not a glob of tree paths');
    const watch = await s.cli("push", "--watch", "--only", "courses/intro-*/**");
    expect(watch.code).toBe(2);
    expect(watch.stderr).toContain("push --watch takes no paths and none of");
  });
});

describe("pull --only / --ignore", () => {
  it("writes only the files the --only globs select and keeps the last sync of the rest", async () => {
    const s = await site(start);
    const before = await s.tree();
    edit(s.emulator, "chapters", 1, { content: "<p>basics, theirs</p>" });
    edit(s.emulator, "chapters", 4, { content: "<p>macros, theirs</p>" });
    ok({ kind: "ok", value: s.emulator.state.remove("chapters", 5) });
    addChapter(s.emulator, { course_id: 2, title: "Channels", ordinal: 2, content: "<p>channels</p>" });
    addChapter(s.emulator, { course_id: 3, title: "Traits", ordinal: 3, content: "<p>traits</p>" });

    const result = await s.cli("pull", "--only", "courses/intro-*/**");
    expect(result.code, result.stderr).toBe(0);
    const after = await s.tree();
    expect(changed(before, after)).toEqual(["courses/intro-go/02-channels.md", BASICS]);
    expect(after[BASICS]).toContain("<p>basics, theirs</p>");
    // Nothing outside was taken in: the tree still matches the last sync there.
    expect((await s.cli("status", "--exit-code")).code).toBe(0);

    const rest = await s.cli("pull");
    expect(rest.code, rest.stderr).toBe(0);
    expect(changed(after, await s.tree())).toEqual([MACROS, IDEAS, "courses/advanced/03-traits.md"].sort());
  });

  it("leaves alone the files an --ignore glob matches, where they are now or would be", async () => {
    const s = await site(start);
    const before = await s.tree();
    edit(s.emulator, "chapters", 2, { content: "<p>notes, theirs</p>" });
    edit(s.emulator, "chapters", 3, { content: "<p>tour, theirs</p>" });
    // Renamed on the site to a draft: its file would move to 01-draft-macros.md, which is ignored.
    edit(s.emulator, "chapters", 4, { title: "Draft macros" });

    const dry = await s.cli("pull", "--dry-run", "--json", "--ignore", "**/*draft*.md");
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as { changes: { path: string }[]; files_written: number };
    expect(plan.changes.map((c) => c.path)).toEqual([TOUR]);
    expect(plan.files_written).toBe(1);

    const result = await s.cli("pull", "--ignore", "**/*draft*.md");
    expect(result.code, result.stderr).toBe(0);
    const after = await s.tree();
    expect(changed(before, after)).toEqual([TOUR]);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);

    const rest = await s.cli("pull");
    expect(rest.code, rest.stderr).toBe(0);
    expect(changed(after, await s.tree())).toEqual(
      [NOTES, MACROS, "courses/advanced/01-draft-macros.md"].sort(),
    );
  });

  it("says nothing of an invalid file outside the selection and writes nothing beside it", async () => {
    const s = await site(start);
    await s.replace(IDEAS, "title: Draft ideas", "title: [unclosed");
    edit(s.emulator, "chapters", 5, { content: "<p>ideas, theirs</p>" });
    edit(s.emulator, "chapters", 1, { content: "<p>basics, theirs</p>" });
    const before = await s.tree();
    const result = await s.cli("pull", "--ignore", "**/*draft*");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain(IDEAS);
    expect(changed(before, await s.tree())).toEqual([BASICS]);
    // Without the selection it is named (exit 1) and the site's version waits beside it.
    const all = await s.cli("pull");
    expect(all.code).toBe(1);
    expect(all.stderr).toContain(IDEAS);
  });
});
