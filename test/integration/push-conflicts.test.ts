import { rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { ok, pulledSite, recordPatches, webAndGoSite } from "../helpers/site.js";
import { readSnapshot } from "../helpers/snapshot.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/**
 * A pulled tree of one course "Web" (id 1) with chapters Intro (1) and Tags (2), and "Go" (id 2)
 * with Tour (3); `patches` records the bodies of the PATCHes the site applies after the pull.
 */
async function setup(options: EmulatorOptions = {}) {
  const site = await pulledSite(start, webAndGoSite(options));
  return { ...site, patches: recordPatches(site.emulator) };
}

const WEB = "courses/web/course.yaml";
const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";

describe("push re-reads what it will change", () => {
  it("stops with exit 3 when the site changed the same field, sending nothing; --force makes the local side win", async () => {
    const s = await setup();
    await s.replace(INTRO, "title: Intro", "title: Local intro");
    ok(s.emulator.state.edit("chapters", 1, { title: "Remote intro" }));
    const before = await s.tree();

    const stopped = await s.cli("push", "--yes");
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toContain(
      "! conflict courses/web/01-intro.md  (chapter 1; [title]; changed here and on the site since the last sync: title)",
    );
    expect(stopped.stdout).toContain("Nothing was sent");
    expect(s.emulator.state.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/login",
      "GET /api/v1/chapters/1",
    ]);
    expect(await s.tree()).toEqual(before);
    expect(s.emulator.state.get("chapters", 1)?.title).toBe("Remote intro");

    const forced = await s.cli("push", "--yes", "--force");
    expect(forced.code).toBe(0);
    expect(s.patches).toEqual([{ call: "chapters/1", body: { chapter: { title: "Local intro" } } }]);
    expect(s.emulator.state.get("chapters", 1)?.title).toBe("Local intro");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("after a pull left the site's version beside the file, push --force settles the conflict", async () => {
    const s = await setup();
    await s.replace(INTRO, "title: Intro", "title: Mine");
    await s.replace(WEB, "excerpt: HTML", "excerpt: My excerpt");
    ok(s.emulator.state.edit("chapters", 1, { title: "Theirs" }));
    ok(s.emulator.state.edit("courses", 1, { excerpt: "Their excerpt" }));
    expect((await s.cli("pull")).code).toBe(3);
    expect(Object.keys(await s.tree())).toEqual(
      expect.arrayContaining(["courses/web/01-intro.remote.md", "courses/web/course.remote.yaml"]),
    );
    expect((await s.cli("push", "--yes")).code).toBe(3);

    const forced = await s.cli("push", "--yes", "--force");
    expect(forced.code).toBe(0);
    expect(s.emulator.state.get("chapters", 1)?.title).toBe("Mine");
    expect(s.emulator.state.get("courses", 1)?.excerpt).toBe("My excerpt");
    expect(Object.keys(await s.tree()).filter((f) => f.includes(".remote."))).toEqual([]);
    const status = await s.cli("status", "--exit-code");
    expect(status.stdout).toContain("Nothing to push");
    expect(status.code).toBe(0);
  });

  it("keeps fields changed only on the site, and pulls them into the file after the push", async () => {
    const s = await setup();
    await s.replace(WEB, "title: Web", "title: The Web");
    await s.replace(INTRO, "title: Intro", "title: Introduction");
    ok(s.emulator.state.edit("courses", 1, { excerpt: "Edited on the site" }));
    ok(s.emulator.state.edit("chapters", 1, { content: "<p>a</p>\n<p>b</p>\n<p>C</p>" }));

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(s.patches).toEqual([
      { call: "courses/1", body: { course: { title: "The Web" } } },
      { call: "chapters/1", body: { chapter: { title: "Introduction" } } },
    ]);
    expect(s.emulator.state.get("courses", 1)).toMatchObject({
      title: "The Web",
      excerpt: "Edited on the site",
    });
    expect(s.emulator.state.get("chapters", 1)?.content).toBe("<p>a</p>\n<p>b</p>\n<p>C</p>");
    expect(await s.read(WEB)).toContain("excerpt: Edited on the site\n");
    expect(await s.read(INTRO)).toBe(
      "---\nid: 1\ntitle: Introduction\nordinal: 1\nformat: html\n---\n<p>a</p>\n<p>b</p>\n<p>C</p>\n",
    );
    // The snapshot now matches both sides: nothing to push, nothing to pull.
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
    s.emulator.state.clearRequests();
    const pull = await s.cli("pull");
    expect(pull.stdout).not.toMatch(/updated|created|deleted|conflict/);
    expect((await s.cli("push", "--yes")).stdout).toContain("Nothing to push");
  });

  it("sends nothing for an edit the site already has, and reports it unchanged", async () => {
    const s = await setup();
    await s.replace(TAGS, "title: Tags", "title: Same");
    ok(s.emulator.state.edit("chapters", 2, { title: "Same" }));
    const result = await s.cli("push", "--yes", "--json");
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { changes: unknown[]; counts: Record<string, number> };
    expect(doc.changes).toEqual([
      { kind: "chapter", id: 2, path: TAGS, outcome: "unchanged", reason: "the site already had it" },
    ]);
    expect(doc.counts).toMatchObject({ updated: 0, unchanged: 1 });
    expect(s.writes()).toEqual([]);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("a local edit of a record deleted on the site is a conflict; --force creates it again under its new id", async () => {
    const s = await setup();
    await s.replace(TAGS, "title: Tags", "title: Tags, revised");
    s.emulator.state.remove("chapters", 2);

    const stopped = await s.cli("push", "--yes");
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toContain("deleted on the site, edited here");
    expect(s.writes()).toEqual([]);

    const forced = await s.cli("push", "--yes", "--force");
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    const again = s.emulator.state.dump().chapters.find((c) => c.title === "Tags, revised")!;
    expect(again).toMatchObject({ course_id: 1, ordinal: 2, content: "<p>tags</p>" });
    expect(forced.stdout).toContain(
      `+ created  ${TAGS}  (chapter ${again.id}; deleted on the site; created again (it was chapter 2))`,
    );
    expect(s.writes()).toEqual(["POST /api/v1/chapters"]);
    // One id line, the new one; the old id is gone from the snapshot.
    expect(await s.read(TAGS)).toBe(
      `---\nid: ${again.id}\ntitle: Tags, revised\nordinal: 2\nformat: html\n---\n<p>tags</p>\n`,
    );
    const snapshot = await readSnapshot(s.root);
    expect(Object.keys(snapshot.chapters).sort()).toEqual(["1", "3", String(again.id)].sort());
    const st = await s.cli("status", "--exit-code");
    expect(st.code, st.stdout + st.stderr).toBe(0);
    s.emulator.state.clearRequests();
    expect((await s.cli("push", "--yes")).stdout).toContain("Nothing to push");
  });

  it("--force over a course deleted on the site creates the course again, then its edited chapters in it", async () => {
    const s = await setup();
    await s.replace(WEB, "title: Web", "title: Web, revised");
    await s.replace(INTRO, "title: Intro", "title: Intro, revised");
    await s.replace(TAGS, "title: Tags", "title: Tags, revised");
    s.emulator.state.remove("courses", 1);

    const forced = await s.cli("push", "--yes", "--force");
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    const { courses, chapters } = s.emulator.state.dump();
    const web = courses.find((c) => c.title === "Web, revised")!;
    expect(web.id).not.toBe(1);
    expect(chapters.filter((c) => c.course_id === web.id).map((c) => c.title)).toEqual([
      "Intro, revised",
      "Tags, revised",
    ]);
    // The course first, then its chapters, one at a time.
    expect(s.writes()).toEqual(["POST /api/v1/courses", "POST /api/v1/chapters", "POST /api/v1/chapters"]);
    expect(s.emulator.state.peakWritesInFlight).toBe(1);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("--force over a course deleted on the site brings back its unedited chapters too", async () => {
    const s = await setup();
    await s.replace(WEB, "title: Web", "title: Web, revised");
    s.emulator.state.remove("courses", 1);
    expect((await s.cli("push", "--yes")).code).toBe(3);

    const forced = await s.cli("push", "--yes", "--force");
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    const { courses, chapters } = s.emulator.state.dump();
    const web = courses.find((c) => c.title === "Web, revised")!;
    const back = chapters.filter((c) => c.course_id === web.id);
    expect(back.map((c) => [c.title, c.ordinal, c.content])).toEqual([
      ["Intro", 1, "<p>a</p>\n<p>b</p>\n<p>c</p>"],
      ["Tags", 2, "<p>tags</p>"],
    ]);
    expect(s.writes()).toEqual(["POST /api/v1/courses", "POST /api/v1/chapters", "POST /api/v1/chapters"]);
    expect(forced.stdout).toContain(
      `+ created  ${TAGS}  (chapter ${back[1]!.id}; deleted on the site; created again (it was chapter 2))`,
    );
    expect(await s.read(TAGS)).toContain(`\nid: ${back[1]!.id}\n`);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
    const pulled = await s.cli("pull");
    expect(pulled.stdout).toMatch(/no changes/);
    expect(await s.read(INTRO)).toContain(`\nid: ${back[0]!.id}\n`);
  });

  it("a local delete of a record edited on the site is a conflict; --force deletes it", async () => {
    const s = await setup();
    await rm(s.file(TAGS));
    ok(s.emulator.state.edit("chapters", 2, { content: "<p>more tags</p>" }));
    const stopped = await s.cli("push", "--yes");
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toContain(
      "! conflict courses/web/02-tags.md  (chapter 2; [content]; deleted here, changed on the site)",
    );
    expect(s.emulator.state.get("chapters", 2)).toBeDefined();
    expect(s.writes()).toEqual([]);
    const forced = await s.cli("push", "--yes", "--force");
    expect(forced.code).toBe(0);
    expect(s.writes()).toEqual(["DELETE /api/v1/chapters/2"]);
    expect(s.emulator.state.get("chapters", 2)).toBeUndefined();
  });

  it("a course deleted here whose chapter was edited on the site: that chapter and the course are held, the other chapter is deleted", async () => {
    const s = await setup();
    await rm(s.file("courses/web"), { recursive: true });
    ok(s.emulator.state.edit("chapters", 1, { title: "Edited there" }));
    const result = await s.cli("push", "--yes", "--max-delete", "5");
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      "! conflict courses/web/01-intro.md  (chapter 1; [title]; deleted here, changed on the site)",
    );
    // Deleting the course would take the edited chapter along: it waits with it.
    expect(result.stdout).toContain(
      "? skipped  courses/web  (course 1; held with chapter 1 (courses/web/01-intro.md), which is in conflict)",
    );
    expect(result.stdout).toContain("- deleted  courses/web/02-tags.md  (chapter 2)");
    expect(s.writes()).toEqual(["DELETE /api/v1/chapters/2"]);
    expect(s.emulator.state.get("courses", 1)).toBeDefined();
    expect(s.emulator.state.get("chapters", 1)?.title).toBe("Edited there");
    expect(s.emulator.state.get("chapters", 2)).toBeUndefined();
  });

  it("a course deleted here that gained a chapter on the site since the pull: the course is held, its chapters deleted here are deleted", async () => {
    const s = await setup();
    ok(s.emulator.state.createChapter({ chapter: { course_id: 1, title: "Added there", content: "" } }));
    await rm(s.file("courses/web"), { recursive: true });
    const result = await s.cli("push", "--yes", "--max-delete", "5");
    expect(result.code).toBe(3);
    expect(result.stdout).toContain("! conflict courses/web  (course 1; deleted here, changed on the site)");
    expect(s.writes().sort()).toEqual(["DELETE /api/v1/chapters/1", "DELETE /api/v1/chapters/2"]);
    expect(s.emulator.state.get("courses", 1)).toBeDefined();
    expect(s.emulator.state.dump().chapters.map((c) => c.title)).toEqual(["Tour", "Added there"]);
  });

  it("sends nothing at all when only the site changed", async () => {
    const s = await setup();
    ok(s.emulator.state.edit("chapters", 1, { title: "Remote only" }));
    s.emulator.state.clearRequests();
    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Nothing to push");
    expect(s.emulator.state.requests).toEqual([]);
    expect(await s.read(INTRO)).toContain("title: Intro\n");
  });
});

describe("the delete guard", () => {
  it("stops more deletes than 25% of a small site with exit 3 and no request, unless --max-delete", async () => {
    const s = await setup();
    // 5 records: the guard allows 1.
    await rm(s.file(INTRO));
    await rm(s.file(TAGS));
    const before = await s.tree();
    const stopped = await s.cli("push", "--yes");
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toContain(
      "the push would delete 2 records on the site (the limit is 1); nothing was sent",
    );
    expect(stopped.stderr).toContain("--max-delete 2");
    expect(s.emulator.state.requests).toEqual([]);
    expect(await s.tree()).toEqual(before);
    // A dry run shows the plan and exits as the push would.
    const dry = await s.cli("push", "--dry-run");
    expect(dry.code).toBe(3);
    expect(dry.stderr).toContain(
      "2 deletes are over the limit of 1: a real push would stop unless --max-delete 2",
    );
    expect(s.writes()).toEqual([]);

    const allowed = await s.cli("push", "--yes", "--max-delete", "2");
    expect(allowed.code).toBe(0);
    expect(s.writes().sort()).toEqual(["DELETE /api/v1/chapters/1", "DELETE /api/v1/chapters/2"]);
    expect((await s.cli("push", "--max-delete", "two")).code).toBe(2);
  });

  it("caps a large site at 10 deletes", async () => {
    const { emulator, root, env } = await pulledSite(start, {
      courses: [{ title: "Big" }],
      chapters: Array.from({ length: 47 }, (_, i) => ({
        course_id: 1,
        title: `Part ${i + 1}`,
        ordinal: i + 1,
        content: "",
      })),
    });
    const chapterFiles = Object.keys(await readTree(path.join(root, "courses/big"))).filter((f) =>
      f.endsWith(".md"),
    );
    for (const name of chapterFiles.slice(0, 11)) await rm(path.join(root, "courses/big", name));
    emulator.state.clearRequests();
    const stopped = await runCli(["push", "--yes"], { cwd: root, env });
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toContain("would delete 11 records on the site (the limit is 10)");
    expect(emulator.state.requests).toEqual([]);
    const allowed = await runCli(["push", "--yes", "--max-delete", "11"], { cwd: root, env });
    expect(allowed.code).toBe(0);
    expect(emulator.state.dump().chapters).toHaveLength(36);
  });
});
