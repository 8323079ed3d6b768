import { cp } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { asPerson, git, isolatedGit } from "../helpers/git.js";
import { type PulledSite, pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

// Nothing is made twice: a new file created on the site by one clone whose id never came back
// (CI that could not commit it, a publish retried on a newer tip), a site that stores a create
// otherwise than it was sent. Real git holds the tree, as in a team's repository.

const start = useEmulators();
afterEach(cleanupTestdirs);

const NEW = "courses/web/03-new.md";
const NEW_TEXT = "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new, with a tpyo</p>\n";

/** A pulled site whose tree is a git repository with one commit; the CLI runs with git at hand. */
async function inGit(options: Parameters<typeof pulledSite>[1] = {}) {
  const s = await pulledSite(start, {
    body: "html",
    options: { now: manualClock().now },
    courses: [{ title: "Web" }],
    chapters: [{ course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>" }],
    ...options,
  });
  const gitEnv = asPerson(await isolatedGit(s.dir), "Ada");
  const env = { ...s.env, ...gitEnv };
  await git(gitEnv, s.root, "init", "-q");
  await git(gitEnv, s.root, "add", "-A");
  await git(gitEnv, s.root, "commit", "-qm", "pulled");
  const cli = (root: string, ...args: string[]) => runCli(args, { cwd: root, env });
  const commit = async (root: string, message: string) => {
    await git(gitEnv, root, "add", "-A");
    await git(gitEnv, root, "commit", "-qm", message);
  };
  return { s, gitEnv, cli, commit };
}

/** A copy of the repository as another clone has it (same commit, no later writes). */
async function cloneOf(s: PulledSite, name: string): Promise<string> {
  const other = path.join(s.dir, name);
  await cp(s.root, other, { recursive: true });
  return other;
}

const chaptersTitled = (s: PulledSite, title: string) =>
  s.emulator.state.dump().chapters.filter((c) => c.title === title);

describe("a new file created by a run whose id never came back", () => {
  it("is adopted by another clone that edited it since, and the edit is sent: one chapter", async () => {
    const { s, cli, commit } = await inGit();
    await s.write(NEW, NEW_TEXT);
    await commit(s.root, "a new chapter");
    const stale = await cloneOf(s, "stale");

    // One clone (CI) creates it and never commits the id back.
    expect((await cli(s.root, "push", "--yes")).code).toBe(0);
    expect(chaptersTitled(s, "New")).toHaveLength(1);
    const made = chaptersTitled(s, "New")[0]!;
    s.emulator.state.clearRequests();

    // Another clone of that commit fixes the typo, commits and pushes.
    const fixed = NEW_TEXT.replace("tpyo", "typo");
    await s.write(NEW, NEW_TEXT); // the first clone's tree stays as it was
    await cp(path.join(s.root, NEW), path.join(stale, NEW));
    const { writeFile } = await import("node:fs/promises");
    await writeFile(path.join(stale, NEW), fixed);
    await commit(stale, "fix a typo");
    const pushed = await cli(stale, "push", "--yes");
    expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0);
    expect(s.writes()).toEqual([`PATCH /api/v1/chapters/${made.id}`]);
    expect(chaptersTitled(s, "New")).toHaveLength(1);
    expect(chaptersTitled(s, "New")[0]?.content).toBe("<p>new, with a typo</p>");
    expect(pushed.stdout).toContain(
      `made by an earlier push from an older version of the file that no sync knew (chapter ${made.id})`,
    );
    const { readFile } = await import("node:fs/promises");
    expect(await readFile(path.join(stale, NEW), "utf8")).toMatch(new RegExp(`^---\\nid: ${made.id}\\n`));
    expect((await cli(stale, "status", "--exit-code")).code).toBe(0);
  });

  it("is adopted on a newer tip where the file was edited (a publish retried after origin moved)", async () => {
    const { s, cli, commit } = await inGit();
    await s.write(NEW, NEW_TEXT);
    await commit(s.root, "a new chapter");
    const first = await cloneOf(s, "first-attempt");
    expect((await cli(first, "push", "--yes")).code).toBe(0);
    const made = chaptersTitled(s, "New")[0]!;
    s.emulator.state.clearRequests();
    // The tip moved meanwhile: a merge retitled the new chapter.
    await s.replace(NEW, "title: New\n", "title: Brand new\n");
    await commit(s.root, "retitle");
    const retried = await cli(s.root, "push", "--yes");
    expect(retried.code, retried.stdout + retried.stderr).toBe(0);
    expect(s.writes()).toEqual([`PATCH /api/v1/chapters/${made.id}`]);
    expect(
      s.emulator.state
        .dump()
        .chapters.map((c) => c.title)
        .sort(),
    ).toEqual(["Brand new", "Intro"]);
  });

  it("two site records that could both be it stop the push for it (exit 3), naming both; nothing is created", async () => {
    const { s, cli, commit } = await inGit();
    await s.write(NEW, NEW_TEXT);
    await commit(s.root, "a new chapter");
    const twin = await cloneOf(s, "twin");
    // Two runs at once made it twice already.
    expect((await cli(await cloneOf(s, "a"), "push", "--yes")).code).toBe(0);
    s.emulator.state.createChapter({
      chapter: { course_id: 1, title: "New", ordinal: 3, content: "<p>new, with a tpyo</p>" },
    });
    const ids = chaptersTitled(s, "New").map((c) => c.id);
    s.emulator.state.clearRequests();
    const stopped = await cli(twin, "push", "--yes");
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(3);
    expect(stopped.stdout + stopped.stderr).toContain(
      `chapter ${Math.max(...ids)} and chapter ${Math.min(...ids)}`,
    );
    expect(s.writes()).toEqual([]);
    expect(chaptersTitled(s, "New")).toHaveLength(2);
  });

  it("never takes someone else's record: a new course sent without a status is not a published one of the same title", async () => {
    const { s, cli, commit } = await inGit();
    s.emulator.state.createCourse({ course: { title: "Shared", status: 1 } });
    await s.write("courses/shared/course.yaml", "title: Shared\n");
    await commit(s.root, "a new course");
    const pushed = await cli(s.root, "push", "--yes");
    expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0);
    expect(s.writes()).toEqual(["POST /api/v1/courses"]);
    expect(
      s.emulator.state
        .dump()
        .courses.filter((c) => c.title === "Shared")
        .map((c) => c.status)
        .sort(),
    ).toEqual(["draft", "published"]);
  });
});

describe("a site that stores a create otherwise than sent", () => {
  it("places a new chapter itself (acts_as_list): the create is taken, once; the file gets the site's ordinal", async () => {
    const { s, cli } = await inGit({ options: { now: manualClock().now, normalise: { ordinals: "place" } } });
    await s.write(NEW, NEW_TEXT.replace("ordinal: 3", "ordinal: 90"));
    const pushed = await cli(s.root, "push", "--yes");
    expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0);
    const made = chaptersTitled(s, "New");
    expect(made).toHaveLength(1);
    expect(made[0]?.ordinal).toBe(2);
    expect(pushed.stdout).toContain("the site stored it otherwise than sent (ordinal is 2, not 90)");
    expect(await s.read(NEW)).toBe(
      `---\nid: ${made[0]?.id}\ntitle: New\nordinal: 2\nformat: html\n---\n<p>new, with a tpyo</p>\n`,
    );
    for (let i = 0; i < 2; i++) {
      const again = await cli(s.root, "push", "--yes");
      expect(again.stdout).toContain("Nothing to push");
    }
    expect(chaptersTitled(s, "New")).toHaveLength(1);
    expect((await cli(s.root, "status", "--exit-code")).code).toBe(0);
  });

  it("trims titles: the create is taken once and the file gets the title as stored", async () => {
    const { s, cli } = await inGit({ options: { now: manualClock().now, normalise: { titles: "trim" } } });
    await s.write(NEW, NEW_TEXT.replace("title: New", "title: '  New   one '"));
    const pushed = await cli(s.root, "push", "--yes");
    expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0);
    expect(chaptersTitled(s, "New one")).toHaveLength(1);
    expect(await s.read(NEW)).toContain("\ntitle: New one\n");
    expect((await cli(s.root, "push", "--yes")).stdout).toContain("Nothing to push");
  });
});

describe("records already made twice on the site", () => {
  it("are named by pull, check and doctor, with how to remove one", async () => {
    const { s, cli } = await inGit();
    for (let i = 0; i < 2; i++)
      s.emulator.state.createChapter({
        chapter: { course_id: 1, title: "Twice", ordinal: 2, content: "<p>x</p>" },
      });
    const ids = chaptersTitled(s, "Twice").map((c) => c.id);
    const pulled = await cli(s.root, "pull");
    expect(pulled.code, pulled.stderr).toBe(0);
    const said = `likely made twice on the site: chapters ${ids[0]} and ${ids[1]} ("Twice"`;
    expect(pulled.stderr).toContain(said);
    expect(pulled.stderr).toContain("If one is a copy, delete it on the site, then pull");
    const checked = await cli(s.root, "check");
    expect(checked.code).toBe(0);
    expect(checked.stderr).toContain(said);
    const doctor = await cli(s.root, "doctor");
    expect(doctor.stdout + doctor.stderr).toContain(said);
    // Once one is deleted on the site, nothing is said.
    s.emulator.state.remove("chapters", ids[1]!);
    const again = await cli(s.root, "pull");
    expect(again.stderr).not.toContain("likely made twice");
  });
});
