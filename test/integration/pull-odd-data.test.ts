import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { initTree, pulledSite, recordPatches } from "../helpers/site.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

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

const T = "2026-01-01T00:00:00+00:00";

/** A site whose records hold nulls, missing fields and values of other types than the API's. */
const ODD = {
  courses: [
    {
      id: 1,
      title: null,
      slug: "odd",
      status: "published",
      excerpt: 5,
      free: "yes",
      questions_enabled: null,
      scheduled_at: 7,
      published_at: null,
      created_at: T,
      updated_at: T,
    },
    { id: 2, title: "Two", slug: "two", status: null, created_at: T, updated_at: T },
  ],
  chapters: [
    { id: 10, course_id: 1, title: "Null content", content: null, ordinal: 1, created_at: T, updated_at: T },
    { id: 11, course_id: 1, title: null, ordinal: 2, created_at: T, updated_at: T },
    { id: 12, course_id: 2, title: 12, content: 42, ordinal: "3", created_at: T, updated_at: T },
    {
      id: 13,
      course_id: 2,
      title: "No ordinal",
      content: "<p>x</p>",
      ordinal: null,
      created_at: T,
      updated_at: T,
    },
  ],
  events: [],
};

describe("pull from a site with nulls, missing fields and odd values", () => {
  async function oddSite() {
    const emulator = await start({ seedDir: null });
    expect(emulator.state.reset(ODD).ok).toBe(true);
    const tree = await initTree(emulator);
    const cli = (...args: string[]) => runCli(args, { cwd: tree.root, env: tree.env });
    const file = (rel: string) => path.join(tree.root, rel);
    const first = await cli("pull");
    expect(first.code, first.stderr).toBe(0);
    return { emulator, tree, cli, file, read: (rel: string) => readFile(file(rel), "utf8") };
  }

  it("mirrors every value as the site has it, sends nothing back, and pulls again as a fixed point", async () => {
    const site = await oddSite();
    expect(await site.read("courses/odd/course.yaml")).toBe(
      "id: 1\ntitle: null\nstatus: published\nexcerpt: 5\nfree: yes\nquestions_enabled: null\nscheduled_at: 7\npublished_at: null\n",
    );
    expect(await site.read("courses/two/course.yaml")).toBe(
      "id: 2\ntitle: Two\nstatus: null\nexcerpt: null\nfree: null\nquestions_enabled: null\nscheduled_at: null\npublished_at: null\n",
    );
    expect(await site.read("courses/odd/01-null-content.md")).toBe(
      "---\nid: 10\ntitle: Null content\nordinal: 1\ncontent: null\n---\n\n",
    );
    expect(await site.read("courses/odd/02-chapter-11.md")).toBe(
      "---\nid: 11\ntitle: null\nordinal: 2\ncontent: null\n---\n\n",
    );
    expect(await site.read("courses/two/03-chapter-12.md")).toBe(
      '---\nid: 12\ntitle: 12\nordinal: "3"\ncontent: 42\n---\n\n',
    );
    expect(await site.read("courses/two/00-no-ordinal.md")).toBe(
      "---\nid: 13\ntitle: No ordinal\nordinal: null\n---\nx\n",
    );

    const before = await readTree(site.tree.root);
    const status = await site.cli("status", "--exit-code");
    expect(status.code, status.stdout + status.stderr).toBe(0);
    site.emulator.state.clearRequests();
    const push = await site.cli("push", "--yes");
    expect(push.code, push.stderr).toBe(0);
    expect(site.emulator.state.requests.filter((r) => r.method !== "GET" && r.path !== "/api/login")).toEqual(
      [],
    );
    const again = await site.cli("pull");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/no changes; wrote 0 files/);
    expect(await readTree(site.tree.root)).toEqual(before);
    expect(site.emulator.state.dump().chapters.find((c) => c.id === 10)?.content).toBeNull();
  });

  it("sends only what was changed here, with the API's types; an odd value changed here is refused", async () => {
    const site = await oddSite();
    const patches = recordPatches(site.emulator);
    const edit = async (rel: string, from: string, to: string) =>
      writeFile(site.file(rel), (await site.read(rel)).replace(from, to));
    await edit("courses/odd/course.yaml", "free: yes", "free: true");
    await edit("courses/two/03-chapter-12.md", "title: 12", "title: Twelve");
    // A body given to a chapter whose content was null: the content: line goes.
    await edit("courses/odd/01-null-content.md", "content: null\n---\n", "---\nNow with text\n");
    const push = await site.cli("push", "--yes");
    expect(push.code, push.stderr).toBe(0);
    expect(patches.sort((a, b) => (a.call < b.call ? -1 : 1))).toEqual([
      { call: "chapters/10", body: { chapter: { content: "<p>Now with text</p>\n" } } },
      { call: "chapters/12", body: { chapter: { title: "Twelve" } } },
      { call: "courses/1", body: { course: { free: true } } },
    ]);

    // A number for a title, a body beside `content:`, and `content:` on a chapter with text:
    // each named with its line; nothing is sent.
    await edit("courses/two/03-chapter-12.md", "title: Twelve", "title: 13");
    await edit("courses/odd/02-chapter-11.md", "---\n\n", "---\nsome text\n");
    await edit("courses/two/00-no-ordinal.md", "ordinal: null\n", "ordinal: null\ncontent: null\n");
    await edit("courses/two/00-no-ordinal.md", "\nx\n", "\n\n");
    site.emulator.state.clearRequests();
    const refused = await site.cli("push", "--yes");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /courses\/two\/03-chapter-12\.md:3: title must be text, not the number 13/,
    );
    expect(refused.stderr).toMatch(
      /courses\/odd\/02-chapter-11\.md:5: the file has both a body and a `content:` line/,
    );
    expect(refused.stderr).toMatch(
      /courses\/two\/00-no-ordinal\.md:5: content: null can only mirror what the site has/,
    );
    expect(site.emulator.state.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });
});
