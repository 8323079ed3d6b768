import { afterEach, describe, expect, it } from "vitest";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

function setup() {
  return pulledSite(start, {
    body: "html",
    options: { now: manualClock().now },
    courses: [{ title: "Web" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
    ],
  });
}

const TAGS = "courses/web/02-tags.md";

describe("a file that lost its id, or no longer parses, is that record, not a delete", () => {
  it("a chapter whose id line was removed: push names the id to put back and sends nothing", async () => {
    const s = await setup();
    await s.replace(TAGS, "id: 2\n", "");
    await s.replace(TAGS, "title: Tags", "title: Tags!");
    const push = await s.cli("push", "--yes");
    expect(push.code).toBe(1);
    expect(push.stderr).toContain(
      `${TAGS}:2: has no id, but the last sync wrote chapter 2 here: its id line was removed`,
    );
    expect(push.stderr).toContain('Put back "id: 2" under the first ---.');
    expect(s.log()).toEqual([]);
    const status = await s.cli("status");
    expect(status.stdout).toMatch(/invalid +courses\/web\/02-tags\.md/);
    expect(status.stdout).not.toMatch(/(deleted|new) +courses\/web\/02-tags\.md/);
    // Put back, it is the same record edited: one PATCH, no delete, no create.
    await s.replace(TAGS, "---\n", "---\nid: 2\n");
    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/2"]);
  });

  it("a course.yaml whose id line was removed stops the push the same way", async () => {
    const s = await setup();
    await s.replace("courses/web/course.yaml", "id: 1\n", "");
    const push = await s.cli("push", "--yes");
    expect(push.code).toBe(1);
    expect(push.stderr).toContain(
      "courses/web/course.yaml:1: has no id, but the last sync wrote course 1 here: its id line was removed",
    );
    expect(s.log()).toEqual([]);
  });

  it("a copy of a file without its id, under a new name, is a new record", async () => {
    const s = await setup();
    await s.write(
      "courses/web/03-copy.md",
      (await s.read(TAGS)).replace("id: 2\n", "").replace("ordinal: 2", "ordinal: 3"),
    );
    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(s.writes()).toEqual(["POST /api/v1/chapters"]);
  });

  it("a chapter whose front matter no longer parses is invalid in status, never deleted", async () => {
    const s = await setup();
    await s.replace(TAGS, "title: Tags", "title: [unclosed");
    const status = await s.cli("status");
    expect(status.stdout).toMatch(/invalid +courses\/web\/02-tags\.md/);
    expect(status.stdout).not.toMatch(/deleted/);
    const diff = await s.cli("diff");
    expect(diff.stdout).not.toMatch(/deleted/);
    const push = await s.cli("push", "--yes");
    expect(push.code).toBe(1);
    expect(s.log()).toEqual([]);
  });
});
