import { rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { addChapter, afterRequest, edit, pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A pulled tree of "Web" (course 1: Intro 1, Tags 2) and "Go" (course 2: Tour 3), HTML bodies. */
function setup() {
  return pulledSite(start, {
    body: "html",
    options: { now: manualClock().now },
    courses: [{ title: "Web" }, { title: "Go" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
    ],
  });
}

const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";

describe("another writer during a push", () => {
  it("an edit made on the site while the push is under way is found by the re-read just before that record's write: a conflict, theirs kept", async () => {
    const s = await setup();
    await s.write("courses/web/03-new.md", "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n");
    await s.replace(TAGS, "title: Tags", "title: Tags, mine");
    // Another user retitles Tags while the push creates the new chapter, after the moment a
    // re-read of every record at the start would have found Tags as the last sync left it.
    afterRequest(s.emulator, "POST /api/v1/chapters", () =>
      edit(s.emulator, "chapters", 2, { title: "Tags, theirs" }),
    );

    const result = await s.cli("push", "--yes");
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toContain(
      `! conflict ${TAGS}  (chapter 2; [title]; changed here and on the site since the last sync: title)`,
    );
    expect(result.stdout).toContain(
      "Pushed what is not in conflict (1 created); held, not sent: 1 record in conflict with the site.",
    );
    expect(result.stdout).toContain(`  held ${TAGS} (chapter 2): run \`coursesync pull\``);
    expect(s.writes()).toEqual(["POST /api/v1/chapters"]);
    expect(s.emulator.state.get("chapters", 2)?.title).toBe("Tags, theirs");
    expect(await s.read(TAGS)).toContain("title: Tags, mine\n");
    // The plan was checked before the create (Tags as the last sync left it), the chapters
    // were listed for an equal record made by an earlier run (none), and the second GET, just
    // before the write it guards, found their edit.
    const listing = (line: string) => line === "GET /api/v1/chapters 200";
    expect(s.log().filter((line) => !listing(line))).toEqual([
      "POST /api/login 200",
      "GET /api/v1/chapters/2 200",
      "POST /api/v1/chapters 201",
      "GET /api/v1/chapters/2 200",
    ]);
    expect(s.log().findIndex(listing)).toBeLessThan(s.log().indexOf("POST /api/v1/chapters 201"));
  });

  it("an edit landing between the re-read and the PATCH is seen in the site's answer: kept, brought into the file, and reported (exit 3)", async () => {
    const s = await setup();
    await s.replace(INTRO, "title: Intro", "title: Intro, mine");
    // After the re-read just before the write (the second: the first checked the plan).
    afterRequest(
      s.emulator,
      "GET /api/v1/chapters/1",
      () => edit(s.emulator, "chapters", 1, { content: "<p>theirs</p>" }),
      2,
    );

    const result = await s.cli("push", "--yes");
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toContain(
      `~ updated  ${INTRO}  (chapter 1; [title]; changed on the site while this push wrote it: content (kept, and brought into the file))`,
    );
    expect(result.stderr).toContain(
      `warning: chapter 1 (${INTRO}) was changed on the site while this push wrote it (content): that change is kept and now in the file.`,
    );
    expect(result.stderr).toContain("Run `coursesync pull` and check the chapter on the site.");
    expect(s.emulator.state.get("chapters", 1)).toMatchObject({
      title: "Intro, mine",
      content: "<p>theirs</p>",
    });
    expect(await s.read(INTRO)).toBe(
      "---\nid: 1\ntitle: Intro, mine\nordinal: 1\nformat: html\n---\n<p>theirs</p>\n",
    );
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
    expect((await s.cli("pull")).stdout).not.toMatch(/updated|conflict/);
  });

  it("--json lists the record another writer changed during the write under raced", async () => {
    const s = await setup();
    await s.replace(INTRO, "title: Intro", "title: Intro, mine");
    afterRequest(
      s.emulator,
      "GET /api/v1/chapters/1",
      () => edit(s.emulator, "chapters", 1, { ordinal: 7 }),
      2,
    );
    const result = await s.cli("push", "--yes", "--json");
    expect(result.code).toBe(3);
    const doc = JSON.parse(result.stdout) as { raced: unknown[] };
    expect(doc.raced).toEqual([
      expect.objectContaining({
        kind: "chapter",
        id: 1,
        path: INTRO,
        outcome: "updated",
        raced: ["ordinal"],
      }),
    ]);
  });

  it("reads each record for the checked plan, then again just before its own write: no list", async () => {
    const s = await setup();
    await s.replace("coursesync.yaml", "concurrency: 4", "concurrency: 1");
    await s.replace("courses/go/course.yaml", "title: Go", "title: Go!");
    await s.replace(INTRO, "title: Intro", "title: Intro!");
    await rm(s.file(TAGS));

    const result = await s.cli("push", "--yes");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(s.log()).toEqual([
      "POST /api/login 200",
      "GET /api/v1/courses/2 200",
      "GET /api/v1/chapters/1 200",
      "GET /api/v1/chapters/2 200",
      "GET /api/v1/courses/2 200",
      "PATCH /api/v1/courses/2 200",
      "GET /api/v1/chapters/1 200",
      "PATCH /api/v1/chapters/1 200",
      "GET /api/v1/chapters/2 200",
      "DELETE /api/v1/chapters/2 204",
    ]);
  });

  it("deleting every course still deletes the last one: the chapters listed again before it are none", async () => {
    const s = await setup();
    await rm(s.file("courses"), { recursive: true });
    const result = await s.cli("push", "--yes", "--max-delete", "5");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(s.emulator.state.dump()).toMatchObject({ courses: [], chapters: [] });
  });

  it("a chapter added on the site while the push deletes its course keeps the course from being deleted", async () => {
    const s = await setup();
    await rm(s.file("courses/go"), { recursive: true });
    let added = 0;
    afterRequest(s.emulator, "DELETE /api/v1/chapters/3", () => {
      added = addChapter(s.emulator, { course_id: 2, title: "Added there", content: "" });
    });

    const result = await s.cli("push", "--yes", "--max-delete", "2");
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toContain("! conflict courses/go  (course 2; deleted here, changed on the site)");
    expect(s.writes()).toEqual(["DELETE /api/v1/chapters/3"]);
    expect(s.emulator.state.get("courses", 2)).toBeDefined();
    expect(s.emulator.state.get("chapters", added)?.title).toBe("Added there");
  });
});
