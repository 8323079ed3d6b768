import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnsweredRequest, EmulatorOptions } from "../../src/emulator/server.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { git, isolatedGit } from "../helpers/git.js";
import { addChapter, addCourse, cliEnv, edit, pulledSite, webSite, writeConfig } from "../helpers/site.js";
import { addSite } from "../helpers/sites.js";
import { snapshotIn } from "../helpers/snapshot.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** Make the tree's runs send one request at a time, so that a list's pages come in order. */
async function oneAtATime(root: string): Promise<void> {
  const config = path.join(root, "coursesync.yaml");
  const text = await readFile(config, "utf8");
  expect(text).toMatch(/^concurrency: \d+$/m);
  await writeFile(config, text.replace(/^concurrency: \d+$/m, "concurrency: 1"));
}

/**
 * An emulator that lists by updated_at on pages of two, a tree that reads it one request at a
 * time (so the pages come in order), and a hook: `between(list, page, act)` runs `act` once,
 * right after that page of that list is served, as another user deleting and editing records
 * while pull pages through.
 */
async function setup(options: EmulatorOptions = {}) {
  let hook: ((request: AnsweredRequest) => void) | undefined;
  const emulator = await start({
    seedDir: null,
    now: manualClock().now,
    pageSize: 2,
    listOrder: "updated_at",
    onAnswered: (request) => hook?.(request),
    ...options,
  });
  const dir = await testdir();
  const env = cliEnv(dir);
  const root = path.join(dir, "tree");
  await writeConfig(root, emulator.baseUrl);
  await oneAtATime(root);
  const pull = (...args: string[]) => runCli(["pull", ...args], { cwd: root, env });
  const between = (list: "courses" | "chapters", page: number, act: () => void) => {
    hook = (request) => {
      if (request.method !== "GET" || request.path !== `/api/v1/${list}` || request.page !== page) return;
      hook = undefined;
      act();
    };
  };
  return { emulator, root, pull, between };
}

/** The single-record reads (GET /<list>/<id>) the emulator answered since `from`. */
function reads(emulator: TestEmulator, from: number): string[] {
  return emulator.state.requests
    .slice(from)
    .filter((r) => r.method === "GET" && /^\/api\/v1\/(courses|chapters)\/\d+$/.test(r.path))
    .map((r) => r.path.slice("/api/v1/".length))
    .sort();
}

/** One course of `count` chapters (default eight), ids 1 to `count`; pulled once. */
async function pulledCourse(options: EmulatorOptions = {}, count = 8) {
  const site = await setup(options);
  const course = addCourse(site.emulator, { title: "Course" });
  for (let i = 1; i <= count; i++)
    addChapter(site.emulator, { course_id: course, title: `Chapter ${i}`, content: `<p>${i}</p>` });
  const first = await site.pull();
  expect(first.code, first.stderr).toBe(0);
  return { ...site, course };
}

/**
 * After chapters page 2 (ids 3 and 4) is served: chapter 1 (already listed) and chapter 7 are
 * deleted, and chapter 2 is edited (it moves to the end). The later pages shift: page 3 holds
 * 8 and 2, and chapters 5 and 6 are never listed.
 */
function shiftChapters(site: {
  emulator: TestEmulator;
  between: Awaited<ReturnType<typeof setup>>["between"];
}) {
  site.between("chapters", 2, () => {
    site.emulator.state.remove("chapters", 1);
    site.emulator.state.remove("chapters", 7);
    edit(site.emulator, "chapters", 2, { title: "Chapter 2, edited" });
  });
}

/** The chapter files after a settled pull of `count` chapters shifted by `shiftChapters`. */
const settledFiles = (count: number) =>
  Array.from({ length: count }, (_, i) => i + 1)
    .filter((i) => i !== 1 && i !== 7)
    .map(
      (i) =>
        `courses/course/${String(i).padStart(2, "0")}-chapter-${i}${i === 2 || i === 12 ? "-edited" : ""}.md`,
    );

const chapterFiles = (tree: Record<string, string>) =>
  Object.keys(tree)
    .filter((file) => file.startsWith("courses/") && file.endsWith(".md"))
    .sort();

describe("pull: absent from a listing is not deleted", () => {
  it("keeps the files of records a shifting listing missed, says so, exits 1; the next pull deletes what was deleted", async () => {
    const site = await pulledCourse();
    const { emulator, root, pull } = site;
    const before = await readTree(root);
    expect(chapterFiles(before)).toHaveLength(8);
    shiftChapters(site);
    const from = emulator.state.requests.length;

    // A delete limit that would let the three apparent deletes through: the reads stop them.
    const moved = await pull("--max-delete", "5");
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain(
      "the site's listing moved while pull paged through it (records were deleted or edited there meanwhile): it left out 2 records the site still has (courses/course/05-chapter-5.md, courses/course/06-chapter-6.md); they were kept as they are and nothing was deleted from this listing; 1 record the site did delete waits for the next pull (courses/course/07-chapter-7.md)",
    );
    expect(moved.stderr).toContain("Run `coursesync pull` again");
    // One direct read per record the listing left out, no more.
    expect(reads(emulator, from)).toEqual(["chapters/5", "chapters/6", "chapters/7"]);
    // No file removed: the live ones the listing missed, and the deleted one not listed either.
    const after = await readTree(root);
    expect(chapterFiles(after)).toEqual(chapterFiles(before));
    for (const file of chapterFiles(before).filter((f) => /0[567]-/.test(f)))
      expect(after[file]).toBe(before[file]);
    // Their snapshot entries are kept as they were.
    const [was, now] = [snapshotIn(before), snapshotIn(after)];
    for (const id of [5, 6, 7]) expect(now.chapters[id]).toEqual(was.chapters[id]);

    // The site holds still now: the next pull lists it whole, confirms the two deletes, exits 0.
    const settled = await pull();
    expect(settled.code, settled.stderr).toBe(0);
    expect(settled.stderr).not.toContain("listing moved");
    const final = await readTree(root);
    expect(chapterFiles(final)).toEqual(settledFiles(8));
    expect(final["courses/course/05-chapter-5.md"]).toBe(before["courses/course/05-chapter-5.md"]);
    // And one after that has nothing left to confirm: no read at all.
    const quiet = emulator.state.requests.length;
    expect((await pull()).code).toBe(0);
    expect(reads(emulator, quiet)).toEqual([]);
  });

  it("--dry-run --json reports the records the listing missed and the deletes that wait, writing nothing", async () => {
    const site = await pulledCourse();
    const before = await readTree(site.root);
    shiftChapters(site);
    const result = await site.pull("--dry-run", "--json", "--max-delete", "5");
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json.listing_moved).toEqual({
      missed: [
        { kind: "chapter", id: 5, path: "courses/course/05-chapter-5.md" },
        { kind: "chapter", id: 6, path: "courses/course/06-chapter-6.md" },
      ],
      deletes_waiting: [{ kind: "chapter", id: 7, path: "courses/course/07-chapter-7.md" }],
    });
    expect(json.changes).not.toContainEqual(expect.objectContaining({ outcome: "deleted" }));
    expect(result.stderr).toContain(
      "they would be kept as they are and nothing would be deleted from this listing",
    );
    expect(await readTree(site.root)).toEqual(before);
  });

  it("a whole listing answers listing_moved: null and deletes what the reads confirm", async () => {
    const site = await pulledCourse({ listOrder: "id" });
    site.emulator.state.remove("chapters", 3);
    const result = await site.pull("--json");
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json.listing_moved).toBeNull();
    expect(json.changes).toEqual([
      { kind: "chapter", id: 3, path: "courses/course/03-chapter-3.md", outcome: "deleted" },
    ]);
  });

  it("a course missed by the courses listing keeps everything; a course confirmed gone takes its chapters without reading them", async () => {
    const site = await setup();
    const { emulator, root, pull } = site;
    const courses: number[] = [];
    for (let c = 1; c <= 5; c++) {
      const course = addCourse(emulator, { title: `Course ${c}` });
      courses.push(course);
      for (let i = 1; i <= 2; i++)
        addChapter(emulator, { course_id: course, title: `Chapter ${c}.${i}`, content: `<p>${c}.${i}</p>` });
    }
    expect((await pull()).code).toBe(0);
    const before = await readTree(root);
    // After courses page 1 (courses 1 and 2): course 2 goes with its chapters; course 3 slides
    // onto page 1, and the courses listing never sees it.
    site.between("courses", 1, () => emulator.state.remove("courses", courses[1]!));

    const moved = await pull("--max-delete", "5");
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain("it left out 1 record the site still has (courses/course-3)");
    const after = await readTree(root);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());

    const from = emulator.state.requests.length;
    const settled = await pull("--max-delete", "3");
    expect(settled.code, settled.stderr).toBe(0);
    // The course reads 404: its two chapters count as gone without a read of their own.
    expect(reads(emulator, from)).toEqual(["courses/2"]);
    const final = await readTree(root);
    expect(Object.keys(final).filter((file) => file.startsWith("courses/course-2/"))).toEqual([]);
    expect(final["courses/course-3/course.yaml"]).toBe(before["courses/course-3/course.yaml"]);
  });
});

describe("ci backup: a listing that moved", () => {
  it("commits no backup that lost a live record; the next backup completes it", async () => {
    // Twelve chapters: the delete guard (a quarter of the site) would let three deletes through.
    const site = await pulledCourse({}, 12);
    const { emulator, root } = site;
    // The tree is the top of a repository whose origin is a bare one, as on a CI runner.
    const dir = path.dirname(root);
    const machine = await isolatedGit(dir);
    const origin = path.join(dir, "origin.git");
    await git(machine, dir, "init", "--quiet", "--bare", origin);
    await git(machine, root, "init", "--quiet");
    await git(machine, root, "add", "--all");
    const maintainer = { ...machine, GIT_AUTHOR_NAME: "M", GIT_AUTHOR_EMAIL: "m@example.com" };
    await git(
      { ...maintainer, GIT_COMMITTER_NAME: "M", GIT_COMMITTER_EMAIL: "m@example.com" },
      root,
      "commit",
      "--quiet",
      "-m",
      "tree",
    );
    await git(machine, root, "remote", "add", "origin", origin);
    await git(machine, root, "push", "--quiet", "origin", "HEAD:main");
    const ci = { ...machine, ...cliEnv(dir), CI: "true" };
    const backup = () => runCli(["ci", "backup", "--branch", "main", "--no-events"], { cwd: root, env: ci });
    const onMain = async () =>
      (await git(machine, origin, "ls-tree", "-r", "--name-only", "main"))
        .split("\n")
        .filter((f) => f.endsWith(".md"));

    // An edit the listing does bring in, and another user at work while it pages.
    edit(emulator, "chapters", 12, { title: "Chapter 12, edited" });
    shiftChapters(site);
    const moved = await backup();
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain("the site's listing moved while pull paged through it");
    // Whatever it committed, every live chapter is still on the branch, and so is the one the
    // site deleted that the listing did not show (it waits for a whole listing).
    expect(await onMain()).toEqual(
      expect.arrayContaining([
        "courses/course/05-chapter-5.md",
        "courses/course/06-chapter-6.md",
        "courses/course/07-chapter-7.md",
      ]),
    );
    // It committed what it did pull (chapter 12's new title), and failed.
    expect(moved.stderr).toContain(
      "backup incomplete: pull left some records out (see above); what it pulled is committed",
    );
    expect(moved.stderr).toContain("A listing that moved");
    expect(await git(machine, origin, "log", "-1", "--format=%s", "main")).toBe(
      "coursesync: backup of production [skip ci]\n",
    );
    expect(await onMain()).toContain("courses/course/12-chapter-12-edited.md");

    const settled = await backup();
    expect(settled.code, settled.stderr).toBe(0);
    expect((await onMain()).sort()).toEqual(settledFiles(12));
  });
});

describe("pull --site <other>: a listing that moved", () => {
  it("reads each record the listing left out by that site's own id", async () => {
    const web = webSite();
    const tour = { course_id: 1, title: "Tour", ordinal: 3, content: "<p>tour</p>" };
    const s = await pulledSite(start, { ...web, chapters: [...(web.chapters ?? []), tour] });
    // Staging numbers its records one above production: chapter 1 here (Intro) is 2 there.
    let hook: ((request: AnsweredRequest) => void) | undefined;
    const staging = await start({
      seedDir: null,
      now: manualClock("2026-04-01T08:00:00.000Z").now,
      pageSize: 1,
      onAnswered: (request) => hook?.(request),
    });
    staging.state.createCourse({ course: { title: "scratch" } });
    staging.state.createChapter({ chapter: { course_id: 1, title: "scratch" } });
    staging.state.remove("courses", 1);
    await addSite(s.root, "staging", staging.baseUrl);
    await oneAtATime(s.root);
    const restored = await s.cli("push", "--site", "staging", "--yes");
    expect(restored.code, restored.stderr).toBe(0);
    expect(staging.state.dump().chapters.map((c) => [c.id, c.title])).toEqual([
      [2, "Intro"],
      [3, "Tags"],
      [4, "Tour"],
    ]);
    const before = await readTree(s.root);

    // After chapters page 1 (Intro) is served, Intro is deleted: Tags slides onto page 1.
    hook = (request) => {
      if (request.path !== "/api/v1/chapters" || request.page !== 1) return;
      hook = undefined;
      staging.state.remove("chapters", 2);
    };
    const from = staging.state.requests.length;
    const moved = await s.cli("pull", "--site", "staging");
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain(
      "it left out 1 record the site still has (courses/web/02-tags.md); it was kept as it is",
    );
    // Tags is chapter 2 in the tree and 3 on staging: read as 3 (chapter 2 there is Intro, deleted).
    expect(reads(staging, from)).toEqual(["chapters/3"]);
    expect(await readTree(s.root)).toEqual(before);

    const settled = await s.cli("pull", "--site", "staging");
    expect(settled.code, settled.stderr).toBe(0);
    const after = await readTree(s.root);
    expect(Object.keys(after).filter((file) => file.startsWith("courses/web/0"))).toEqual([
      "courses/web/02-tags.md",
      "courses/web/03-tour.md",
    ]);
  });
});
