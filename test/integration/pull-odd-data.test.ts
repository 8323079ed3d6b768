import { rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { useEmulators } from "../helpers/emulator.js";
import { pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const SITE = {
  courses: [{ title: "Web", excerpt: "Learn the web" }],
  chapters: [
    { course_id: 1, title: "Intro", content: "<p>Hello</p>", ordinal: 1 },
    { course_id: 1, title: "Next", content: "<p>More</p>", ordinal: 2 },
  ],
};

describe("pull from a site whose lists leave fields out (summary lists)", () => {
  it("reads those records one by one, saying so, and writes what a full list gives", async () => {
    const full = await pulledSite(start, { ...SITE, body: "html" });
    const summary = await pulledSite(start, { ...SITE, body: "html", options: { summaryLists: true } });
    // The first pull read each record once: the same files as from full lists.
    const strip = (tree: Record<string, string>) =>
      Object.fromEntries(Object.entries(tree).filter(([file]) => file.startsWith("courses/")));
    expect(strip(await summary.tree())).toEqual(strip(await full.tree()));
    expect(await summary.read("courses/web/course.yaml")).toContain("excerpt: Learn the web");
    expect(await summary.read("courses/web/01-intro.md")).toContain("<p>Hello</p>");

    // A second pull with no change reads no record: the last sync holds what the list leaves out.
    const again = await summary.cli("pull");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/one by one/);
    expect(summary.log().filter((line) => /^GET \/api\/v1\/(courses|chapters)\/\d+/.test(line))).toEqual([]);

    // A changed record, and a clone without the content cache, are read one by one.
    summary.emulator.state.edit("chapters", 2, { content: "<p>Changed</p>" });
    await rm(summary.file(".coursesync/cache"), { recursive: true, force: true });
    summary.emulator.state.clearRequests();
    const changed = await summary.cli("pull");
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toMatch(
      /the site's chapters list leaves out "content": reading 2 chapters one by one/,
    );
    expect(await summary.read("courses/web/02-next.md")).toContain("<p>Changed</p>");
    expect(await summary.read("courses/web/01-intro.md")).toContain("<p>Hello</p>");
    const reads = summary.log().filter((line) => /^GET \/api\/v1\/(courses|chapters)\/\d+/.test(line));
    expect(reads.sort()).toEqual(["GET /api/v1/chapters/1 200", "GET /api/v1/chapters/2 200"]);

    // And a push with no edit sends nothing.
    const push = await summary.cli("push", "--yes");
    expect(push.code, push.stderr).toBe(0);
    expect(summary.writes()).toEqual([]);
  });
});
