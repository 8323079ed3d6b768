import { afterEach, describe, expect, it } from "vitest";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { pulledSite, seedSite } from "../helpers/site.js";
import { addSite, secondSite, writesTo } from "../helpers/sites.js";
import { snapshotIn } from "../helpers/snapshot.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(() => cleanupTestdirs());

const COURSES = [
  { title: "Web", status: 0, excerpt: "All of it", free: true },
  { title: "Go", status: 0 },
];

/**
 * Production pulled into a Markdown tree, and another site with no snapshot here holding most
 * of the same records (seeded apart: other ids, other bytes of HTML for the same Markdown):
 * Intro and Tour equal, Tags with other content, Maps only on the site, Generics only in the tree.
 */
async function treeAndOtherSite() {
  const s = await pulledSite(start, {
    options: { now: manualClock().now },
    courses: COURSES,
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>Hello <em>there</em></p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
      { course_id: 2, title: "Generics", ordinal: 2, content: "<p>generics</p>" },
    ],
  });
  const other = await secondSite(start, s.root, "other");
  const [go, web] = seedSite(other, { courses: [COURSES[1]!, COURSES[0]!] }).courses as [number, number];
  seedSite(other, {
    chapters: [
      { course_id: go, title: "Tour", ordinal: 1, content: "<p>tour</p>\n" },
      { course_id: web, title: "Tags", ordinal: 2, content: "<p>tags, as the site has them</p>" },
      { course_id: web, title: "Intro", ordinal: 1, content: "<p>Hello <em>there</em></p>\n" },
      { course_id: go, title: "Maps", ordinal: 3, content: "<p>maps</p>" },
    ],
  });
  other.state.clearRequests();
  return { s, other };
}

describe("pull --site from a site that holds records and has no snapshot: mapping by content", () => {
  it("maps what is equal, lists what differs with both sides, pulls what only the site has, and never duplicates or deletes", async () => {
    const { s, other } = await treeAndOtherSite();
    const before = await s.tree();
    const refused = await s.cli("push", "--site", "other", "--yes");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("coursesync pull --site other");
    expect(writesTo(other)).toEqual([]);

    const pulled = await s.cli("pull", "--site", "other");
    expect(pulled.code, pulled.stderr).toBe(3);
    expect(writesTo(other)).toEqual([]);
    expect(writesTo(s.emulator)).toEqual([]);
    expect(pulled.stdout).toMatch(/conflict\s+courses\/web\/02-tags.md/);
    expect(pulled.stderr).toContain('courses/go/02-generics.md: not on "other"');
    const after = await s.tree();
    // The equal files are untouched; the differing one is kept, the site's version beside it.
    for (const file of Object.keys(before).filter((f) => !f.startsWith(".coursesync/")))
      expect(after[file], file).toBe(before[file]);
    expect(after["courses/web/02-tags.remote.md"]).toContain("tags, as the site has them");
    // What only the site has comes in as a file without an id.
    expect(after["courses/go/03-maps.md"]).toBe("---\ntitle: Maps\nordinal: 3\n---\nmaps\n");
    const snapshot = snapshotIn(after, "other") as {
      ids: { courses: Record<string, number>; chapters: Record<string, number> };
      chapters: Record<string, { conflict?: true }>;
    };
    const site = other.state.dump();
    const idOn = (title: string) => site.chapters.find((c) => c.title === title)!.id;
    expect(snapshot.ids.courses).toEqual({
      "1": site.courses.find((c) => c.title === "Web")!.id,
      "2": site.courses.find((c) => c.title === "Go")!.id,
    });
    expect(snapshot.ids.chapters).toEqual({ "1": idOn("Intro"), "2": idOn("Tags"), "3": idOn("Tour") });
    expect(snapshot.chapters["2"]?.conflict).toBe(true);
    expect(snapshot.chapters["1"]?.conflict).toBeUndefined();

    const again = await s.cli("pull", "--site", "other");
    expect(again.code).toBe(3);
    expect(await s.tree()).toEqual(after);

    const pushed = await s.cli("push", "--site", "other", "--yes");
    expect(pushed.code, pushed.stderr).toBe(3);
    expect(writesTo(other)).toEqual(["POST /api/v1/chapters"]);
    expect(pushed.stderr).toContain("chapter courses/web/02-tags.md is kept on the site");
    expect(other.state.get("chapters", idOn("Tags"))?.content).toBe("<p>tags, as the site has them</p>");
    const after2 = other.state.dump();
    expect(after2.chapters.map((c) => c.title).sort()).toEqual(["Generics", "Intro", "Maps", "Tags", "Tour"]);
    expect(after2.courses.map((c) => c.title).sort()).toEqual(["Go", "Web"]);

    const theirs = await s.cli("pull", "--site", "other", "--theirs");
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(await s.read("courses/web/02-tags.md")).toContain("tags, as the site has them");
    const clean = await s.cli("push", "--site", "other", "--yes");
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toContain("Nothing to push");
    expect(writesTo(other)).toEqual(["POST /api/v1/chapters"]);
    expect(writesTo(s.emulator)).toEqual([]);
  });

  it("stops on titles that do not pair one to one, listing both sides, writing nothing", async () => {
    const { s, other } = await treeAndOtherSite();
    other.state.createCourse({ course: { title: "Web" } });
    const before = await s.tree();
    const pulled = await s.cli("pull", "--site", "other");
    expect(pulled.code).toBe(3);
    expect(pulled.stderr).toMatch(/course title "Web": here courses\/web; on "other" course \d+, course \d+/);
    expect(await s.tree()).toEqual(before);
    expect((await s.cli("push", "--site", "other", "--yes")).code).toBe(2);
    expect(writesTo(other)).toEqual([]);
  });

  it("an empty site is not mapped (to nothing) but restored into: pull says so and writes nothing", async () => {
    const { s } = await treeAndOtherSite();
    const empty = await start({ seedDir: null });
    await addSite(s.root, "empty", empty.baseUrl);
    const before = await s.tree();
    const pulled = await s.cli("pull", "--site", "empty");
    expect(pulled.code).toBe(2);
    expect(pulled.stderr).toContain("coursesync push --site empty");
    expect(await s.tree()).toEqual(before);
  });
});
