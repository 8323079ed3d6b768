/**
 * One conflict holds one record in the CI jobs, with real git: a bare origin, an author's clone,
 * the emulator as the site, and `ci publish` / `ci backup` each in a fresh clone, as CI runs them.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { asPerson, git, isolatedGit } from "../helpers/git.js";
import { cliEnv, edit, pulledSite, seedSite, writeRequests } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const TREE = "content";
const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";
const EXTRA = "courses/web/03-extra.md";

/** An origin holding a pulled tree (in content/) of "Web": Intro (1), Tags (2), Extra (3); HTML bodies. */
async function world() {
  const dir = await testdir();
  const machine = await isolatedGit(dir);
  const maintainer = asPerson(machine, "Maintainer");
  const origin = path.join(dir, "origin.git");
  await git(machine, dir, "init", "--quiet", "--bare", origin);
  const site = await start({ seedDir: null, now: manualClock().now, admin: true });
  seedSite(site, {
    courses: [{ title: "Web" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>one</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
      { course_id: 1, title: "Extra", ordinal: 3, content: "<p>extra</p>" },
    ],
  });
  const env = { ...machine, ...cliEnv(dir) };
  let clones = 0;
  const clone = async (name = `ci-${++clones}`) => {
    const at = path.join(dir, name);
    await git(machine, dir, "clone", "--quiet", origin, at);
    return at;
  };
  const setup = await clone("setup");
  const cli = (cwd: string, ...args: string[]) => runCli(args, { cwd, env });
  expect((await cli(setup, "init", TREE, "--url", site.baseUrl, "--no-check")).code).toBe(0);
  const config = path.join(setup, TREE, "coursesync.yaml");
  await writeFile(config, (await readFile(config, "utf8")).replace("body: markdown", "body: html"));
  expect((await cli(path.join(setup, TREE), "pull")).code).toBe(0);
  await git(maintainer, setup, "add", "--all");
  await git(maintainer, setup, "commit", "--quiet", "-m", "Course content");
  await git(maintainer, setup, "push", "--quiet", "origin", "HEAD:main");
  site.state.clearRequests();
  const show = (file: string) => git(machine, origin, "show", `main:${TREE}/${file}`);
  const head = async () => (await git(machine, origin, "log", "-1", "--format=%H %s", "main")).trim();
  const files = async () =>
    (await git(machine, origin, "ls-tree", "-r", "--name-only", "main")).trim().split("\n");
  /** A CI job (`ci publish`, `ci backup`) in a fresh clone of origin. */
  const job = async (name: "publish" | "backup") =>
    cli(await clone(), "-C", TREE, "ci", name, "--branch", "main");
  /** An author's clone: change files of the tree, commit, push to main. */
  const author = async (change: (file: (rel: string) => string) => Promise<void>) => {
    const at = await clone(`author-${++clones}`);
    await change((rel) => path.join(at, TREE, ...rel.split("/")));
    const person = asPerson(machine, "Alice");
    await git(person, at, "add", "--all");
    await git(person, at, "commit", "--quiet", "-m", "Edits");
    await git(person, at, "push", "--quiet", "origin", "HEAD:main");
  };
  return { site, show, head, files, job, author };
}

/** Replace `from` by `to` in a file (it must hold `from`). */
async function replace(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, "utf8");
  expect(text).toContain(from);
  await writeFile(file, text.replace(from, to));
}

describe("ci publish and ci backup: one conflict holds one record", () => {
  it("publish sends the clean merge beside a conflict, commits its ids, and exits 3 naming the conflict; backup commits the rest it pulled and the events, and exits 3 naming what waits", async () => {
    const w = await world();
    // A merge: Intro retitled (the site retitles it too), Tags' body edited, a new chapter.
    await w.author(async (file) => {
      await replace(file(INTRO), "title: Intro", "title: Intro, ours");
      await replace(file(TAGS), "<p>tags</p>", "<p>tags, ours</p>");
      await writeFile(
        file("courses/web/04-new.md"),
        "---\ntitle: New\nordinal: 4\nformat: html\n---\n<p>new</p>\n",
      );
    });
    edit(w.site, "chapters", 1, { title: "Intro, site" });

    const published = await w.job("publish");
    expect(published.code, published.stderr).toBe(3);
    expect(writeRequests(w.site).map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/chapters",
      "PATCH /api/v1/chapters/2",
    ]);
    expect(w.site.state.get("chapters", 1)?.title).toBe("Intro, site");
    expect(w.site.state.get("chapters", 2)?.content).toBe("<p>tags, ours</p>");
    expect(published.stderr).toContain(
      `publish held 1 record back, in conflict with the site or waiting on one: ${INTRO} (see above); the rest was sent, and its ids and snapshot are committed`,
    );
    expect(published.stderr).toContain(
      "Run `coursesync pull` in a clone of this branch, resolve the conflicts",
    );
    expect(published.stdout).toContain(`  held ${INTRO} (chapter 1): run \`coursesync pull\``);
    // The new chapter's id is committed back: no later run creates it again.
    expect(await w.head()).toMatch(/ coursesync: ids and snapshot after publish \[skip ci\]$/);
    expect(await w.show("courses/web/04-new.md")).toMatch(/^---\nid: 4\n/);
    expect(await w.show(INTRO)).toContain("title: Intro, ours\n");

    // A publish again sends nothing more and still names the conflict.
    w.site.state.clearRequests();
    const again = await w.job("publish");
    expect(again.code).toBe(3);
    expect(writeRequests(w.site)).toEqual([]);

    // Meanwhile someone edits Extra on the site. The backup takes it in with the events and
    // commits, though Intro is in conflict; Intro keeps the branch's file: no markers, no copy.
    edit(w.site, "chapters", 3, { content: "<p>extra, from the site</p>" });
    const backup = await w.job("backup");
    expect(backup.code, backup.stderr).toBe(3);
    expect(backup.stderr).toContain(
      `backup: 1 record waits on a conflict: ${INTRO} (see above); everything else pulled, with the events, is committed`,
    );
    expect(await w.head()).toMatch(/ coursesync: backup of production \[skip ci\]$/);
    expect(await w.show(EXTRA)).toContain("<p>extra, from the site</p>");
    const events = await w.show("events.ndjson");
    expect(events).toContain('"chapter.updated"');
    expect(await w.show(INTRO)).toBe(
      "---\nid: 1\ntitle: Intro, ours\nordinal: 1\nformat: html\n---\n<p>one</p>\n",
    );
    expect((await w.files()).filter((f) => f.includes(".remote."))).toEqual([]);

    // The next backup finds the same conflict, commits nothing new, and names it again.
    const head = await w.head();
    const next = await w.job("backup");
    expect(next.code).toBe(3);
    expect(next.stderr).toContain(`backup: 1 record waits on a conflict: ${INTRO}`);
    expect(next.stderr).toContain("nothing changed in the tree: nothing to commit");
    expect(await w.head()).toBe(head);
    expect(w.site.state.get("chapters", 1)?.title).toBe("Intro, site");
  }, 60_000); // a dozen git commands and jobs, each in a fresh clone
});

describe("pull --no-markers (what ci backup runs)", () => {
  it("writes the site's version of a body conflict beside the file, never markers in it, and keeps the last sync", async () => {
    const s = await pulledSite(start, {
      body: "html",
      options: { now: manualClock().now },
      courses: [{ title: "Web" }],
      chapters: [{ course_id: 1, title: "Intro", ordinal: 1, content: "<p>a</p>\n<p>b</p>\n<p>c</p>" }],
    });
    const INTRO_FILE = "courses/web/01-intro.md";
    await s.replace(INTRO_FILE, "<p>b</p>", "<p>b, mine</p>");
    const mine = await s.read(INTRO_FILE);
    edit(s.emulator, "chapters", 1, { content: "<p>a</p>\n<p>b, theirs</p>\n<p>c</p>" });

    for (const run of [1, 2]) {
      const pulled = await s.cli("pull", "--no-markers");
      expect(pulled.code, `pull ${run}`).toBe(3);
      expect(await s.read(INTRO_FILE)).toBe(mine);
      expect(await s.read("courses/web/01-intro.remote.md")).toContain("<p>b, theirs</p>");
    }
    // The conflict is still there for push: nothing is overwritten.
    const pushed = await s.cli("push", "--yes");
    expect(pushed.code).toBe(3);
    expect(s.writes()).toEqual([]);
    // A plain pull then writes the markers, as always.
    expect((await s.cli("pull")).code).toBe(3);
    expect(await s.read(INTRO_FILE)).toContain("<<<<<<< local");
  });
});
