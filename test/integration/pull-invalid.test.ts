import { afterEach, describe, expect, it } from "vitest";
import { useEmulators } from "../helpers/emulator.js";
import { addChapter, edit, type PulledSite, pulledSite, stamps, webSite } from "../helpers/site.js";
import { readSnapshot } from "../helpers/snapshot.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const TAGS = "courses/web/02-tags.md";
const TAGS_COPY = "courses/web/02-tags.remote.md";

/** `webSite()` (Web (1): Intro (1), Tags (2)) with Forms (3) in Web, and Go (2): Tour (4). */
function setup(): Promise<PulledSite> {
  const web = webSite();
  return pulledSite(start, {
    ...web,
    courses: [...(web.courses ?? []), { title: "Go" }],
    chapters: [
      ...(web.chapters ?? []),
      { course_id: 1, title: "Forms", ordinal: 3, content: "<p>forms</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
    ],
  });
}

/** Make Tags invalid: an ordinal that is not a number (line 4 of the file). */
async function breakTags(s: PulledSite): Promise<string> {
  await s.replace(TAGS, "ordinal: 2", "ordinal: two");
  return s.read(TAGS);
}

/** The snapshot's entry of a record. */
async function entry(s: PulledSite, kind: "courses" | "chapters", id: number): Promise<unknown> {
  return (await readSnapshot(s.root))[kind][id];
}

describe("pull with an invalid local file pulls the rest", () => {
  it("pulls every other record, leaves the invalid file as it is, names it with its line and exits 1", async () => {
    const s = await setup();
    const broken = await breakTags(s);
    edit(s.emulator, "chapters", 1, { title: "Welcome" });
    edit(s.emulator, "chapters", 4, { content: "<p>tour, edited</p>" });
    s.emulator.state.remove("chapters", 3);
    const tagsEntry = await entry(s, "chapters", 2);

    const result = await s.cli("pull");
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain("1 invalid file; they were left as they are, the rest was pulled:");
    expect(result.stderr).toContain(`${TAGS}:4: ordinal must be a whole number`);
    expect(result.stderr).toContain("Fix the files above and run the command again.");
    expect(result.stdout).toMatch(
      /~ updated +courses\/web\/01-welcome\.md .*from courses\/web\/01-intro\.md/,
    );
    expect(result.stdout).toMatch(/- deleted +courses\/web\/03-forms\.md/);
    expect(result.stdout).not.toContain("already up to date");

    const tree = await s.tree();
    expect(tree[TAGS]).toBe(broken);
    expect(tree[TAGS_COPY]).toBeUndefined();
    expect(tree["courses/web/01-welcome.md"]).toContain("title: Welcome");
    expect(tree["courses/web/01-intro.md"]).toBeUndefined();
    expect(tree["courses/web/03-forms.md"]).toBeUndefined();
    expect(tree["courses/go/01-tour.md"]).toContain("<p>tour, edited</p>");
    // The site did not change Tags: its entry is as the last sync left it.
    expect(await entry(s, "chapters", 2)).toEqual(tagsEntry);

    const status = await s.cli("status");
    expect(status.stdout).toMatch(
      /invalid +courses\/web\/02-tags\.md {2}\(line 4: ordinal must be a whole number/,
    );
    expect(status.stdout).not.toMatch(/(deleted|new|modified) +courses\/web\/02-tags\.md/);
    // Nothing else is pending: a second pull writes nothing and still reports the file.
    const again = await s.cli("pull", "--json");
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ files_written: 0, changes: [] });
    expect(s.writes()).toEqual([]);
  });

  it("writes the site's version of the invalid file's record beside it and keeps its snapshot entry; after the fix, pull merges three ways", async () => {
    const s = await setup();
    const broken = await breakTags(s);
    edit(s.emulator, "chapters", 2, { title: "HTML tags" });
    const tagsEntry = await entry(s, "chapters", 2);

    const result = await s.cli("pull");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /\? skipped +courses\/web\/02-tags\.md {2}\(chapter 2; \[title\]; changed on the site; not pulled, as its file is invalid; site's version in courses\/web\/02-tags\.remote\.md\)/,
    );
    expect(await s.read(TAGS)).toBe(broken);
    const copy = await s.read(TAGS_COPY);
    expect(copy).toContain("id: 2\ntitle: HTML tags\nordinal: 2\n");
    expect(copy).toContain("<p>tags</p>");
    expect(await entry(s, "chapters", 2)).toEqual(tagsEntry);

    // Fixed, with a body edited here: the site's title and the local body are both kept.
    await s.write(
      TAGS,
      broken.replace("ordinal: two", "ordinal: 2").replace("<p>tags</p>", "<p>my tags</p>"),
    );
    const fixed = await s.cli("pull");
    expect(fixed.code, fixed.stderr).toBe(0);
    const tree = await s.tree();
    expect(tree[TAGS]).toBeUndefined();
    expect(tree[TAGS_COPY]).toBeUndefined();
    expect(tree["courses/web/02-html-tags.md"]).toMatch(/title: HTML tags\n[\s\S]*<p>my tags<\/p>/);
    expect(await entry(s, "chapters", 2)).toMatchObject({
      path: "courses/web/02-html-tags.md",
      record: { title: "HTML tags" },
    });
    const push = await s.cli("push", "--yes");
    expect(push.code, push.stderr).toBe(0);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/2"]);
  });

  it("keeps an invalid file whose record the site deleted, and says so", async () => {
    const s = await setup();
    const original = await s.read(TAGS);
    const broken = await breakTags(s);
    s.emulator.state.remove("chapters", 2);

    const result = await s.cli("pull");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /\? skipped +courses\/web\/02-tags\.md {2}\(chapter 2; deleted on the site; kept here, as its file is invalid\)/,
    );
    expect(await s.read(TAGS)).toBe(broken);
    expect(await entry(s, "chapters", 2)).toMatchObject({ path: TAGS });

    // Put back as it was synced: the site's delete applies now (the file held no edit).
    await s.write(TAGS, original);
    const fixed = await s.cli("pull");
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(/- deleted +courses\/web\/02-tags\.md/);
    expect((await s.tree())[TAGS]).toBeUndefined();
    expect(await entry(s, "chapters", 2)).toBeUndefined();
  });

  it("never writes over an invalid new file: a record the site makes under its name gets another", async () => {
    const s = await setup();
    const junk = "---\ntitle: [unclosed\n---\n<p>draft</p>\n";
    await s.write("courses/go/02-generics.md", junk);
    const id = addChapter(s.emulator, { course_id: 2, title: "Generics", ordinal: 2, content: "<p>g</p>" });

    const result = await s.cli("pull");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/courses\/go\/02-generics\.md:2: YAML does not parse/);
    const tree = await s.tree();
    expect(tree["courses/go/02-generics.md"]).toBe(junk);
    expect(tree[`courses/go/02-generics-${id}.md`]).toContain("<p>g</p>");
  });

  it("an invalid course.yaml holds its course and chapters; other courses are pulled; after the fix the rest comes", async () => {
    const s = await setup();
    const course = "courses/web/course.yaml";
    const original = await s.read(course);
    const broken = original.replace("title: Web", "title: [Web");
    await s.write(course, broken);
    edit(s.emulator, "courses", 1, { title: "Web dev", slug: "web-dev" });
    edit(s.emulator, "chapters", 1, { content: "<p>intro, edited</p>" });
    edit(s.emulator, "chapters", 4, { content: "<p>tour, edited</p>" });
    // Moved by the site into the held course, and one made there: neither enters its folder yet.
    edit(s.emulator, "chapters", 4, { course_id: 1, ordinal: 4 });
    const made = addChapter(s.emulator, { course_id: 1, title: "Canvas", ordinal: 5, content: "<p>c</p>" });
    const before = await s.tree();

    const result = await s.cli("pull");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/courses\/web\/course\.yaml:\d+: YAML does not parse/);
    const tree = await s.tree();
    const web = (files: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(files).filter(([f]) => f.startsWith("courses/web/") && !f.includes(".remote.")),
      );
    expect(web(tree)).toEqual(web(before));
    expect(tree["courses/web/course.remote.yaml"]).toContain("title: Web dev");
    expect(tree["courses/web/01-intro.remote.md"]).toContain("<p>intro, edited</p>");
    // Tour stays in Go's folder as it was; the site's version waits beside it.
    expect(tree["courses/go/01-tour.md"]).toBe(before["courses/go/01-tour.md"]);
    expect(tree["courses/go/01-tour.remote.md"]).toContain("<p>tour, edited</p>");
    expect(Object.keys(tree).filter((f) => f.includes("canvas"))).toEqual([]);
    expect(result.stdout).toContain(
      `? skipped  courses/web  (chapter ${made}; not pulled, as courses/web/course.yaml is invalid)`,
    );
    expect(result.stdout).toContain(
      "? skipped  courses/web  (course 1; [title]; changed on the site; not pulled, as its file is invalid; site's version in courses/web/course.remote.yaml)",
    );

    await s.write(course, original);
    const fixed = await s.cli("pull");
    expect(fixed.code, fixed.stderr).toBe(0);
    const after = await s.tree();
    expect(
      Object.keys(after)
        .filter((f) => f.startsWith("courses/"))
        .sort(),
    ).toEqual([
      "courses/go/course.yaml",
      "courses/web-dev/01-intro.md",
      "courses/web-dev/02-tags.md",
      "courses/web-dev/03-forms.md",
      "courses/web-dev/04-tour.md",
      "courses/web-dev/05-canvas.md",
      "courses/web-dev/course.yaml",
    ]);
    expect(after["courses/web-dev/01-intro.md"]).toContain("<p>intro, edited</p>");
    expect(after["courses/web-dev/04-tour.md"]).toContain("<p>tour, edited</p>");
  });

  it("a course the site renames keeps its folder while an invalid chapter is in it; its other chapters are pulled", async () => {
    const s = await setup();
    const broken = await breakTags(s);
    edit(s.emulator, "courses", 1, { title: "Web dev", slug: "web-dev" });
    edit(s.emulator, "chapters", 1, { content: "<p>intro, edited</p>" });

    const result = await s.cli("pull");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /\? skipped +courses\/web {2}\(course 1; \[title\]; changed on the site; not pulled, as its folder holds courses\/web\/02-tags\.md, which is invalid; site's version in courses\/web\/course\.remote\.yaml\)/,
    );
    const tree = await s.tree();
    expect(tree[TAGS]).toBe(broken);
    expect(tree["courses/web/01-intro.md"]).toContain("<p>intro, edited</p>");
    expect(tree["courses/web/course.yaml"]).toContain("title: Web\n");
    expect(tree["courses/web/course.remote.yaml"]).toContain("title: Web dev\n");
    expect(Object.keys(tree).some((f) => f.startsWith("courses/web-dev"))).toBe(false);

    await s.replace(TAGS, "ordinal: two", "ordinal: 2");
    expect((await s.cli("pull")).code).toBe(0);
    const after = await s.tree();
    expect(after["courses/web-dev/course.yaml"]).toContain("title: Web dev\n");
    expect(after["courses/web-dev/02-tags.md"]).toBe(await s.read("courses/web-dev/02-tags.md"));
    expect(Object.keys(after).some((f) => f.startsWith("courses/web/"))).toBe(false);
  });

  it("--json lists each invalid file's problem and the records held back", async () => {
    const s = await setup();
    await breakTags(s);
    edit(s.emulator, "chapters", 2, { title: "HTML tags" });
    edit(s.emulator, "chapters", 4, { title: "Tour of Go" });

    const result = await s.cli("pull", "--json");
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary.invalid).toEqual([
      {
        path: TAGS,
        line: 4,
        message: 'ordinal must be a whole number, not "two"',
      },
    ]);
    expect(summary.changes).toEqual([
      {
        kind: "chapter",
        id: 4,
        path: "courses/go/01-tour-of-go.md",
        outcome: "updated",
        fields: ["title"],
        from: "courses/go/01-tour.md",
      },
      {
        kind: "chapter",
        id: 2,
        path: TAGS,
        outcome: "skipped",
        fields: ["title"],
        reason: "changed on the site; not pulled, as its file is invalid",
        copy: TAGS_COPY,
      },
    ]);
    expect(summary).toMatchObject({ counts: { updated: 1, skipped: 1 }, conflicts: [], files_written: 2 });
  });

  it("--dry-run shows the same and writes nothing", async () => {
    const s = await setup();
    await breakTags(s);
    edit(s.emulator, "chapters", 2, { title: "HTML tags" });
    edit(s.emulator, "chapters", 4, { title: "Tour of Go" });
    const before = await stamps(s.root);

    const result = await s.cli("pull", "--dry-run");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("1 invalid file; they would be left as they are, the rest pulled:");
    expect(result.stderr).toContain(`${TAGS}:4: ordinal must be a whole number`);
    expect(result.stdout).toMatch(
      /\? skipped +courses\/web\/02-tags\.md .*site's version in courses\/web\/02-tags\.remote\.md/,
    );
    expect(result.stdout).toMatch(/~ updated +courses\/go\/01-tour-of-go\.md/);
    expect(result.stdout).toMatch(/would write 2 files/);
    expect(await stamps(s.root)).toEqual(before);
  });

  it("a conflict elsewhere makes the exit 3, and the invalid file is still reported", async () => {
    const s = await setup();
    await breakTags(s);
    await s.replace("courses/go/01-tour.md", "title: Tour", "title: My tour");
    edit(s.emulator, "chapters", 4, { title: "Site tour" });

    const result = await s.cli("pull");
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/! conflict +courses\/go\/01-tour\.md/);
    expect(result.stderr).toContain(`${TAGS}:4: ordinal must be a whole number`);
  });
});
