import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { addChapter, addCourse, edit, initTree, pullNewTree } from "../helpers/site.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A chapter body long enough that pull keeps it out of memory while it works. */
const long = (n: number, word = "text") => `<p>${`long ${word} `.repeat(120)}${n}</p>`;

/** One course of five long chapters on pages of two, pulled once. */
async function pulledSite() {
  const emulator = await start({ seedDir: null, admin: true, now: manualClock().now, pageSize: 2 });
  const course = addCourse(emulator, { title: "Course" });
  const ids = [];
  for (let i = 0; i < 5; i++)
    ids.push(
      addChapter(emulator, { course_id: course, title: `Chapter ${i}`, ordinal: i + 1, content: long(i) }),
    );
  const { root, env } = await pullNewTree(emulator, "html");
  const pull = () => runCli(["pull"], { cwd: root, env });
  return { emulator, root, pull, ids };
}

const chapterFile = (root: string, n: number) =>
  path.join(root, "courses", "course", `0${n + 1}-chapter-${n}.md`);

describe("pull: long chapter contents wait outside memory", () => {
  it("writes each chapter's content exactly, leaves no temp file, and a second pull changes nothing", async () => {
    const { root, pull } = await pulledSite();
    for (let i = 0; i < 5; i++) expect(await readFile(chapterFile(root, i), "utf8")).toContain(long(i));
    const tree = await readTree(root);
    expect(Object.keys(tree).filter((file) => file.endsWith(".tmp"))).toEqual([]);
    expect(Object.keys(tree).some((file) => file.startsWith(".coursesync/cache/production/packs/"))).toBe(
      true,
    );
    expect(Object.keys(tree).some((file) => file.startsWith(".coursesync/cache/production/content/"))).toBe(
      false,
    );
    const again = await pull();
    expect(again.code, again.stderr).toBe(0);
    expect(await readTree(root)).toEqual(tree);
  });

  it("a second pull with no change writes nothing and sends only the list pages", async () => {
    const { emulator, root, pull } = await pulledSite();
    const tree = await readTree(root);
    emulator.state.clearRequests();
    const again = await pull();
    expect(again.code, again.stderr).toBe(0);
    expect(await readTree(root)).toEqual(tree);
    const sent = emulator.state.requests.map((r) => `${r.method} ${r.path}`);
    // Pages of the two lists, read side by side; no record is read one by one, nothing sent.
    const lists = new Set(["GET /api/v1/courses", "GET /api/v1/chapters"]);
    expect(sent.filter((line) => line !== "POST /api/login" && !lists.has(line))).toEqual([]);
    expect(sent.filter((line) => line === "GET /api/v1/chapters").length).toBeGreaterThanOrEqual(3);
  });

  it("takes a change on the site and keeps a local edit, merging both into one chapter", async () => {
    const { emulator, root, pull, ids } = await pulledSite();
    edit(emulator, "chapters", ids[1]!, { content: long(1, "site") });
    const file = chapterFile(root, 2);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace("Chapter 2", "Chapter two"));
    const result = await pull();
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(chapterFile(root, 1), "utf8")).toContain(long(1, "site"));
    expect(await readFile(file, "utf8")).toBe(text.replace("Chapter 2", "Chapter two"));
  });

  it("a listing that fails part-way writes nothing and leaves no temp file", async () => {
    const { emulator, root, pull, ids } = await pulledSite();
    const before = await readTree(root);
    edit(emulator, "chapters", ids[0]!, { content: long(0, "edited") });
    // The second chapters page answers Not Found once: a hole in the listing, not its end.
    emulator.faults.update({ failNext: 1, failStatus: 404, match: { path: "/api/v1/chapters", page: 2 } });
    const result = await pull();
    expect(result.code).toBe(1);
    expect(await readTree(root)).toEqual(before);
    const again = await pull();
    expect(again.code, again.stderr).toBe(0);
    expect(await readFile(chapterFile(root, 0), "utf8")).toContain(long(0, "edited"));
  });
});

describe("pull: files written while the listing arrives", () => {
  it("goes on without them when they cannot be written there, writes the same tree, and -v says why", async () => {
    const emulator = await start({ seedDir: null, pageSize: 2 });
    const course = addCourse(emulator, { title: "Course" });
    for (let i = 0; i < 5; i++)
      addChapter(emulator, { course_id: course, title: `Chapter ${i}`, ordinal: i + 1, content: long(i) });
    const hindered = await initTree(emulator);
    // The staging folder's place is held by a file: no staged file can be written.
    await mkdir(path.join(hindered.root, ".coursesync/cache/production"), { recursive: true });
    await writeFile(path.join(hindered.root, ".coursesync/cache/production/incoming"), "not a folder");
    const pulled = await runCli(["pull", "-v"], { cwd: hindered.root, env: hindered.env });
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stderr).toMatch(
      /^staging: stopped while the listing arrived \(a file could not be written: E[A-Z]+: .*\); the rest of the files were written after it$/m,
    );
    const plain = await pullNewTree(emulator, "markdown");
    const files = (root: string) => readTree(path.join(root, "courses"));
    expect(await files(hindered.root)).toEqual(await files(plain.root));
    const again = await runCli(["pull", "-v"], { cwd: plain.root, env: plain.env });
    expect(again.stderr).not.toMatch(/^staging:/m);
  });
});
