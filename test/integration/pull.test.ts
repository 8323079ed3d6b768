import { existsSync } from "node:fs";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { parseChapterFile } from "../../src/tree/chapter-file.js";
import { sha256 } from "../../src/util/hash.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { addChapter, addCourse, cliEnv, edit, stamps, writeConfig } from "../helpers/site.js";
import { readSnapshot as readLoaded, snapshotFiles } from "../helpers/snapshot.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const SKIP = [".coursesync/cache"];

/** An emulator, a folder for trees, and a CLI bound to them. */
async function setup(options: EmulatorOptions = {}) {
  const emulator = await start({ seedDir: null, admin: true, now: manualClock().now, ...options });
  const dir = await testdir();
  const env = cliEnv(dir);
  /** A fresh tree: coursesync.yaml for the emulator, bodies kept as HTML. */
  const tree = async (name = "tree") => {
    const root = path.join(dir, name);
    await writeConfig(root, emulator.baseUrl);
    return root;
  };
  const pull = (root: string, ...args: string[]) => runCli(["pull", ...args], { cwd: root, env });
  return { emulator, dir, env, tree, pull };
}

const TRICKY = '<h2>Tricky</h2>\r\n<p>a &amp; b &lt;c&gt; "q"</p>\n\n<pre>  keep\n\tthis\n</pre>\n\n';

/** Two courses, three chapters, one with HTML that must survive byte for byte. */
function seed(emulator: TestEmulator) {
  const web = addCourse(emulator, {
    title: "Web Foundations",
    status: 1,
    excerpt: "HTML & CSS: the basics",
    free: true,
    scheduled_at: "2026-03-01T09:30:00.000+05:30",
    published_at: "2026-02-03T09:00:00.000+00:00",
  });
  const py = addCourse(emulator, { title: "Python", excerpt: "Snakes" });
  const hello = addChapter(emulator, { course_id: web, title: "Hello HTML", ordinal: 1, content: TRICKY });
  const css = addChapter(emulator, {
    course_id: web,
    title: "CSS",
    ordinal: 2,
    content: "<p>one</p>\n<p>two</p>\n<p>three</p>",
  });
  const setupCh = addChapter(emulator, { course_id: py, title: "Setup", ordinal: 1, content: "<p>pip</p>" });
  return { web, py, hello, css, setup: setupCh };
}

/** Keys sorted at every depth, as deterministic JSON has them. */
function expectSortedKeys(value: unknown, where = "$"): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) expectSortedKeys(item, `${where}[${i}]`);
  } else if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    expect(keys, where).toEqual([...keys].sort());
    for (const key of keys) expectSortedKeys((value as Record<string, unknown>)[key], `${where}.${key}`);
  }
}

interface SnapshotFile {
  version: number;
  site: string;
  courses: Record<string, { path: string; hash: string; record: Record<string, unknown> }>;
  chapters: Record<string, { path: string; hash: string; record: Record<string, unknown> }>;
}

async function readSnapshot(root: string): Promise<SnapshotFile> {
  return (await readLoaded(root)) as unknown as SnapshotFile;
}

describe("pull: the tree and the snapshot", () => {
  it("pages both lists through the gate and writes courses/<slug>/ with HTML bodies verbatim", async () => {
    const { emulator, tree, pull } = await setup({ pageSize: 2, latencyMs: 5 });
    const ids = seed(emulator);
    const root = await tree();
    const result = await pull(root);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /pulled 2 courses and 3 chapters in \d+ requests; 5 created; wrote 5 files/,
    );

    const files = await readTree(root, [".coursesync", "coursesync.yaml"]);
    expect(Object.keys(files)).toEqual([
      "courses/python/01-setup.md",
      "courses/python/course.yaml",
      "courses/web-foundations/01-hello-html.md",
      "courses/web-foundations/02-css.md",
      "courses/web-foundations/course.yaml",
    ]);
    expect(files["courses/web-foundations/01-hello-html.md"]).toBe(
      `---\nid: ${ids.hello}\ntitle: Hello HTML\nordinal: 1\nformat: html\n---\n${TRICKY}\n`,
    );
    expect(files["courses/web-foundations/course.yaml"]).toBe(
      [
        `id: ${ids.web}`,
        "title: Web Foundations",
        "status: published",
        'excerpt: "HTML & CSS: the basics"',
        "free: true",
        "questions_enabled: false",
        "scheduled_at: 2026-03-01T09:30:00.000+05:30",
        "published_at: 2026-02-03T09:00:00.000+00:00",
        "",
      ].join("\n"),
    );

    // Only list pages (and the login): no per-record GET; both lists start together.
    const log = emulator.state.requests;
    expect(log[0]).toMatchObject({ method: "POST", path: "/api/login" });
    for (const entry of log.slice(1)) {
      expect(entry.method).toBe("GET");
      expect(entry.path).toMatch(/^\/api\/v1\/(courses|chapters)$/);
      expect(entry.query).toMatch(/^page=\d+$/);
    }
    expect(new Set(log.slice(1, 3).map((e) => `${e.path}?${e.query}`))).toEqual(
      new Set(["/api/v1/courses?page=1", "/api/v1/chapters?page=1"]),
    );
    // The list pages plus at most one look-ahead window (the concurrency) per list.
    const count = (list: string) => log.filter((e) => e.path === `/api/v1/${list}`).length;
    expect(count("courses")).toBeLessThanOrEqual(2 + 4);
    expect(count("chapters")).toBeLessThanOrEqual(3 + 4);
  });

  it("keeps every field the server sent, byte-exact, sorted, with the hash of each file as written", async () => {
    const { emulator, tree, pull } = await setup();
    const ids = seed(emulator);
    // Fields the tool does not know, and timestamps in other offsets, as another user of the site.
    const edited = await emulator.admin("POST", "/edit", {
      resource: "courses",
      id: ids.web,
      fields: {
        marketing: { tags: ["b", "a"], zeta: 1, alpha: { y: 2, x: 1 } },
        created_at: "2026-03-01T09:30:00.000+05:30",
        updated_at: "2026-03-01T09:30:00.123456+05:30",
        published_at: "2026-02-28T23:59:59.999-08:00",
        status: "scheduled",
      },
    });
    expect(edited.status).toBe(200);
    edit(emulator, "chapters", ids.css, { video_url: null, created_at: "2026-03-01T09:30:00.000+05:30" });
    const root = await tree();
    expect((await pull(root)).code).toBe(0);

    // Each file of the snapshot folder: sorted keys, one value per line, a final newline.
    const folder = snapshotFiles(await readTree(root));
    expect(Object.keys(folder)).toContain(".coursesync/production/site.json");
    for (const [file, text] of Object.entries(folder)) {
      expect(text.endsWith("}\n"), file).toBe(true);
      expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
      expectSortedKeys(JSON.parse(text), file);
    }
    const snapshot = await readSnapshot(root);
    expect(snapshot.site).toBe(emulator.baseUrl);
    expect(Object.keys(snapshot.courses).sort()).toEqual([String(ids.web), String(ids.py)].sort());

    for (const [id, entry] of Object.entries(snapshot.courses)) {
      expect(entry.record).toEqual(emulator.state.get("courses", Number(id)));
      const bytes = await readFile(path.join(root, entry.path, "course.yaml"));
      expect(entry.hash).toBe(sha256(bytes));
    }
    for (const [id, entry] of Object.entries(snapshot.chapters)) {
      const { content, ...rest } = emulator.state.get("chapters", Number(id))!;
      expect(entry.record).toEqual({ ...rest, content_sha256: sha256(content) });
      expect(entry.hash).toBe(sha256(await readFile(path.join(root, entry.path))));
    }
    const web = snapshot.courses[ids.web]!.record;
    expect(web.marketing).toEqual({ tags: ["b", "a"], zeta: 1, alpha: { y: 2, x: 1 } });
    expect(web.created_at).toBe("2026-03-01T09:30:00.000+05:30");
    expect(web.updated_at).toBe("2026-03-01T09:30:00.123456+05:30");
    expect(snapshot.chapters[ids.css]!.record).toHaveProperty("video_url", null);

    // The files hold the editable fields only, timestamps exactly as sent.
    const courseYaml = await readFile(path.join(root, "courses/web-foundations/course.yaml"), "utf8");
    expect(courseYaml).toContain("status: scheduled\n");
    expect(courseYaml).toContain("published_at: 2026-02-28T23:59:59.999-08:00\n");
    expect(courseYaml).not.toMatch(/marketing|created_at|updated_at|slug/);
    expect(parseYaml(courseYaml, { schema: "core" })).toMatchObject({
      scheduled_at: "2026-03-01T09:30:00.000+05:30",
      published_at: "2026-02-28T23:59:59.999-08:00",
    });
  });

  it("gives byte-identical trees for the same remote", async () => {
    const { emulator, tree, pull } = await setup({ pageSize: 2 });
    seed(emulator);
    const a = await tree("a");
    const b = await tree("b");
    expect((await pull(a)).code).toBe(0);
    expect((await pull(b)).code).toBe(0);
    expect(await readTree(b, SKIP)).toEqual(await readTree(a, SKIP));
  });
});

describe("pull: incremental", () => {
  it("writes no file when nothing changed on the site, and says so", async () => {
    const { emulator, tree, pull } = await setup();
    seed(emulator);
    const root = await tree();
    expect((await pull(root)).code).toBe(0);
    const before = await stamps(root);
    const again = await pull(root);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/no changes; wrote 0 files \(already up to date\)/);
    expect(await stamps(root)).toEqual(before);
    const json = await pull(root, "--json");
    expect(JSON.parse(json.stdout)).toMatchObject({ files_written: 0, changes: [], conflicts: [] });
    expect(await stamps(root)).toEqual(before);
  });

  it("rewrites only what changed, renaming files on a remote title or ordinal change", async () => {
    const { emulator, tree, pull } = await setup();
    const ids = seed(emulator);
    const root = await tree();
    expect((await pull(root)).code).toBe(0);
    const before = await stamps(root);
    const untouched = "courses/python/01-setup.md";

    edit(emulator, "chapters", ids.hello, { title: "Hello, World" });
    edit(emulator, "chapters", ids.css, { ordinal: 5 });
    const result = await pull(root);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "courses/web-foundations/01-hello-world.md  (chapter 1; from courses/web-foundations/01-hello-html.md; [title])",
    );
    const files = await readTree(root, [".coursesync", "coursesync.yaml"]);
    expect(Object.keys(files)).toEqual([
      "courses/python/01-setup.md",
      "courses/python/course.yaml",
      "courses/web-foundations/01-hello-world.md",
      "courses/web-foundations/05-css.md",
      "courses/web-foundations/course.yaml",
    ]);
    expect(files["courses/web-foundations/05-css.md"]).toContain("\nordinal: 5\n");
    expect(files["courses/web-foundations/01-hello-world.md"]).toContain(`---\n${TRICKY}\n`);
    const after = await stamps(root);
    expect(after[untouched]).toBe(before[untouched]);
    expect(after["courses/web-foundations/course.yaml"]).toBe(before["courses/web-foundations/course.yaml"]);
    const snapshot = await readSnapshot(root);
    expect(snapshot.chapters[ids.css]!.path).toBe("courses/web-foundations/05-css.md");

    // A new slug on the site moves the course folder; its chapters are not rewritten.
    edit(emulator, "courses", ids.py, { slug: "python-3" });
    const moved = await pull(root);
    expect(moved.code).toBe(0);
    const renamed = await stamps(root);
    expect(renamed["courses/python-3/01-setup.md"]).toBe(before[untouched]);
    expect(renamed[untouched]).toBeUndefined();
    expect((await readSnapshot(root)).chapters[ids.setup]!.path).toBe("courses/python-3/01-setup.md");
  });

  it("swaps two files' names through temporary names that no file of the author's has", async () => {
    const { emulator, tree, pull } = await setup();
    const ids = seed(emulator);
    const root = await tree();
    expect((await pull(root)).code).toBe(0);
    const folder = path.join(root, "courses/web-foundations");
    // The author's own files, named as the temporary names would be.
    const mine = "---\ntitle: Mine\nordinal: 9\n---\n\nnot pushed yet\n";
    await writeFile(path.join(folder, "01-hello-html.moving.md"), mine);
    await writeFile(path.join(folder, "02-css.moving.md"), mine);

    edit(emulator, "chapters", ids.hello, { title: "CSS", ordinal: 2 });
    edit(emulator, "chapters", ids.css, { title: "Hello HTML", ordinal: 1 });
    expect((await pull(root)).code).toBe(0);
    const files = await readTree(folder);
    expect(Object.keys(files).sort()).toEqual([
      "01-hello-html.md",
      "01-hello-html.moving.md",
      "02-css.md",
      "02-css.moving.md",
      "course.yaml",
    ]);
    expect(files["01-hello-html.moving.md"]).toBe(mine);
    expect(files["02-css.moving.md"]).toBe(mine);
    expect(files["01-hello-html.md"]).toContain(`id: ${ids.css}\n`);
    expect(files["02-css.md"]).toContain(`id: ${ids.hello}\n`);
  });
});

describe("pull: three-way, never losing a local edit", () => {
  it("keeps local edits, merges remote ones, and reports both-sides changes as conflicts (exit 3)", async () => {
    const { emulator, tree, pull } = await setup();
    const ids = seed(emulator);
    const root = await tree();
    expect((await pull(root)).code).toBe(0);
    const file = (rel: string) => path.join(root, "courses", rel);
    const change = async (rel: string, from: string, to: string) => {
      const text = await readFile(file(rel), "utf8");
      expect(text).toContain(from);
      await writeFile(file(rel), text.replace(from, to));
    };

    // Local: a body edit, an excerpt edit, a title edit, and an edit to a course the site changes too.
    await change("web-foundations/01-hello-html.md", "<h2>Tricky</h2>", "<h2>Tricky, edited here</h2>");
    await change("web-foundations/course.yaml", 'excerpt: "HTML & CSS: the basics"', "excerpt: Mine");
    await change("web-foundations/02-css.md", "title: CSS", "title: CSS (mine)");
    await change("python/course.yaml", "excerpt: Snakes", "excerpt: Pythons (mine)");
    await change("python/01-setup.md", "<p>pip</p>", "<p>pip, edited here</p>");
    const localCss = await readFile(file("web-foundations/02-css.md"), "utf8");
    const localPy = await readFile(file("python/course.yaml"), "utf8");
    const localSetup = await readFile(file("python/01-setup.md"), "utf8");

    // Remote: a title (merged and renamed), a course flag (merged), and the same fields differently.
    edit(emulator, "chapters", ids.hello, { title: "Hello HTML5" });
    edit(emulator, "courses", ids.web, { free: false });
    edit(emulator, "chapters", ids.css, { title: "CSS (theirs)" });
    edit(emulator, "courses", ids.py, { excerpt: "Pythons (theirs)" });

    const result = await pull(root);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/! conflict +courses\/web-foundations\/02-css\.md .*\[title\]/);
    expect(result.stdout).toMatch(/! conflict +courses\/python .*\[excerpt\]/);
    expect(result.stdout).toContain("2 conflicts: your files were left as they are");

    // Merged: local body edit plus the site's new title, under the new name.
    const hello = await readFile(file("web-foundations/01-hello-html5.md"), "utf8");
    expect(hello).toContain("title: Hello HTML5\n");
    expect(hello).toContain("<h2>Tricky, edited here</h2>");
    const webYaml = await readFile(file("web-foundations/course.yaml"), "utf8");
    expect(webYaml).toContain("excerpt: Mine\nfree: false\n");
    // Conflicts: the local files as they were, the site's versions beside them.
    expect(await readFile(file("web-foundations/02-css.md"), "utf8")).toBe(localCss);
    expect(await readFile(file("web-foundations/02-css.remote.md"), "utf8")).toContain(
      "title: CSS (theirs)\n",
    );
    expect(await readFile(file("python/course.yaml"), "utf8")).toBe(localPy);
    expect(await readFile(file("python/course.remote.yaml"), "utf8")).toContain(
      "excerpt: Pythons (theirs)\n",
    );
    // A local edit the site did not touch stays as it is.
    expect(await readFile(file("python/01-setup.md"), "utf8")).toBe(localSetup);

    // Running again changes nothing and still reports the conflicts.
    const before = await stamps(root);
    const again = await pull(root);
    expect(again.code).toBe(3);
    expect(await stamps(root)).toEqual(before);

    // --theirs takes the site's side explicitly and clears the copies; merges stay.
    const theirs = await pull(root, "--theirs");
    expect(theirs.code).toBe(0);
    const files = await readTree(path.join(root, "courses"));
    expect(Object.keys(files).filter((f) => f.includes(".remote."))).toEqual([]);
    expect(files["web-foundations/02-css.md"]).toBeUndefined();
    expect(files["web-foundations/02-css-theirs.md"]).toContain("title: CSS (theirs)\n");
    expect(files["python/course.yaml"]).toContain("excerpt: Pythons (theirs)\n");
    expect(files["python/01-setup.md"]).toBe(localSetup);
    expect(files["web-foundations/01-hello-html5.md"]).toContain("<h2>Tricky, edited here</h2>");
    expect((await pull(root)).code).toBe(0);
  });

  it("merges bodies edited on both sides from the cached base, and without the cache keeps both", async () => {
    const { emulator, dir, env, tree, pull } = await setup();
    const ids = seed(emulator);
    const root = await tree();
    expect((await pull(root)).code).toBe(0);
    const css = path.join(root, "courses/web-foundations/02-css.md");
    const setupFile = "courses/python/01-setup.md";
    // A clone of the committed files: the snapshot, but no content cache.
    const clone = path.join(dir, "clone");
    await cp(root, clone, { recursive: true, filter: (src) => !src.includes(`${path.sep}cache`) });
    expect(existsSync(path.join(clone, ".coursesync/cache"))).toBe(false);

    for (const where of [root, clone]) {
      const file = path.join(where, "courses/web-foundations/02-css.md");
      await writeFile(file, (await readFile(file, "utf8")).replace("<p>one</p>", "<p>ONE, here</p>"));
      const other = path.join(where, setupFile);
      await writeFile(other, (await readFile(other, "utf8")).replace("title: Setup", "title: Set-up"));
    }
    edit(emulator, "chapters", ids.css, { content: "<p>one</p>\n<p>two</p>\n<p>THREE, there</p>" });
    edit(emulator, "chapters", ids.setup, { content: "<p>pip install</p>" });

    const merged = await pull(root);
    expect(merged.code).toBe(0);
    expect(await readFile(css, "utf8")).toContain("<p>ONE, here</p>\n<p>two</p>\n<p>THREE, there</p>\n");
    expect(await readFile(path.join(root, setupFile), "utf8")).toMatch(
      /title: Set-up\n.*\n<p>pip install<\/p>\n$/s,
    );

    // Without the base text a body edited on both sides cannot be merged: a conflict, nothing lost.
    const cloned = await runCli(["pull"], { cwd: clone, env });
    expect(cloned.code).toBe(3);
    expect(cloned.stdout).toMatch(/! conflict +courses\/web-foundations\/02-css\.md .*\[content\]/);
    expect(await readFile(path.join(clone, "courses/web-foundations/02-css.md"), "utf8")).toContain(
      "<p>ONE, here</p>\n<p>two</p>\n<p>three</p>",
    );
    expect(await readFile(path.join(clone, "courses/web-foundations/02-css.remote.md"), "utf8")).toContain(
      "<p>THREE, there</p>",
    );
    // A body changed only on the site still comes in beside the local title edit.
    expect(await readFile(path.join(clone, setupFile), "utf8")).toMatch(
      /title: Set-up\n.*\n<p>pip install<\/p>\n$/s,
    );
  });

  it("removes unedited files of records deleted on the site, keeps and reports edited ones, adds new ones", async () => {
    const { emulator, tree, pull } = await setup();
    const ids = seed(emulator);
    const root = await tree();
    expect((await pull(root)).code).toBe(0);
    const cssFile = path.join(root, "courses/web-foundations/02-css.md");
    const edited = (await readFile(cssFile, "utf8")).replace("<p>two</p>", "<p>two, edited here</p>");
    await writeFile(cssFile, edited);

    emulator.state.remove("chapters", ids.hello);
    emulator.state.remove("chapters", ids.css);
    // The site moves a course's last chapter elsewhere, then deletes the course.
    edit(emulator, "chapters", ids.setup, { course_id: ids.web, ordinal: 4 });
    emulator.state.remove("courses", ids.py);
    const rust = addCourse(emulator, { title: "Rust" });
    addChapter(emulator, { course_id: rust, title: "Ownership", content: "<p>mine, yours</p>" });
    addChapter(emulator, { course_id: ids.web, title: "Layout", ordinal: 3, content: "<p>grid</p>" });

    const result = await pull(root, "--max-delete", "10");
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(
      /! conflict +courses\/web-foundations\/02-css\.md .*deleted on the site, edited here/,
    );
    expect(result.stdout).toMatch(/- deleted +courses\/python /);
    expect(result.stdout).toMatch(/[,;] 1 conflict; wrote/);
    expect(Object.keys(await readTree(path.join(root, "courses")))).toEqual([
      "rust/01-ownership.md",
      "rust/course.yaml",
      "web-foundations/02-css.md",
      "web-foundations/03-layout.md",
      "web-foundations/04-setup.md",
      "web-foundations/course.yaml",
    ]);
    expect(await readFile(cssFile, "utf8")).toBe(edited);
    expect(existsSync(path.join(root, "courses/python"))).toBe(false);
    const snapshot = await readSnapshot(root);
    expect(Object.keys(snapshot.courses).map(Number).sort()).toEqual([ids.web, rust].sort());
    expect(snapshot.chapters[ids.hello]).toBeUndefined();
  });

  it("removes the folder of a deleted course along with its old conflict copies", async () => {
    const { emulator, tree, pull } = await setup();
    const ids = seed(emulator);
    const root = await tree();
    expect((await pull(root)).code).toBe(0);
    const yaml = path.join(root, "courses/python/course.yaml");
    const original = await readFile(yaml, "utf8");
    await writeFile(yaml, original.replace("excerpt: Snakes", "excerpt: Mine"));
    edit(emulator, "courses", ids.py, { excerpt: "Theirs" });
    expect((await pull(root)).code).toBe(3);
    expect(existsSync(path.join(root, "courses/python/course.remote.yaml"))).toBe(true);
    // The user gives up the local edit; then the site deletes the course.
    await writeFile(yaml, original);
    emulator.state.remove("courses", ids.py);
    const result = await pull(root, "--max-delete", "5");
    expect(result.code).toBe(0);
    expect(existsSync(path.join(root, "courses/python"))).toBe(false);
  });
});

describe("pull: names freed and taken in one pull", () => {
  it("keeps the files of records that take the names of records deleted on the site", async () => {
    const { emulator, tree, pull } = await setup();
    const ids = seed(emulator);
    const other = addChapter(emulator, { course_id: ids.web, title: "Other", ordinal: 3 });
    const old = addCourse(emulator, { title: "Old" });
    addChapter(emulator, { course_id: old, title: "Gone", ordinal: 1 });
    const root = await tree();
    expect((await pull(root)).code).toBe(0);

    // In one go the site replaces a chapter by a new one of the same name, gives another the
    // name of a deleted one, and hands a deleted course's slug to a new and a renamed course.
    emulator.state.remove("chapters", ids.hello);
    const replacement = addChapter(emulator, {
      course_id: ids.web,
      title: "Hello HTML",
      ordinal: 1,
      content: "<p>the new hello</p>",
    });
    emulator.state.remove("chapters", ids.css);
    edit(emulator, "chapters", other, { title: "CSS", ordinal: 2 });
    emulator.state.remove("courses", old);
    const rust = addCourse(emulator, { title: "Rust" });
    edit(emulator, "courses", rust, { slug: "old" });
    const ownership = addChapter(emulator, { course_id: rust, title: "Ownership", content: "<p>borrow</p>" });
    edit(emulator, "courses", ids.py, { slug: "old" });

    const result = await pull(root, "--max-delete", "10");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const snapshot = await readSnapshot(root);
    expect(
      Object.keys(snapshot.chapters)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([ids.setup, other, replacement, ownership].sort((a, b) => a - b));
    for (const [id, entry] of Object.entries(snapshot.chapters)) {
      expect(await readFile(path.join(root, entry.path), "utf8"), entry.path).toContain(`id: ${id}\n`);
    }
    expect(
      Object.keys(snapshot.courses)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([ids.web, ids.py, rust]);
    for (const [id, entry] of Object.entries(snapshot.courses)) {
      const text = await readFile(path.join(root, entry.path, "course.yaml"), "utf8");
      expect(text, entry.path).toContain(`id: ${id}\n`);
    }
    expect(await readFile(path.join(root, snapshot.chapters[replacement]!.path), "utf8")).toContain(
      "<p>the new hello</p>",
    );
    const again = await pull(root);
    expect(again.stdout).toMatch(/no changes; wrote 0 files/);
  });
});

describe("pull: names from whatever the server sends", () => {
  it("writes nothing outside the tree and gives each record a stable, safe file", async () => {
    const { emulator, dir, tree, pull } = await setup();
    const outside = addCourse(emulator, { title: "../../etc/passwd" });
    edit(emulator, "courses", outside, { slug: "../../../escape" });
    const con = addCourse(emulator, { title: "CON" });
    edit(emulator, "courses", con, { slug: "CON" });
    const emoji = addCourse(emulator, { title: "🎉🎉" });
    edit(emulator, "courses", emoji, { slug: "" });
    const long = "A very long title ".repeat(15).slice(0, 255);
    const titles = [
      "../../../x",
      "a/b\\c",
      "CON",
      "\u0000\u0001control\u001f",
      "🎉🎉",
      "日本語のチャプター",
      long,
      "Intro",
      "intro!",
      ".hidden",
    ];
    const chapterIds = titles.map((title, i) =>
      addChapter(emulator, { course_id: outside, title, ordinal: i < 8 ? i + 1 : 8, content: `<p>${i}</p>` }),
    );
    addChapter(emulator, { course_id: con, title: "x", content: "" });
    addChapter(emulator, { course_id: emoji, title: "🎉", content: "<p>🎉</p>" });

    const root = await tree();
    const result = await pull(root);
    expect(result.code).toBe(0);
    // Only the tree and the user config folder exist beside each other.
    const all = Object.keys(await readTree(dir));
    for (const file of all) expect(file).toMatch(/^(tree|config)\//);
    const files = await readTree(path.join(root, "courses"));
    for (const file of Object.keys(files)) {
      expect(file).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*\/(course\.yaml|\d{2}-[a-z0-9]+(-[a-z0-9]+)*\.md)$/);
      expect(file.split("/")[1]!.length).toBeLessThan(80);
    }
    const folders = [...new Set(Object.keys(files).map((f) => f.split("/")[0]))].sort();
    expect(folders).toEqual([`con-course-${con}`, `course-${emoji}`, "escape"].sort());

    // Each chapter has its own file, holding its own id and its title exactly.
    const snapshot = await readSnapshot(root);
    const paths = chapterIds.map((id) => snapshot.chapters[id]!.path);
    expect(new Set(paths).size).toBe(titles.length);
    for (const [i, id] of chapterIds.entries()) {
      const parsed = parseChapterFile(files[paths[i]!.replace(/^courses\//, "")]!, paths[i]!);
      expect(parsed).toMatchObject({ id, title: titles[i] });
    }
    expect(paths[7]).toBe("courses/escape/08-intro.md");
    expect(paths[8]).toBe(`courses/escape/08-intro-${chapterIds[8]}.md`);
    expect(files["escape/course.yaml"]).toContain("title: ../../etc/passwd\n");
    expect(files[paths[6]!.replace(/^courses\//, "")]).toContain(`title: ${long.trim()}`);

    // Stable: another pull moves nothing; the holder of the plain name going away moves nothing.
    const before = await stamps(root);
    expect((await pull(root)).code).toBe(0);
    expect(await stamps(root)).toEqual(before);
    emulator.state.remove("chapters", chapterIds[7]!);
    edit(emulator, "chapters", chapterIds[8]!, { content: "<p>changed</p>" });
    expect((await pull(root)).code).toBe(0);
    const after = await readSnapshot(root);
    expect(after.chapters[chapterIds[8]!]!.path).toBe(paths[8]);
    expect(await readFile(path.join(root, paths[8]!), "utf8")).toContain("<p>changed</p>");
  });
});
