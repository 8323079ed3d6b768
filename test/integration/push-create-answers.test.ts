import { afterEach, describe, expect, it } from "vitest";
import { useEmulators } from "../helpers/emulator.js";
import { answerCreatesWith, type Fields, type PulledSite, pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";
const NEW = "courses/web/03-new.md";
const NEW_TEXT = "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n";

/**
 * A pulled tree of "Web" (course 1: Intro 1, Tags 2), HTML bodies, with a new chapter file to
 * create and an edit of Tags to send after it.
 */
async function setup(): Promise<PulledSite> {
  const s = await pulledSite(start, {
    body: "html",
    courses: [{ title: "Web" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
    ],
  });
  await s.write(NEW, NEW_TEXT);
  await s.replace(TAGS, "title: Tags", "title: Tags, mine");
  return s;
}

/** The ids the tree's files carry (`id:` lines), each with the files that carry it. */
async function idsInFiles(s: PulledSite): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>();
  for (const [file, text] of Object.entries(await s.tree())) {
    if (!file.startsWith("courses/")) continue;
    const id = /^id: (\d+)$/m.exec(text)?.[1];
    const key = `${file.endsWith(".yaml") ? "course" : "chapter"} ${id}`;
    if (id !== undefined) ids.set(key, [...(ids.get(key) ?? []), file]);
  }
  return ids;
}

describe("a create answered with a record that is not the one sent", () => {
  it.each([
    ["made the chapter", true],
    ["made nothing", false],
  ])(
    "an answer naming a chapter the last sync knows is refused (the site %s): the file keeps its bytes, nothing later is sent, and the next push creates it once",
    async (_, apply) => {
      const s = await setup();
      const intro = await s.read(INTRO);
      const answerTruly = answerCreatesWith(
        s.emulator,
        "chapters",
        () => s.emulator.state.get("chapters", 1) as Fields,
        {
          apply,
        },
      );

      const refused = await s.cli("push", "--yes");
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      expect(refused.stdout).toContain(
        `x failed   ${NEW}  (new chapter; POST /api/v1/chapters answered 201 Created with chapter 1, ` +
          `which the last sync already knows, at ${INTRO}. Not taken as the new chapter: ${NEW} is left as it is, ` +
          "and the next push looks for a chapter this POST may have made (and adopts it) before creating one)",
      );
      expect(refused.stdout).toContain(
        `? skipped  ${TAGS}  (chapter 2; not applied: an earlier write failed)`,
      );
      expect(await s.read(NEW)).toBe(NEW_TEXT);
      expect(await s.read(INTRO)).toBe(intro);
      expect([...(await idsInFiles(s)).values()].filter((files) => files.length > 1)).toEqual([]);
      expect(s.writes()).toEqual(["POST /api/v1/chapters"]);

      answerTruly();
      s.emulator.state.clearRequests();
      const next = await s.cli("push", "--yes");
      expect(next.code, next.stdout + next.stderr).toBe(0);
      const made = s.emulator.state.dump().chapters.filter((c) => c.title === "New");
      expect(made).toHaveLength(1);
      expect(s.writes()).toEqual([...(apply ? [] : ["POST /api/v1/chapters"]), "PATCH /api/v1/chapters/2"]);
      expect(await s.read(NEW)).toBe(NEW_TEXT.replace("---\n", `---\nid: ${made[0]!.id}\n`));
      expect([...(await idsInFiles(s)).values()].filter((files) => files.length > 1)).toEqual([]);
      expect((await s.cli("status", "--exit-code")).code).toBe(0);
    },
  );

  it("a course create answered with another title is refused; a pull adopts the course the POST made", async () => {
    const s = await setup();
    await s.write("courses/rust/course.yaml", "title: Rust\n");
    const answerTruly = answerCreatesWith(s.emulator, "courses", (made) => ({
      ...made,
      title: "Rust for the site",
    }));

    const refused = await s.cli("push", "--yes");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /x failed {3}courses\/rust {2}\(new course; POST \/api\/v1\/courses answered 201 Created with course 2, whose title is "Rust for the site", not "Rust" as sent\. Not taken as the new course/,
    );
    expect(await s.read("courses/rust/course.yaml")).toBe("title: Rust\n");
    expect(s.writes()).toEqual(["POST /api/v1/courses"]);

    answerTruly();
    const pulled = await s.cli("pull");
    expect(pulled.code, pulled.stdout + pulled.stderr).toBe(0);
    expect(await s.read("courses/rust/course.yaml")).toMatch(/^id: 2\ntitle: Rust\n/);
    s.emulator.state.clearRequests();
    const next = await s.cli("push", "--yes");
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(s.writes().filter((w) => w.startsWith("POST"))).toEqual(["POST /api/v1/chapters"]);
    expect(s.emulator.state.dump().courses.map((c) => c.title)).toEqual(["Web", "Rust"]);
  });
});
