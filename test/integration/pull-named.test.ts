import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import { pull } from "../../src/sync/pull/index.js";
import { namedRecords } from "../../src/sync/pull/named.js";
import { htmlBodies } from "../../src/tree/codecs.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { addChapter, addCourse, edit, LOGIN, pullNewTree, type SiteSpec, seedSite } from "../helpers/site.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** Four courses of three chapters, HTML bodies. */
function fourCourses(): SiteSpec {
  const courses = Array.from({ length: 4 }, (_, c) => ({ title: `Course ${c + 1}` }));
  const chapters = courses.flatMap((_, c) =>
    Array.from({ length: 3 }, (_, n) => ({
      course_id: c + 1,
      title: `Chapter ${n + 1} of ${c + 1}`,
      ordinal: n + 1,
      content: `<p>text ${c + 1}.${n + 1}</p>\n<p>middle paragraph</p>\n<p>last paragraph</p>`,
    })),
  );
  return { body: "html", courses, chapters };
}

/**
 * Two trees of one site: `named` pulls only the records a test names, each read on its own;
 * `whole` pulls the lists. When the site changed only the named records, both must end with
 * the same files, and a whole pull of the named tree afterwards must find nothing to do.
 */
async function twins() {
  const emulator = await start({ seedDir: null, now: manualClock().now });
  const ids = seedSite(emulator, fourCourses());
  const named = await pullNewTree(emulator, "html");
  const whole = await pullNewTree(emulator, "html");
  const pullNamed = async (courses: number[], chapters: number[]) => {
    const client = new ApiClient({
      baseUrl: emulator.baseUrl,
      credentials: { email: LOGIN.COURSESYNC_EMAIL, password: LOGIN.COURSESYNC_PASSWORD },
      sleep: async () => {},
    });
    const before = emulator.state.requests.length;
    try {
      const result = await pull(
        {
          root: named.root,
          site: "production",
          siteUrl: emulator.baseUrl,
          ignore: [],
          bodies: htmlBodies,
          records: namedRecords(courses, chapters),
        },
        client,
      );
      const sent = emulator.state.requests.slice(before).filter((r) => r.path !== "/api/login");
      return {
        result,
        sent: sent.map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ""} ${r.status}`),
      };
    } finally {
      client.close();
    }
  };
  const pullWhole = async () => {
    const done = await runCli(["pull"], { cwd: whole.root, env: whole.env });
    expect(done.code, done.stderr).toBe(0);
  };
  /** Both trees hold the same files; a whole pull of the named tree then changes nothing. */
  const same = async () => {
    const files = (root: string) => readTree(root, [".coursesync"]);
    expect(await files(named.root)).toEqual(await files(whole.root));
    const again = await runCli(["pull", "--json"], { cwd: named.root, env: named.env });
    expect(again.code, again.stderr).toBe(0);
    const changes = (JSON.parse(again.stdout) as { changes: Array<{ outcome: string; path: string }> })
      .changes;
    expect(changes.filter((c) => c.outcome !== "unchanged")).toEqual([]);
    expect(await files(named.root)).toEqual(await files(whole.root));
  };
  /** The same edit of a file in both trees. */
  const both = async (file: string, from: string, to: string) => {
    for (const root of [named.root, whole.root]) {
      const full = path.join(root, file);
      const text = await readFile(full, "utf8");
      if (!text.includes(from)) throw new Error(`${file} does not hold ${from}`);
      await writeFile(full, text.replace(from, to));
    }
  };
  return { emulator, ids, named, whole, pullNamed, pullWhole, same, both };
}

describe("pull of named records (watch's pull of what the events name)", () => {
  it("reads each named record on its own, no list page, and ends as a whole pull would", async () => {
    const { emulator, ids, pullNamed, pullWhole, same } = await twins();
    const [c1, , c3] = ids.courses;
    edit(emulator, "chapters", ids.chapters[1]!, { title: "Retitled on the site" });
    edit(emulator, "courses", c3!, { excerpt: "New excerpt" });
    const gone = ids.chapters[4]!;
    emulator.state.remove("chapters", gone);
    const { result, sent } = await pullNamed([c3!], [ids.chapters[1]!, gone]);
    // The chapter read as gone is read once more before it counts as deleted.
    expect(sent.sort()).toEqual([
      `GET /api/v1/chapters/${ids.chapters[1]} 200`,
      `GET /api/v1/chapters/${gone} 404`,
      `GET /api/v1/chapters/${gone} 404`,
      `GET /api/v1/courses/${c3} 200`,
    ]);
    expect(
      result.changes.filter((c) => c.outcome !== "unchanged").map((c) => `${c.outcome} ${c.path}`),
    ).toEqual([
      "updated courses/course-3",
      "updated courses/course-1/02-retitled-on-the-site.md",
      "deleted courses/course-2/02-chapter-2-of-2.md",
    ]);
    expect(c1).toBeDefined();
    await pullWhole();
    await same();
  });

  it("a chapter created, one deleted, a course created with a chapter, a course deleted", async () => {
    const { emulator, ids, pullNamed, pullWhole, same } = await twins();
    const [c1, c2, , c4] = ids.courses;
    const created = addChapter(emulator, {
      course_id: c1,
      title: "Added on the site",
      content: "<p>new</p>",
    });
    const course = addCourse(emulator, { title: "Course five" });
    const inNew = addChapter(emulator, { course_id: course, title: "First of five", content: "<p>5</p>" });
    emulator.state.remove("courses", c4!);
    // The events name the new course's chapter, not the course: it is read with it.
    const { sent } = await pullNamed([c4!], [created, inNew]);
    expect(sent.filter((line) => !line.startsWith("GET "))).toEqual([]);
    expect(sent.some((line) => /\?page=/.test(line))).toBe(false);
    expect(c2).toBeDefined();
    await pullWhole();
    await same();
  });

  it("merges a named record's site edit into an unsent local edit, and leaves other records' edits alone", async () => {
    const { emulator, ids, named, pullNamed, pullWhole, same, both } = await twins();
    const file = "courses/course-1/01-chapter-1-of-1.md";
    await both(file, "last paragraph", "last paragraph, edited here");
    await both("courses/course-2/01-chapter-1-of-2.md", "text 2.1", "text 2.1 edited here");
    const chapter = emulator.state.get("chapters", ids.chapters[0]!) as { content: string };
    edit(emulator, "chapters", ids.chapters[0]!, {
      content: chapter.content.replace("text 1.1", "text 1.1 from the site"),
    });
    const { result } = await pullNamed([], [ids.chapters[0]!]);
    expect(result.changes.find((c) => c.path === file)?.outcome).toBe("updated");
    const text = await readFile(path.join(named.root, file), "utf8");
    expect(text).toContain("text 1.1 from the site");
    expect(text).toContain("last paragraph, edited here");
    await pullWhole();
    await same();
  });
});
