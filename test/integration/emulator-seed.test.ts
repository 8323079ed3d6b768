import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSeed } from "../../src/emulator/seed.js";
import { FileProblem } from "../../src/tree/yaml-text.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const STAMP = "2026-03-01T09:30:00.000+00:00";

const site = {
  "courses/intro-to-git/course.yaml": [
    "id: 12",
    "title: Intro to Git",
    "status: published",
    "excerpt: Learn the basics",
    "free: true",
    "questions_enabled: false",
    'scheduled_at: "2026-04-01T08:00:00+02:00"',
    "published_at: 2026-03-01T10:00:00.000+00:00",
    "",
  ].join("\n"),
  "courses/intro-to-git/01-welcome.md":
    "---\nid: 100\ntitle: Welcome\nordinal: 1\nformat: html\n---\n<p>Hello</p>\n",
  "courses/intro-to-git/02-new.md":
    "---\ntitle: New chapter\nordinal: 2\nformat: html\n---\n<h2>New</h2>\n<p>x</p>\n",
  "courses/intro-to-git/02-new.remote.md": "---\ntitle: Remote copy\nordinal: 2\n---\nignored\n",
  "courses/intro-to-git/course.remote.yaml": "title: ignored\n",
  "courses/intro-to-git/notes.txt": "not a chapter\n",
  "courses/Draft Course!/course.yaml": "title: Second Course\n",
  "courses/Draft Course!/01-only.md": "---\nid: 5\ntitle: Only\nordinal: 7\nformat: html\n---\n",
  "coursesync.yaml": "site: demo\n",
};

/** Load a seed that must fail; returns the FileProblem and the seed folder. */
async function seedError(files: Record<string, string>): Promise<FileProblem & { dir: string }> {
  const dir = await testdir(files);
  const error = await loadSeed(dir, STAMP).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FileProblem);
  return Object.assign(error as FileProblem, { dir });
}

describe("seed loader", () => {
  it("reads courses and HTML chapters, keeping file ids and giving fresh ids above the maximum", async () => {
    const dir = await testdir(site);
    const seed = await loadSeed(dir, STAMP);
    expect(seed.courses).toEqual([
      {
        id: 13,
        title: "Second Course",
        slug: "second-course",
        status: "draft",
        created_at: STAMP,
        updated_at: STAMP,
        scheduled_at: null,
        published_at: null,
        excerpt: null,
        free: false,
        questions_enabled: false,
      },
      {
        id: 12,
        title: "Intro to Git",
        slug: "intro-to-git",
        status: "published",
        created_at: STAMP,
        updated_at: STAMP,
        scheduled_at: "2026-04-01T08:00:00+02:00",
        published_at: "2026-03-01T10:00:00.000+00:00",
        excerpt: "Learn the basics",
        free: true,
        questions_enabled: false,
      },
    ]);
    expect(
      seed.chapters.map(({ id, course_id, title, content, ordinal }) => ({
        id,
        course_id,
        title,
        content,
        ordinal,
      })),
    ).toEqual([
      { id: 5, course_id: 13, title: "Only", content: "", ordinal: 7 },
      { id: 100, course_id: 12, title: "Welcome", content: "<p>Hello</p>", ordinal: 1 },
      { id: 101, course_id: 12, title: "New chapter", content: "<h2>New</h2>\n<p>x</p>", ordinal: 2 },
    ]);
    expect(seed.events).toEqual([]);
  });

  it("seeds a running emulator, whose new records get ids above the seed and whose reset returns to it", async () => {
    const dir = await testdir(site);
    const emulator = await start({ seedDir: dir, admin: true, now: manualClock().now });
    const seeded = emulator.state.dump();
    const courses = (await emulator.api("GET", "/courses")).body as Array<{ id: number }>;
    expect(courses.map((course) => course.id)).toEqual([12, 13]);
    expect((await emulator.api("GET", "/chapters/100")).body).toMatchObject({
      course_id: 12,
      content: "<p>Hello</p>",
    });
    const created = await emulator.api("POST", "/chapters", {
      json: { chapter: { course_id: 12, title: "Third" } },
    });
    expect(created.body).toMatchObject({ id: 102, ordinal: 3 });
    expect(
      (await emulator.api("POST", "/courses", { json: { course: { title: "Intro to Git" } } })).body,
    ).toMatchObject({
      id: 14,
      slug: "intro-to-git-2",
    });
    await emulator.admin("POST", "/reset");
    expect(emulator.state.dump()).toEqual(seeded);
    expect(seeded.chapters).toHaveLength(3);
  });

  it("refuses a chapter without format: html, naming the file", async () => {
    const error = await seedError({
      "courses/a/course.yaml": "title: A\n",
      "courses/a/01-md.md": "---\ntitle: Markdown\nordinal: 1\n---\n# Heading\n",
    });
    expect(error.file).toBe(path.join(error.dir, "courses", "a", "01-md.md"));
    expect(error.message).toContain(error.file);
    expect(error.message).toMatch(/HTML/);
    expect(error.hint).toContain("format: html");
  });

  it("reports a YAML error with the file and line", async () => {
    const yaml = await seedError({ "courses/a/course.yaml": "id: 1\ntitle: A\nexcerpt: [unclosed\n" });
    expect(yaml.message).toMatch(/courses[/\\]a[/\\]course\.yaml:\d+: YAML does not parse/);
    expect(yaml.line).toBeGreaterThanOrEqual(3);
    const frontMatter = await seedError({
      "courses/a/course.yaml": "title: A\n",
      "courses/a/01-x.md": "---\ntitle: X\nordinal: one\nformat: html\n---\n<p></p>\n",
    });
    expect(frontMatter.message).toMatch(/01-x\.md:3: ordinal must be a whole number/);
  });

  it("refuses two files with one id, naming both", async () => {
    const error = await seedError({
      "courses/a/course.yaml": "title: A\n",
      "courses/a/01-x.md": "---\nid: 3\ntitle: X\nordinal: 1\nformat: html\n---\n",
      "courses/a/02-y.md": "---\nid: 3\ntitle: Y\nordinal: 2\nformat: html\n---\n",
    });
    expect(error.message).toContain("02-y.md");
    expect(error.message).toContain("01-x.md");
  });

  it("refuses a tree without a courses folder and a course folder without course.yaml", async () => {
    expect((await seedError({ "README.md": "x" })).message).toMatch(/no courses folder/);
    expect((await seedError({ "courses/a/01-x.md": "---\ntitle: X\nordinal: 1\n---\n" })).message).toMatch(
      /courses[/\\]a[/\\]course\.yaml: the course folder has no course\.yaml/,
    );
  });

  it("makes startEmulator reject, so no half-seeded server runs", async () => {
    const dir = await testdir({ "courses/a/course.yaml": "title: [\n" });
    await expect(start({ seedDir: dir })).rejects.toBeInstanceOf(FileProblem);
  });
});
