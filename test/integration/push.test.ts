import { readFile, rm, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { acquireLock } from "../../src/sync/state/lock.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { ok, pulledSite, recordWrites, writeRequests } from "../helpers/site.js";
import { readSnapshot } from "../helpers/snapshot.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/**
 * A site with two courses and three chapters, pulled into a tree with a snapshot. The request
 * log is emptied after the pull, and `writes` records what the site is sent from then on.
 */
async function setup(options: EmulatorOptions = {}) {
  // HTML bodies: these tests write and read chapter HTML in the files (Markdown has its own tests).
  const site = await pulledSite(start, {
    body: "html",
    options: { admin: true, now: manualClock().now, ...options },
    courses: [
      { title: "Web Foundations", status: 1, excerpt: "HTML & CSS", free: true },
      { title: "Python", excerpt: "Snakes" },
    ],
    chapters: [
      { course_id: 1, title: "Hello HTML", ordinal: 1, content: "<p>Tags</p>" },
      { course_id: 1, title: "CSS", ordinal: 2, content: "<p>one</p>\n<p>two</p>" },
      { course_id: 2, title: "Setup", ordinal: 1, content: "<p>pip</p>" },
    ],
  });
  const [web, py] = site.ids.courses;
  const [hello, css, setupChapter] = site.ids.chapters;
  return {
    ...site,
    ids: { web: web!, py: py!, hello: hello!, css: css!, setup: setupChapter! },
    writes: recordWrites(site.emulator),
    writeRequests: () => writeRequests(site.emulator),
    snapshot: () => readSnapshot(site.root),
  };
}

/** Writes sorted by what they called: writes of one phase go out side by side, in any order. */
function byCall<T extends { call: string }>(writes: readonly T[]): T[] {
  return [...writes].sort((a, b) => a.call.localeCompare(b.call));
}

const HELLO = "courses/web-foundations/01-hello-html.md";
const CSS = "courses/web-foundations/02-css.md";
const WEB = "courses/web-foundations/course.yaml";
const SETUP = "courses/python/01-setup.md";

/** The paths the site was asked to read (GET), sorted. */
function gets(s: { emulator: { state: { requests: Array<{ method: string; path: string }> } } }): string[] {
  return s.emulator.state.requests
    .filter((r) => r.method === "GET")
    .map((r) => r.path)
    .sort();
}

describe("push: the plan", () => {
  it("creates courses, then their chapters with the new course ids, and writes each new id into its file", async () => {
    const s = await setup();
    await s.write("courses/go/course.yaml", "# a new course\ntitle: Go\nstatus: published\nfree: true\n");
    await s.write("courses/go/01-tour.md", "---\ntitle: A Tour\nordinal: 1\nformat: html\n---\n<p>Go!</p>\n");
    await s.write("courses/go/02-types.md", "---\ntitle: Types\nordinal: 2\nformat: html\n---\n<p>int</p>\n");
    await s.write(
      "courses/python/02-venv.md",
      "---\r\ntitle: Venv\r\nordinal: 2\r\nformat: html\r\n---\r\n<p>venv</p>\r\n",
    );

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("4 to create, 0 to update, 0 to delete");
    expect(result.stdout).toContain("Pushed: 4 created.");
    const go = s.emulator.state.dump().courses.find((c) => c.title === "Go")!;
    expect(go).toMatchObject({ status: "published", free: true });
    expect(s.writes.map((w) => w.call)).toEqual([
      "POST courses",
      "POST chapters",
      "POST chapters",
      "POST chapters",
    ]);
    expect(s.writes[0]!.body).toEqual({ course: { title: "Go", status: 1, free: true } });
    const chapterBodies = s.writes.slice(1).map((w) => w.body);
    expect(chapterBodies).toContainEqual({
      chapter: { title: "A Tour", ordinal: 1, content: "<p>Go!</p>", course_id: go.id },
    });
    expect(chapterBodies).toContainEqual({
      chapter: { title: "Venv", ordinal: 2, content: "<p>venv</p>", course_id: s.ids.py },
    });

    const chapters = s.emulator.state.dump().chapters;
    const tour = chapters.find((c) => c.title === "A Tour")!;
    const venv = chapters.find((c) => c.title === "Venv")!;
    expect(tour.course_id).toBe(go.id);
    // The id is written into the file; every other byte is kept (CRLF, comments).
    expect(await s.read("courses/go/01-tour.md")).toBe(
      `---\nid: ${tour.id}\ntitle: A Tour\nordinal: 1\nformat: html\n---\n<p>Go!</p>\n`,
    );
    expect(await s.read("courses/python/02-venv.md")).toBe(
      `---\r\nid: ${venv.id}\r\ntitle: Venv\r\nordinal: 2\r\nformat: html\r\n---\r\n<p>venv</p>\r\n`,
    );
    // Fields the site filled in (excerpt, questions_enabled) come into course.yaml.
    expect(await s.read("courses/go/course.yaml")).toBe(
      `id: ${go.id}\ntitle: Go\nstatus: published\nexcerpt: ""\nfree: true\nquestions_enabled: false\nscheduled_at: null\npublished_at: null\n`,
    );

    // Nothing is pending and a second push sends nothing.
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
    s.emulator.state.clearRequests();
    const again = await s.cli("push", "--yes");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Nothing to push");
    expect(s.emulator.state.requests).toEqual([]);
  });

  it("sends only the changed fields in each PATCH, and nothing for a body that did not change", async () => {
    const s = await setup();
    await s.write(
      WEB,
      (await s.read(WEB))
        .replace("title: Web Foundations", "title: Web Basics")
        .replace("free: true", "free: false"),
    );
    await s.write(HELLO, (await s.read(HELLO)).replace("ordinal: 1", "ordinal: 3"));
    await s.write(CSS, (await s.read(CSS)).replace("<p>two</p>", "<p>TWO</p>"));
    await s.write(SETUP, (await s.read(SETUP)).replace("title: Setup", "title: Installing"));

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('title: "Web Foundations" -> "Web Basics"');
    expect(result.stdout).toContain("free: true -> false");
    expect(result.stdout).toContain("ordinal: 1 -> 3");
    expect(result.stdout).toContain("body changed");
    expect(result.stdout).toContain("Pushed: 4 updated.");
    // Updates go out side by side: in any order.
    expect(byCall(s.writes)).toEqual(
      byCall([
        { call: `PATCH courses/${s.ids.web}`, body: { course: { free: false, title: "Web Basics" } } },
        { call: `PATCH chapters/${s.ids.hello}`, body: { chapter: { ordinal: 3 } } },
        { call: `PATCH chapters/${s.ids.css}`, body: { chapter: { content: "<p>one</p>\n<p>TWO</p>" } } },
        { call: `PATCH chapters/${s.ids.setup}`, body: { chapter: { title: "Installing" } } },
      ]),
    );
    // Each record to change is read twice, and no list: once for the plan checked before the
    // question, once just before its own write.
    const records = [
      `/api/v1/chapters/${s.ids.css}`,
      `/api/v1/chapters/${s.ids.hello}`,
      `/api/v1/chapters/${s.ids.setup}`,
      `/api/v1/courses/${s.ids.web}`,
    ];
    expect(gets(s)).toEqual([...records, ...records].sort());
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("moves a chapter to another course folder with a PATCH of course_id, into a course created first", async () => {
    const s = await setup();
    // git mv into another course folder, and into a course folder made in the same push.
    await s.write("courses/web-foundations/03-setup.md", await s.read(SETUP));
    await rm(s.file(SETUP));
    await rm(s.file(CSS));
    await s.write("courses/new-home/course.yaml", "title: New Home\n");
    await s.write(
      "courses/new-home/02-css.md",
      `---\nid: ${s.ids.css}\ntitle: CSS\nordinal: 2\nformat: html\n---\n<p>one</p>\n<p>two</p>\n`,
    );

    const status = await s.cli("status");
    expect(status.stdout).toMatch(
      /moved\s+courses\/web-foundations\/03-setup\.md .*from courses\/python\/01-setup\.md/,
    );
    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`moved to course ${s.ids.web}`);
    const home = s.emulator.state.dump().courses.find((c) => c.title === "New Home")!;
    expect(s.writes[0]).toEqual({ call: "POST courses", body: { course: { title: "New Home", status: 0 } } });
    expect(byCall(s.writes.slice(1))).toEqual(
      byCall([
        { call: `PATCH chapters/${s.ids.css}`, body: { chapter: { course_id: home.id } } },
        { call: `PATCH chapters/${s.ids.setup}`, body: { chapter: { course_id: s.ids.web } } },
      ]),
    );
    expect(s.emulator.state.get("chapters", s.ids.setup)?.course_id).toBe(s.ids.web);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("deletes chapters, then the course, only for what the snapshot knows and the tree lost", async () => {
    const s = await setup({ pageSize: 2 });
    // A chapter made on the site after the pull: not in the snapshot, so never deleted by push.
    const later = ok(
      s.emulator.state.createChapter({ chapter: { course_id: s.ids.py, title: "Later", content: "" } }),
    ).id;
    s.emulator.state.clearRequests();
    s.writes.length = 0;
    await rm(s.file(HELLO));
    await rm(s.file("courses/web-foundations"), { recursive: true });

    const result = await s.cli("push", "--yes", "--max-delete", "3");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Pushed: 3 deleted.");
    const deletes = s.emulator.state.requests.filter((r) => r.method === "DELETE").map((r) => r.path);
    // The chapters (side by side, in any order), then their course.
    expect([...deletes.slice(0, 2).sort(), deletes[2]]).toEqual([
      ...[`/api/v1/chapters/${s.ids.hello}`, `/api/v1/chapters/${s.ids.css}`].sort(),
      `/api/v1/courses/${s.ids.web}`,
    ]);
    expect(s.writes).toEqual([]);
    expect(s.emulator.state.get("chapters", later)).toBeDefined();
    expect(s.emulator.state.get("chapters", s.ids.setup)).toBeDefined();
    const snapshot = await s.snapshot();
    expect(Object.keys(snapshot.courses)).toEqual([String(s.ids.py)]);
    expect(Object.keys(snapshot.chapters)).toEqual([String(s.ids.setup)]);
  });
});

describe("push needs the last sync", () => {
  it("refuses without a snapshot, or with one made for another site, before any request", async () => {
    const s = await setup();
    await s.write(HELLO, (await s.read(HELLO)).replace("title: Hello HTML", "title: Changed"));
    const siteFile = s.file(".coursesync/production/site.json");
    await writeFile(
      siteFile,
      (await readFile(siteFile, "utf8")).replace(s.emulator.baseUrl, "https://other.example/api/v1"),
    );
    const other = await s.cli("push", "--yes");
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("the snapshot was made for https://other.example/api/v1");
    await rm(s.file(".coursesync/production"), { recursive: true });
    const missing = await s.cli("push", "--yes");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no snapshot for site "production": push needs a pull first');
    expect(s.emulator.state.requests).toEqual([]);
  });
});

describe("push: confirmation, dry run, JSON, paths", () => {
  async function edited() {
    const s = await setup();
    await s.write(HELLO, (await s.read(HELLO)).replace("title: Hello HTML", "title: Hello, HTML"));
    await s.write("courses/python/02-more.md", "---\ntitle: More\nordinal: 2\nformat: html\n---\n<p>m</p>\n");
    await rm(s.file(CSS));
    const before = await readTree(s.root, [".coursesync/cache"]);
    return { ...s, before };
  }

  it("without a terminal and without --yes, prints the plan, sends nothing and exits 3", async () => {
    const s = await edited();
    const result = await s.cli("push");
    expect(result.code).toBe(3);
    expect(result.stdout).toContain("1 to create, 1 to update, 1 to delete");
    expect(result.stdout).toMatch(/\+ create chapter\s+courses\/python\/02-more\.md/);
    expect(result.stdout).toMatch(
      /~ update chapter \d+\s+courses\/web-foundations\/01-hello-html\.md {2}title: "Hello HTML" -> "Hello, HTML"/,
    );
    expect(result.stdout).toMatch(/- delete chapter \d+\s+courses\/web-foundations\/02-css\.md/);
    expect(result.stdout).toContain("Run again with --yes");
    // The printed plan is the checked one: the records it changes were read, nothing was sent.
    expect(s.writeRequests()).toEqual([]);
    expect(gets(s)).toEqual([`/api/v1/chapters/${s.ids.css}`, `/api/v1/chapters/${s.ids.hello}`].sort());
    expect(await readTree(s.root, [".coursesync/cache"])).toEqual(s.before);
  });

  it("on a terminal asks once; no sends nothing, yes applies", async () => {
    const s = await edited();
    const asked: string[] = [];
    const refuse = await runCli(["push"], {
      cwd: s.root,
      env: s.env,
      tty: true,
      prompts: {
        confirm: async (message) => {
          asked.push(message);
          return false;
        },
      },
    });
    expect(asked).toEqual([`Apply 3 writes to ${s.emulator.baseUrl}?`]);
    expect(refuse.stdout).toContain("Nothing was sent.");
    expect(refuse.code).toBe(3);
    expect(s.writeRequests()).toEqual([]);
    expect(await readTree(s.root, [".coursesync/cache"])).toEqual(s.before);

    const accept = await runCli(["push"], {
      cwd: s.root,
      env: s.env,
      tty: true,
      prompts: { confirm: async () => true },
    });
    expect(accept.code).toBe(0);
    expect(accept.stdout).toContain("Pushed: 1 created, 1 updated, 1 deleted.");
    expect(s.writeRequests().map((r) => r.method)).toEqual(["POST", "PATCH", "DELETE"]);
  });

  it("--dry-run prints the checked plan, sends no write and writes no byte, and needs no confirmation", async () => {
    const s = await edited();
    // Every byte under the root, the uncommitted cache included.
    const all = await readTree(s.root);
    const result = await s.cli("push", "--dry-run");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Dry run");
    expect(result.stdout).toContain("would send 3 writes: 1 to create, 1 to update, 1 to delete");
    expect(s.writeRequests()).toEqual([]);
    expect(gets(s)).toEqual([`/api/v1/chapters/${s.ids.css}`, `/api/v1/chapters/${s.ids.hello}`].sort());
    expect(await readTree(s.root)).toEqual(all);
    const json = await s.cli("push", "--dry-run", "--json");
    expect(JSON.parse(json.stdout)).toMatchObject({ dry_run: true, applied: false, counts: { created: 0 } });
    expect(s.writeRequests()).toEqual([]);
  });

  it("-n is --dry-run: the same checked plan, no write, no byte written", async () => {
    const s = await edited();
    const all = await readTree(s.root);
    const short = await s.cli("push", "-n");
    expect(short.code).toBe(0);
    expect(short.stdout).toContain("would send 3 writes: 1 to create, 1 to update, 1 to delete");
    expect(s.writeRequests()).toEqual([]);
    expect(await readTree(s.root)).toEqual(all);
    const long = await s.cli("push", "--dry-run");
    expect(short.stdout).toBe(long.stdout);
  });

  it("--json prints one JSON document on stdout and nothing else", async () => {
    const s = await edited();
    const refused = await s.cli("push", "--json");
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.stdout)).toMatchObject({ command: "push", applied: false });

    const result = await s.cli("push", "--json", "--yes");
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      command: "push",
      site: s.emulator.baseUrl,
      dry_run: false,
      applied: true,
      counts: { created: 1, updated: 1, deleted: 1, conflict: 0, failed: 0 },
      conflicts: [],
      errors: [],
    });
    expect(doc.plan).toEqual([
      { type: "create", kind: "chapter", id: null, path: "courses/python/02-more.md" },
      { type: "update", kind: "chapter", id: s.ids.hello, path: HELLO, fields: ["title"] },
      { type: "delete", kind: "chapter", id: s.ids.css, path: CSS },
    ]);
    expect(doc.changes).toEqual([
      expect.objectContaining({ kind: "chapter", outcome: "created", path: "courses/python/02-more.md" }),
      { kind: "chapter", id: s.ids.hello, path: HELLO, outcome: "updated", fields: ["title"] },
      { kind: "chapter", id: s.ids.css, path: CSS, outcome: "deleted" },
    ]);
    expect(result.stdout.trim().startsWith("{")).toBe(true);
    expect(result.stdout.trim().endsWith("}")).toBe(true);
  });

  it("push [paths...] sends only what is under the given files or folders", async () => {
    const s = await edited();
    const onlyPython = await s.cli("push", "--yes", "courses/python");
    expect(onlyPython.code).toBe(0);
    expect(onlyPython.stdout).toContain("Pushed: 1 created.");
    expect(s.writes.map((w) => w.call)).toEqual(["POST chapters"]);

    s.writes.length = 0;
    const oneFile = await runCli(["push", "--yes", "01-hello-html.md"], {
      cwd: s.file("courses/web-foundations"),
      env: s.env,
    });
    expect(oneFile.code).toBe(0);
    expect(s.writes).toEqual([
      { call: `PATCH chapters/${s.ids.hello}`, body: { chapter: { title: "Hello, HTML" } } },
    ]);
    // The delete outside those paths is still pending.
    const status = await s.cli("status", "--json");
    expect(JSON.parse(status.stdout).entries).toEqual([
      { kind: "chapter", id: s.ids.css, path: CSS, state: "deleted" },
    ]);
    // A deleted file is a path too (its delete); a typo is said as such, never "nothing to do".
    s.writes.length = 0;
    expect((await s.cli("status", "--exit-code", CSS)).code).toBe(1);
    for (const args of [["status"], ["diff"], ["push", "--yes"]]) {
      const result = await s.cli(...args, "courses/web-fundations");
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(
        "courses/web-fundations: no such file or folder in the tree, and the last sync knew none there",
      );
    }
    expect(s.writes).toEqual([]);
  });

  it("the lock stops a second process on the same tree, and nothing is sent", async () => {
    const s = await edited();
    const release = await acquireLock(s.root, "production", "pull");
    try {
      const result = await s.cli("push", "--yes");
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /the tree is busy: coursesync pull \(pid \d+ on .*\) holds .*production\.lock/,
      );
      expect(s.writeRequests()).toEqual([]);
      expect(
        await readTree(s.root, [
          ".coursesync/cache",
          ".coursesync/production.lock",
          ".coursesync/production.lock.holder",
        ]),
      ).toEqual(s.before);
    } finally {
      await release();
    }
    const after = await s.cli("push", "--yes");
    expect(after.code).toBe(0);
  });
});
