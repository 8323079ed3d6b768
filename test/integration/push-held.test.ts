import { afterEach, describe, expect, it } from "vitest";
import { useEmulators } from "../helpers/emulator.js";
import { addCourse, edit, pulledSite, recordWrites, webAndGoSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A pulled tree of "Web" (course 1: Intro 1, Tags 2) and "Go" (course 2: Tour 3), HTML bodies. */
async function setup() {
  const s = await pulledSite(start, webAndGoSite());
  return { ...s, sent: recordWrites(s.emulator) };
}

const WEB = "courses/web/course.yaml";
const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";
const TOUR = "courses/go/01-tour.md";

describe("one conflict holds one record", () => {
  it("sends the clean edit beside a conflict (one PATCH), holds the conflicting record, exits 3 naming it; after resolving, a push sends only the resolution", async () => {
    const s = await setup();
    // Both sides change the same line of Intro's body: no clean merge.
    await s.replace(INTRO, "<p>b</p>", "<p>b, mine</p>");
    edit(s.emulator, "chapters", 1, { content: "<p>a</p>\n<p>b, theirs</p>\n<p>c</p>" });
    await s.replace(TOUR, "title: Tour", "title: The tour");

    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stderr).toBe(3);
    expect(s.sent).toEqual([{ call: "PATCH chapters/3", body: { chapter: { title: "The tour" } } }]);
    expect(s.emulator.state.get("chapters", 1)?.content).toBe("<p>a</p>\n<p>b, theirs</p>\n<p>c</p>");
    expect(pushed.stdout).toContain(
      `! conflict ${INTRO}  (chapter 1; [content]; changed here and on the site since the last sync: content)`,
    );
    expect(pushed.stdout).toContain(
      "Pushed what is not in conflict (1 updated); held, not sent: 1 record in conflict with the site.",
    );
    expect(pushed.stdout).toContain(
      `  held ${INTRO} (chapter 1): run \`coursesync pull\` to bring the site's change into the file`,
    );
    // What was sent is in the snapshot: status names only the held record.
    const status = await s.cli("status", "--json");
    const changed = (JSON.parse(status.stdout) as { entries: Array<{ path: string }> }).entries;
    expect(changed.map((c) => c.path)).toEqual([INTRO]);

    // Resolve: pull writes both sides between markers; keep both lines, push.
    expect((await s.cli("pull")).code).toBe(3);
    const marked = await s.read(INTRO);
    expect(marked).toContain("<<<<<<< local");
    await s.write(
      INTRO,
      "---\nid: 1\ntitle: Intro\nordinal: 1\nformat: html\n---\n<p>a</p>\n<p>b, mine and theirs</p>\n<p>c</p>\n",
    );
    s.sent.length = 0;
    const resolved = await s.cli("push", "--yes");
    expect(resolved.code, resolved.stdout + resolved.stderr).toBe(0);
    expect(s.sent).toEqual([
      {
        call: "PATCH chapters/1",
        body: { chapter: { content: "<p>a</p>\n<p>b, mine and theirs</p>\n<p>c</p>" } },
      },
    ]);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("a course in conflict is held; a new chapter in it is still created, in order", async () => {
    const s = await setup();
    await s.replace(WEB, "excerpt: HTML", "excerpt: Mine");
    edit(s.emulator, "courses", 1, { excerpt: "Theirs" });
    await s.write("courses/web/03-new.md", "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n");

    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stderr).toBe(3);
    expect(s.sent).toEqual([
      {
        call: "POST chapters",
        body: { chapter: { course_id: 1, title: "New", ordinal: 3, content: "<p>new</p>" } },
      },
    ]);
    expect(s.emulator.state.get("courses", 1)?.excerpt).toBe("Theirs");
    expect(await s.read("courses/web/03-new.md")).toMatch(/^---\nid: 4\n/);
    expect(pushed.stdout).toContain(
      "! conflict courses/web  (course 1; [excerpt]; changed here and on the site since the last sync: excerpt)",
    );
    expect(pushed.stdout).toContain("  held courses/web (course 1): run `coursesync pull`");
  });

  it("a new course two site records could be (an ambiguous adoption) is held, and the new chapter in it with it; the rest goes", async () => {
    const s = await setup();
    // Two courses no sync knows, each equal to the new course.yaml (made, say, by two earlier runs).
    for (let i = 0; i < 2; i++) addCourse(s.emulator, { title: "Rust", status: 0 });
    s.emulator.state.clearRequests();
    await s.write("courses/rust/course.yaml", "title: Rust\nstatus: draft\n");
    await s.write("courses/rust/01-own.md", "---\ntitle: Own\nordinal: 1\nformat: html\n---\n<p>own</p>\n");
    await s.replace(TOUR, "title: Tour", "title: The tour");

    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stdout + pushed.stderr).toBe(3);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/3"]);
    expect(pushed.stdout).toContain(
      "! conflict courses/rust  (new course; the site holds two courses this file could have been created as",
    );
    expect(pushed.stdout).toContain(
      "? skipped  courses/rust/01-own.md  (new chapter; held with new course (courses/rust), which is in conflict)",
    );
    expect(pushed.stdout).toContain(
      "  held courses/rust/01-own.md (chapter): resolve courses/rust first: delete the duplicate on the site",
    );
    expect(s.emulator.state.dump().chapters.map((c) => c.title)).toEqual(["Intro", "Tags", "The tour"]);
  });

  it("--json lists what was sent and what was held, each held record with what resolves it", async () => {
    const s = await setup();
    await s.replace(TAGS, "title: Tags", "title: Tags, mine");
    edit(s.emulator, "chapters", 2, { title: "Tags, theirs" });
    await s.replace(TOUR, "title: Tour", "title: The tour");

    const pushed = await s.cli("push", "--yes", "--json");
    expect(pushed.code).toBe(3);
    const json = JSON.parse(pushed.stdout) as Record<string, unknown>;
    expect(json.plan).toEqual([{ type: "update", kind: "chapter", id: 3, path: TOUR, fields: ["title"] }]);
    expect(json.sent).toEqual([
      { kind: "chapter", id: 3, path: TOUR, outcome: "updated", fields: ["title"] },
    ]);
    expect(json.held).toEqual([
      {
        kind: "chapter",
        id: 2,
        path: TAGS,
        outcome: "conflict",
        fields: ["title"],
        reason: "changed here and on the site since the last sync: title",
        resolution: "none",
        resolve: expect.stringMatching(/^run `coursesync pull` .* or `coursesync push --force`/),
      },
    ]);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/3"]);
  });

  it("--dry-run shows the same split, and --force still overwrites the conflict", async () => {
    const s = await setup();
    await s.replace(TAGS, "title: Tags", "title: Tags, mine");
    edit(s.emulator, "chapters", 2, { title: "Tags, theirs" });
    await s.replace(TOUR, "title: Tour", "title: The tour");

    const dry = await s.cli("push", "--dry-run", "--json");
    expect(dry.code).toBe(3);
    const json = JSON.parse(dry.stdout) as { plan: Array<{ path: string }>; held: Array<{ path: string }> };
    expect(json.plan.map((op) => op.path)).toEqual([TOUR]);
    expect(json.held.map((c) => c.path)).toEqual([TAGS]);
    expect(s.writes()).toEqual([]);

    const forced = await s.cli("push", "--yes", "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(s.writes().sort()).toEqual(["PATCH /api/v1/chapters/2", "PATCH /api/v1/chapters/3"]);
    expect(s.emulator.state.get("chapters", 2)?.title).toBe("Tags, mine");
  });
});
