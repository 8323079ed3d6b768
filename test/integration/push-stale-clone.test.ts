import { cp, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { pulledSite } from "../helpers/site.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const NEW = "courses/web/03-new.md";

describe("push from a clone older than the site (CI that did not commit the ids back)", () => {
  it("adopts the record an earlier push made instead of creating it again, and says so", async () => {
    const s = await pulledSite(start, {
      body: "html",
      options: { now: manualClock().now },
      courses: [{ title: "Web" }],
      chapters: [{ course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>" }],
    });
    await s.write(NEW, "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n");
    // A second clone of the same commit: the new file without an id, the old snapshot.
    const stale = path.join(s.dir, "stale");
    await cp(s.root, stale, { recursive: true });

    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(s.writes()).toEqual(["POST /api/v1/chapters"]);
    s.emulator.state.clearRequests();

    const again = await runCli(["push", "--yes"], { cwd: stale, env: s.env });
    expect(again.code, again.stderr).toBe(0);
    expect(s.writes()).toEqual([]);
    const id = s.emulator.state.dump().chapters.find((c) => c.title === "New")?.id;
    expect(again.stdout).toContain(
      `the site already had an equal chapter that no sync knew (chapter ${id}): adopted, not created again`,
    );
    expect(s.emulator.state.dump().chapters.filter((c) => c.title === "New")).toHaveLength(1);
    // The stale clone now holds the id, and agrees with the site and the first clone.
    const files = await readTree(stale, [".coursesync"]);
    expect(files[NEW]).toBe(`---\nid: ${id}\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n`);
    expect((await runCli(["status", "--exit-code"], { cwd: stale, env: s.env })).code).toBe(0);
  });

  it("takes a delete an earlier push already made as done: nothing sent, nothing kept", async () => {
    const s = await pulledSite(start, {
      body: "html",
      options: { now: manualClock().now },
      courses: [{ title: "Web" }],
      chapters: [
        { course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>" },
        { course_id: 1, title: "Gone", ordinal: 2, content: "<p>gone</p>" },
      ],
    });
    await rm(s.file("courses/web/02-gone.md"));
    // A second clone of the same commit (a CI job started again after a race): the file gone,
    // the old snapshot that still knows the chapter.
    const stale = path.join(s.dir, "stale");
    await cp(s.root, stale, { recursive: true });

    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(s.writes()).toEqual(["DELETE /api/v1/chapters/2"]);
    s.emulator.state.clearRequests();

    const again = await runCli(["push", "--yes"], { cwd: stale, env: s.env });
    expect(again.code, again.stderr).toBe(0);
    expect(s.writes()).toEqual([]);
    expect(s.emulator.state.dump().chapters.map((c) => c.title)).toEqual(["Intro"]);
    // The stale clone's snapshot forgets the chapter: it agrees with the site and the first clone.
    expect((await runCli(["status", "--exit-code"], { cwd: stale, env: s.env })).code).toBe(0);
    expect(await readTree(stale, [".coursesync/cache"])).toEqual(
      await readTree(s.root, [".coursesync/cache"]),
    );
  });
});
