import { rename, rm, utimes, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { ok, pulledSite } from "../helpers/site.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A pulled tree: "Web" (1) with Intro (1) and Tags (2); "Go" (2) with Tour (3). */
async function setup() {
  // HTML bodies: these tests write and read chapter HTML in the files (Markdown has its own tests).
  const site = await pulledSite(start, {
    body: "html",
    options: { admin: true, now: manualClock().now },
    courses: [{ title: "Web", status: 1, excerpt: "HTML" }, { title: "Go" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>one</p>\n<p>two</p>\n<p>three</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
    ],
  });
  const entries = async (...args: string[]) => {
    const result = await site.cli("status", "--json", ...args);
    expect(result.code).toBe(0);
    return (JSON.parse(result.stdout) as { entries: Array<Record<string, unknown>> }).entries;
  };
  return { ...site, entries };
}

const WEB = "courses/web/course.yaml";
const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";
const TOUR = "courses/go/01-tour.md";

describe("status", () => {
  it("says the tree is clean right after a pull, and --exit-code exits 0", async () => {
    const s = await setup();
    const result = await s.cli("status", "--exit-code");
    expect(result).toEqual({
      code: 0,
      stdout: `Site "production" (${s.emulator.baseUrl})\nNothing to push: the tree matches the last sync.\n`,
      stderr: "",
    });
    expect(JSON.parse((await s.cli("status", "--json")).stdout)).toEqual({
      command: "status",
      site: s.emulator.baseUrl,
      clean: true,
      interrupted_push: false,
      entries: [],
    });
    expect(s.emulator.state.requests).toEqual([]);
  });

  it("lists new, modified (with fields), deleted, moved, renamed, conflicted and invalid files, offline", async () => {
    const s = await setup();
    // A conflict: both sides changed the title; pull leaves the site's version beside the file.
    await s.replace(TAGS, "title: Tags", "title: Tags (mine)");
    ok(s.emulator.state.edit("chapters", 2, { title: "Tags (theirs)" }));
    expect((await s.cli("pull")).code).toBe(3);
    expect(await s.read("courses/web/02-tags.remote.md")).toContain("title: Tags (theirs)");
    s.emulator.state.clearRequests();

    await s.replace(WEB, "excerpt: HTML", "excerpt: HTML and more");
    await s.replace(WEB, "status: published", "status: draft");
    await s.replace(INTRO, "<p>two</p>", "<p>TWO</p>");
    await s.write("courses/web/03-new.md", "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n");
    await s.write("courses/rust/course.yaml", "title: Rust\n");
    await rename(s.file(TOUR), s.file("courses/web/04-tour.md"));
    await s.write("courses/go/02-broken.md", "---\ntitle: Broken\nordinal: two\nformat: html\n---\n");
    await s.emulator.close();

    const result = await s.cli("status");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        `Site "production" (${s.emulator.baseUrl})`,
        '  invalid   courses/go/02-broken.md  (line 3: ordinal must be a whole number, not "two")',
        "  new       courses/rust  (new course)",
        "  modified  courses/web  (course 1; [excerpt, status])",
        "  modified  courses/web/01-intro.md  (chapter 1; [content])",
        "  conflict  courses/web/02-tags.md  (chapter 2; site's version: courses/web/02-tags.remote.md; the site changed it too: merge by hand and `coursesync push --force`, or `coursesync pull --theirs`)",
        "  new       courses/web/03-new.md  (new chapter)",
        "  moved     courses/web/04-tour.md  (chapter 3; from courses/go/01-tour.md; [course_id])",
        "7 pending; 1 invalid file must be fixed before a push. `coursesync diff` shows the changes; `coursesync push` sends them.",
        "",
      ].join("\n"),
    );
    expect((await s.cli("status", "--exit-code")).code).toBe(1);
    expect(await s.entries()).toEqual([
      {
        state: "invalid",
        kind: "file",
        path: "courses/go/02-broken.md",
        message: 'line 3: ordinal must be a whole number, not "two"',
      },
      { state: "new", kind: "course", path: "courses/rust" },
      { state: "modified", kind: "course", id: 1, path: "courses/web", fields: ["excerpt", "status"] },
      { state: "modified", kind: "chapter", id: 1, path: INTRO, fields: ["content"] },
      {
        state: "conflict",
        kind: "chapter",
        id: 2,
        path: TAGS,
        copy: "courses/web/02-tags.remote.md",
        resolution: "beside",
        message: expect.stringContaining("coursesync push --force"),
      },
      { state: "new", kind: "chapter", path: "courses/web/03-new.md" },
      {
        state: "moved",
        kind: "chapter",
        id: 3,
        path: "courses/web/04-tour.md",
        fields: ["course_id"],
        from: TOUR,
      },
    ]);
  });

  it("shows a conflicted file as a conflict when it is the path asked about", async () => {
    const s = await setup();
    await s.replace(TAGS, "title: Tags", "title: Tags (mine)");
    ok(s.emulator.state.edit("chapters", 2, { title: "Tags (theirs)" }));
    expect((await s.cli("pull")).code).toBe(3);
    for (const args of [[TAGS], ["courses/web"], []]) {
      const result = await s.cli("status", "--json", ...args);
      const entries = (JSON.parse(result.stdout) as { entries: Array<{ state: string; path: string }> })
        .entries;
      expect(entries.filter((e) => e.path === TAGS).map((e) => e.state)).toEqual(["conflict"]);
    }
    expect((await s.cli("status", "--short", TAGS)).stdout).toBe(`UU ${TAGS}\n`);
  });

  it("--short prints one porcelain line per path and nothing else, offline", async () => {
    const s = await setup();
    await s.replace(TAGS, "title: Tags", "title: Tags (mine)");
    ok(s.emulator.state.edit("chapters", 2, { title: "Tags (theirs)" }));
    expect((await s.cli("pull")).code).toBe(3);
    s.emulator.state.clearRequests();

    await s.replace(WEB, "excerpt: HTML", "excerpt: HTML and more");
    await rename(s.file(INTRO), s.file("courses/web/01-Introduction.md"));
    await s.write("courses/web/03-new.md", "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n");
    await s.write("courses/rust/course.yaml", "title: Rust\n");
    await rename(s.file(TOUR), s.file("courses/web/04-tour.md"));
    // Two problems in one file: still one line.
    await s.write("courses/go/02-broken.md", "---\ntitle: Broken\nordinal: two\nformat: htm\n---\n");
    await s.write(
      "courses/go/07-stray.md",
      "---\nid: 77\ntitle: Stray\nordinal: 7\nformat: html\n---\n<p>?</p>\n",
    );
    await s.emulator.close();

    const result = await s.cli("status", "--short");
    expect(result).toEqual({
      code: 0,
      stdout: [
        "!! courses/go/02-broken.md",
        "?? courses/go/07-stray.md",
        "A  courses/rust",
        " M courses/web",
        "R  courses/web/01-intro.md -> courses/web/01-Introduction.md",
        "UU courses/web/02-tags.md",
        "A  courses/web/03-new.md",
        "RM courses/go/01-tour.md -> courses/web/04-tour.md",
        "",
      ].join("\n"),
      stderr: "",
    });
    expect((await s.cli("status", "-s", "courses/rust")).stdout).toBe("A  courses/rust\n");
    const failing = await s.cli("status", "-s", "--exit-code");
    expect([failing.code, failing.stdout]).toEqual([1, result.stdout]);
    expect(s.emulator.state.requests).toEqual([]);
  });

  it('--short shows deletes as " D", prints nothing on a clean tree, and refuses --json', async () => {
    const s = await setup();
    expect(await s.cli("status", "-s", "--exit-code")).toEqual({ code: 0, stdout: "", stderr: "" });
    await rm(s.file(TAGS));
    expect((await s.cli("status", "-s")).stdout).toBe(` D ${TAGS}\n`);
    const both = await s.cli("status", "-s", "--json");
    expect(both.code).toBe(2);
    expect(both.stdout + both.stderr).toContain("status takes --json or --short, not both");
  });

  it("lists deletes, renames (git mv: nothing to send) and files with an id the snapshot does not know", async () => {
    const s = await setup();
    await rm(s.file(TAGS));
    await rename(s.file(INTRO), s.file("courses/web/01-Introduction.md"));
    await s.write(
      "courses/go/07-stray.md",
      "---\nid: 77\ntitle: Stray\nordinal: 7\nformat: html\n---\n<p>?</p>\n",
    );
    expect(await s.entries()).toEqual([
      {
        state: "untracked",
        kind: "chapter",
        id: 77,
        path: "courses/go/07-stray.md",
        message: "not in the snapshot: run `coursesync pull` to adopt it",
      },
      { state: "renamed", kind: "chapter", id: 1, path: "courses/web/01-Introduction.md", from: INTRO },
      { state: "deleted", kind: "chapter", id: 2, path: TAGS },
    ]);
    expect((await s.cli("status", "--exit-code")).code).toBe(1);
    expect(s.emulator.state.requests).toEqual([]);
  });

  it("a deleted course folder is its course and each of its chapters deleted", async () => {
    const s = await setup();
    await rm(s.file("courses/web"), { recursive: true });
    expect((await s.entries()).map((e) => `${e.state} ${e.kind} ${e.id} ${e.path}`)).toEqual([
      "deleted course 1 courses/web",
      `deleted chapter 1 ${INTRO}`,
      `deleted chapter 2 ${TAGS}`,
    ]);
  });

  it("does not count an edit undone, a touched file, or editor junk", async () => {
    const s = await setup();
    const original = await s.read(INTRO);
    await s.replace(INTRO, "title: Intro", "title: Changed");
    expect(await s.entries()).toHaveLength(1);
    await writeFile(s.file(INTRO), original);
    const later = new Date(Date.now() + 60_000);
    await utimes(s.file(TAGS), later, later);
    await s.write("courses/web/.01-intro.md.swp", "junk");
    await s.write("courses/web/01-intro.md~", "junk");
    await s.write("courses/.DS_Store", "junk");
    await s.write("courses/web/01-intro (conflicted copy).md", "junk");
    await s.write("courses/web/02-tags.sync-conflict-20260301-093000-ABC.md", "junk");
    const result = await s.cli("status", "--exit-code");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Nothing to push");
  });

  it("limits itself to the given paths", async () => {
    const s = await setup();
    await s.replace(INTRO, "title: Intro", "title: Changed");
    await s.replace(TOUR, "title: Tour", "title: Changed");
    expect((await s.entries("courses/go")).map((e) => e.path)).toEqual([TOUR]);
    expect((await s.entries(INTRO)).map((e) => e.path)).toEqual([INTRO]);
    const fromInside = await runCli(["status", "--json", "01-tour.md"], {
      cwd: s.file("courses/go"),
      env: s.env,
    });
    expect(
      (JSON.parse(fromInside.stdout) as { entries: Array<{ path: string }> }).entries.map((e) => e.path),
    ).toEqual([TOUR]);
    expect((await s.cli("status", "../elsewhere")).code).toBe(2);
  });

  it("needs a snapshot, and never reads a broken one as empty", async () => {
    const s = await setup();
    await writeFile(s.file(".coursesync/production/site.json"), "{ not json");
    const broken = await s.cli("status");
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("does not parse");
    await rm(s.file(".coursesync/production"), { recursive: true });
    const missing = await s.cli("status");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("coursesync pull");
  });
});

describe("diff", () => {
  it("shows the changed fields and a unified diff against the last sync, offline", async () => {
    const s = await setup();
    await s.replace(INTRO, "title: Intro", "title: Introduction");
    await s.replace(INTRO, "<p>two</p>", "<p>2</p>");
    await s.replace(WEB, "free: false", "free: true");
    await s.emulator.close();

    const result = await s.cli("diff");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        "course 1: update [free]",
        "--- a/courses/web/course.yaml",
        "+++ b/courses/web/course.yaml",
        "@@ -2,7 +2,7 @@",
        " title: Web",
        " status: published",
        " excerpt: HTML",
        "-free: false",
        "+free: true",
        " questions_enabled: false",
        " scheduled_at: null",
        " published_at: null",
        "chapter 1: update [content, title]",
        "--- a/courses/web/01-intro.md",
        "+++ b/courses/web/01-intro.md",
        "@@ -1,9 +1,9 @@",
        " ---",
        " id: 1",
        "-title: Intro",
        "+title: Introduction",
        " ordinal: 1",
        " format: html",
        " ---",
        " <p>one</p>",
        "-<p>two</p>",
        "+<p>2</p>",
        " <p>three</p>",
        "",
      ].join("\n"),
    );
  });

  it("shows new files against /dev/null, deletes and renames, limited to the paths given", async () => {
    const s = await setup();
    await s.write("courses/go/02-new.md", "---\ntitle: New\nordinal: 2\nformat: html\n---\n<p>n</p>\n");
    await rm(s.file(TAGS));
    await rename(s.file(INTRO), s.file("courses/web/01-start.md"));

    const go = await s.cli("diff", "courses/go");
    expect(go.stdout).toBe(
      [
        "new chapter: create",
        "--- /dev/null",
        "+++ b/courses/go/02-new.md",
        "@@ -0,0 +1,6 @@",
        "+---",
        "+title: New",
        "+ordinal: 2",
        "+format: html",
        "+---",
        "+<p>n</p>",
        "",
      ].join("\n"),
    );
    const web = await s.cli("diff", "courses/web");
    expect(web.stdout).toContain(
      "chapter 1: renamed\n--- a/courses/web/01-intro.md\n+++ b/courses/web/01-start.md\n",
    );
    expect(web.stdout).toContain(
      "chapter 2: delete\n--- a/courses/web/02-tags.md\n+++ /dev/null\n@@ -1,7 +0,0 @@\n----\n-id: 2\n",
    );
    expect(s.emulator.state.requests).toEqual([]);
  });

  it("--name-only, --stat and --exit-code, offline", async () => {
    const s = await setup();
    await s.replace(INTRO, "title: Intro", "title: Introduction");
    await s.replace(INTRO, "<p>two</p>", "<p>2</p>");
    await s.replace(WEB, "free: false", "free: true");
    await s.write("courses/go/02-new.md", "---\ntitle: New\nordinal: 2\nformat: html\n---\n<p>n</p>\n");
    await rm(s.file(TAGS));
    await rename(s.file(TOUR), s.file("courses/go/01-start.md"));
    await s.emulator.close();

    expect(await s.cli("diff", "--name-only")).toEqual({
      code: 0,
      stdout: [
        "courses/web/course.yaml",
        "courses/go/02-new.md",
        "courses/web/01-intro.md",
        "courses/web/02-tags.md",
        "courses/go/01-start.md",
        "",
      ].join("\n"),
      stderr: "",
    });
    expect(await s.cli("diff", "--stat")).toEqual({
      code: 0,
      stdout: [
        " courses/web/course.yaml                         | 2 +-",
        " courses/go/02-new.md                            | 6 ++++++",
        " courses/web/01-intro.md                         | 4 ++--",
        " courses/web/02-tags.md                          | 7 -------",
        " courses/go/01-tour.md => courses/go/01-start.md | 0",
        " 5 files changed, 9 insertions(+), 10 deletions(-)",
        "",
      ].join("\n"),
      stderr: "",
    });
    expect((await s.cli("diff", "--stat", "courses/go/02-new.md")).stdout).toBe(
      " courses/go/02-new.md | 6 ++++++\n 1 file changed, 6 insertions(+)\n",
    );
    const exit = await s.cli("diff", "--exit-code", "--name-only", "courses/go/02-new.md");
    expect(exit).toEqual({ code: 1, stdout: "courses/go/02-new.md\n", stderr: "" });
    const both = await s.cli("diff", "--stat", "--name-only");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--name-only or --stat");
  });

  it("--exit-code exits 0 and --stat and --name-only print nothing on a clean tree", async () => {
    const s = await setup();
    for (const flag of ["--stat", "--name-only", "--exit-code"]) {
      expect(await s.cli("diff", flag, "--exit-code")).toEqual({ code: 0, stdout: "", stderr: "" });
    }
  });

  it("--stat scales a long bar down to 40 marks, as git does", async () => {
    const s = await setup();
    const many = Array.from({ length: 100 }, (_, i) => `<p>${i}</p>`).join("\n");
    await s.replace(INTRO, "<p>two</p>", many);
    const stat = await s.cli("diff", "--stat");
    expect(stat.stdout).toBe(
      ` courses/web/01-intro.md | 101 ${"+".repeat(40)}-\n 1 file changed, 100 insertions(+), 1 deletion(-)\n`,
    );
  });

  it("says so when the last synced body is neither in the cache nor in git (a tree outside git)", async () => {
    const s = await setup();
    await s.replace(INTRO, "<p>two</p>", "<p>2</p>");
    await rm(s.file(".coursesync/cache"), { recursive: true });
    const result = await s.cli("diff");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "chapter 1: update [content]\n  (the last synced body is neither in the local cache nor in git",
    );
  });

  it("prints nothing for a clean tree", async () => {
    const s = await setup();
    const before = await readTree(s.root, [".coursesync/cache"]);
    expect(await s.cli("diff")).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await readTree(s.root, [".coursesync/cache"])).toEqual(before);
  });
});
