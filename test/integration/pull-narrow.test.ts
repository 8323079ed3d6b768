import { readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StatCache } from "../../src/tree/stat-cache.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { addChapter, addCourse, edit, pullNewTree, type SiteSpec, seedSite } from "../helpers/site.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const CACHE = ".coursesync/cache/production/stat.json";

/** A clock a minute ahead: every file the runs write is old enough for the stat cache to trust. */
const late = () => Date.now() + 60_000;

/** Six courses of three chapters, HTML bodies. */
function sixCourses(): SiteSpec {
  const courses = Array.from({ length: 6 }, (_, c) => ({ title: `Course ${c + 1}` }));
  const chapters = courses.flatMap((_, c) =>
    Array.from({ length: 3 }, (_, n) => ({
      course_id: c + 1,
      title: `Chapter ${n + 1} of ${c + 1}`,
      ordinal: n + 1,
      content: `<p>text ${c + 1}.${n + 1}</p>`,
    })),
  );
  return { body: "html", courses, chapters };
}

/**
 * Two trees of one site: `narrow` keeps its stat cache, so its pulls read only the course
 * folders that can have changed; `whole` loses its stat cache before each pull, so its pulls
 * read everything. Whatever happens, both must end byte for byte alike and say the same.
 */
async function twins(spec: SiteSpec = sixCourses()) {
  const emulator = await start({ seedDir: null, now: manualClock().now });
  seedSite(emulator, spec);
  const narrow = await pullNewTree(emulator, spec.body);
  const whole = await pullNewTree(emulator, spec.body);
  const pull = (root: string, env: Record<string, string>, ...args: string[]) =>
    runCli(["pull", "-v", ...args], { cwd: root, env, now: late });
  // Once with the late clock: from now on the narrow tree's stat cache trusts its files.
  expect((await pull(narrow.root, narrow.env)).code).toBe(0);
  /** Both pulls; what they print, exit codes and trees must agree. Returns the narrow one's -v line. */
  const pullBoth = async (...args: string[]) => {
    const a = await pull(narrow.root, narrow.env, ...args);
    await rm(path.join(whole.root, CACHE), { force: true });
    const b = await pull(whole.root, whole.env, ...args);
    expect(a.code, a.stderr).toBe(b.code);
    expect(a.stdout).toEqual(b.stdout);
    expect(await readTree(narrow.root, [".coursesync/cache"])).toEqual(
      await readTree(whole.root, [".coursesync/cache"]),
    );
    expect(b.stderr).not.toMatch(/^tree: read/m);
    return /^tree: read (\d+) of (\d+) course folders/m.exec(a.stderr)?.slice(1).map(Number);
  };
  /** The same edit in both trees. */
  const both = async (edit: (root: string) => Promise<void>) => {
    await edit(narrow.root);
    await edit(whole.root);
  };
  const status = async () => {
    const a = await runCli(["status", "--json"], { cwd: narrow.root, env: narrow.env, now: late });
    const b = await runCli(["status", "--json"], { cwd: whole.root, env: whole.env, now: late });
    expect(a).toEqual(b);
    return (JSON.parse(a.stdout) as { entries: Array<{ state: string; path: string }> }).entries.map(
      (entry) => `${entry.state} ${entry.path}`,
    );
  };
  return { emulator, narrow, whole, pullBoth, both, status };
}

const replaceIn = (file: string, from: string, to: string) => async (root: string) => {
  const full = path.join(root, file);
  const text = await readFile(full, "utf8");
  if (!text.includes(from)) throw new Error(`${file} does not hold ${from}`);
  await writeFile(full, text.replace(from, to));
};

describe("pull of a tree the stat cache saw clean: only the course folders that can have changed", () => {
  it("a pull with no change reads no folder, writes nothing and leaves status clean", async () => {
    const { narrow, pullBoth, status } = await twins();
    const before = await readTree(narrow.root, [".coursesync/cache"]);
    expect(await pullBoth()).toEqual([0, 6]);
    expect(await readTree(narrow.root, [".coursesync/cache"])).toEqual(before);
    expect(await status()).toEqual([]);
    // The pull left the tree marked clean: status answers from the stat cache alone.
    const cache = new StatCache(path.join(narrow.root, CACHE), late).loadSync();
    expect(cache.clean).toBeDefined();
    expect(cache.dirtyAtClean).toEqual([]);
  });

  it("files written just before: checked by their bytes, not read as changed folders", async () => {
    const emulator = await start({ seedDir: null, now: manualClock().now });
    seedSite(emulator, sixCourses());
    const tree = await pullNewTree(emulator, "html");
    // On the real clock every file is too new to trust by its stat: each entry is kept as racy.
    const pull = () => runCli(["pull", "-v"], { cwd: tree.root, env: tree.env });
    const again = await pull();
    expect(again.stderr).toMatch(/^tree: read 0 of 6 course folders/m);
    // An edit of the same size, its mtime put back, is seen (its ctime moved; see the walk's
    // unit test for a file whose stat did not move at all).
    const file = path.join(tree.root, "courses/course-4/02-chapter-2-of-4.md");
    const before = await stat(file);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace("text 4.2", "text 4.X"));
    await utimes(file, before.atime, before.mtime);
    const status = await runCli(["status", "--short"], { cwd: tree.root, env: tree.env });
    expect(status.stdout).toBe(" M courses/course-4/02-chapter-2-of-4.md\n");
    expect((await pull()).stderr).toMatch(/^tree: read 1 of 6 course folders/m);
  });

  it("reads the folders of the site's changes and of local edits, and ends as a pull of the whole tree", async () => {
    const { emulator, pullBoth, both, status } = await twins();
    // On the site: a chapter renamed (course 1), one moved from course 2 to course 3, one
    // deleted (course 2), a new chapter in course 3.
    edit(emulator, "chapters", 1, { title: "Chapter one, renamed" });
    edit(emulator, "chapters", 4, { course_id: 3 });
    emulator.state.remove("chapters", 5);
    addChapter(emulator, { course_id: 3, title: "Late chapter", ordinal: 9, content: "<p>late</p>" });
    // Here: an edit in course 6, pending after the pull.
    await both(replaceIn("courses/course-6/01-chapter-1-of-6.md", "text 6.1", "text 6.1, edited here"));
    const [read, of] = (await pullBoth()) ?? [];
    expect(of).toBe(6);
    expect(read).toBe(4);
    expect(await status()).toEqual(["modified courses/course-6/01-chapter-1-of-6.md"]);
    // The next one reads only the folder still pending.
    expect(await pullBoth()).toEqual([1, 6]);
  });

  it("a dry run says what the whole tree's would, and leaves the tree and its stat cache as they were", async () => {
    const { emulator, narrow, pullBoth, both } = await twins();
    edit(emulator, "chapters", 8, { title: "Renamed on the site" });
    await both(replaceIn("courses/course-5/01-chapter-1-of-5.md", "text 5.1", "text 5.1, edited here"));
    const cache = await readFile(path.join(narrow.root, CACHE), "utf8");
    expect(await pullBoth("--dry-run")).toEqual([2, 6]);
    expect(await readFile(path.join(narrow.root, CACHE), "utf8")).toBe(cache);
    expect(await pullBoth()).toEqual([2, 6]);
  });

  it("a new course named like one it does not read gets a folder of its own", async () => {
    const { emulator, narrow, pullBoth } = await twins();
    const id = addCourse(emulator, { title: "Course 2" });
    addChapter(emulator, { course_id: id, title: "Chapter 1 of 2", ordinal: 1, content: "<p>other</p>" });
    const [read] = (await pullBoth()) ?? [];
    expect(read).toBeLessThan(6);
    const folders = (await readdir(path.join(narrow.root, "courses"))).sort();
    expect(folders).toHaveLength(7);
    expect(await readFile(path.join(narrow.root, "courses/course-2/01-chapter-1-of-2.md"), "utf8")).toContain(
      "text 2.1",
    );
  });

  it("a course edited or deleted on the site: its course.yaml rewritten, its folder removed", async () => {
    const { emulator, narrow, pullBoth } = await twins();
    edit(emulator, "courses", 3, { title: "Course three" });
    for (const chapter of [13, 14, 15]) emulator.state.remove("chapters", chapter);
    emulator.state.remove("courses", 5);
    expect(await pullBoth()).toEqual([2, 6]);
    expect(await readFile(path.join(narrow.root, "courses/course-3/course.yaml"), "utf8")).toContain(
      "Course three",
    );
    expect(await readdir(path.join(narrow.root, "courses"))).not.toContain("course-5");
  });

  it("an edit on both sides of one chapter, and a file made invalid, end as with the whole tree read", async () => {
    const { emulator, pullBoth, both, status } = await twins();
    edit(emulator, "chapters", 2, { title: "Site's title" });
    await both(
      replaceIn("courses/course-1/02-chapter-2-of-1.md", "title: Chapter 2 of 1", "title: My title"),
    );
    edit(emulator, "chapters", 7, { content: "<p>site text</p>" });
    await both(replaceIn("courses/course-3/01-chapter-1-of-3.md", "ordinal: 1", "ordinal: [broken"));
    await pullBoth();
    const pending = await status();
    expect(pending).toContain("conflict courses/course-1/02-chapter-2-of-1.md");
    expect(pending.some((line) => line.startsWith("invalid courses/course-3/"))).toBe(true);
    // Fixed here: the next pulls agree too.
    await both(replaceIn("courses/course-3/01-chapter-1-of-3.md", "ordinal: [broken", "ordinal: 1"));
    await pullBoth("--theirs");
    expect(await status()).toEqual([]);
  });

  it("a new chapter file here and a chapter moved between folders here stay as they are", async () => {
    const { emulator, pullBoth, both, status } = await twins();
    edit(emulator, "chapters", 16, { title: "Renamed on the site" });
    await both(async (root) => {
      await writeFile(
        path.join(root, "courses/course-2/09-new.md"),
        "---\ntitle: New here\nordinal: 9\n---\n<p>new</p>\n",
      );
      const from = path.join(root, "courses/course-4/03-chapter-3-of-4.md");
      await writeFile(path.join(root, "courses/course-5/03-chapter-3-of-4.md"), await readFile(from));
      await rm(from);
    });
    const [read] = (await pullBoth()) ?? [];
    expect(read).toBe(4);
    expect(await status()).toEqual([
      "new courses/course-2/09-new.md",
      "moved courses/course-5/03-chapter-3-of-4.md",
    ]);
  });
});
