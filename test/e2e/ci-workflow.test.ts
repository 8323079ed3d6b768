/**
 * The CI recipes end to end, with real git and no network: a bare repository as origin, two
 * clones as two authors, the emulator as the site, and the publish and backup steps run as the
 * generated workflows run them (the built CLI, in a fresh clone each time).
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { processGit } from "../../src/ci/git.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { asPerson, git, isolatedGit } from "../helpers/git.js";
import { seedSite, writeRequests } from "../helpers/site.js";
import { runBin } from "../helpers/subprocess.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A machine with its own HOME and git config (none of the real one leaks in), an origin and a site. */
async function world() {
  const dir = await testdir();
  // The CI runner: no git identity at all (coursesync commits as its bot).
  const machine = await isolatedGit(dir);
  const person = (name: string) => asPerson(machine, name);
  const origin = path.join(dir, "origin.git");
  await git(machine, dir, "init", "--quiet", "--bare", origin);
  const emulator = await start({ seedDir: null, now: manualClock().now, admin: true });
  seedSite(emulator, {
    courses: [{ title: "Web" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>one</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
    ],
  });
  let clones = 0;
  /** A new clone of origin's main; returns its folder. */
  const clone = async (name = `ci-${++clones}`) => {
    const at = path.join(dir, name);
    await git(machine, dir, "clone", "--quiet", origin, at);
    return at;
  };
  const head = async () =>
    (await git(machine, origin, "log", "-1", "--format=%H %an <%ae> %s", "main")).trim();
  const commits = async () => Number((await git(machine, origin, "rev-list", "--count", "main")).trim());
  const show = (file: string) => git(machine, origin, "show", `main:${file}`);
  return { dir, machine, person, origin, emulator, clone, head, commits, show };
}

type World = Awaited<ReturnType<typeof world>>;

/** An author's clone: edit files of the tree (in content/), commit on a branch, merge it into main. */
async function author(w: World, name: string) {
  const env = w.person(name);
  const at = await w.clone(name.toLowerCase());
  const file = (rel: string) => path.join(at, "content", ...rel.split("/"));
  return {
    write: (rel: string, text: string) => writeFile(file(rel), text),
    replace: async (rel: string, from: string, to: string) => {
      const text = await readFile(file(rel), "utf8");
      expect(text).toContain(from);
      await writeFile(file(rel), text.replace(from, to));
    },
    /** Commit what changed on a new branch, then merge it into main (a merged pull request) and push. */
    merge: async (branch: string, message: string) => {
      await git(env, at, "checkout", "--quiet", "-b", branch);
      await git(env, at, "add", "--all");
      await git(env, at, "commit", "--quiet", "-m", message);
      await git(env, at, "checkout", "--quiet", "main");
      await git(env, at, "pull", "--quiet", "--no-rebase", "origin", "main");
      await git(env, at, "merge", "--quiet", "--no-ff", "-m", `Merge ${branch}`, branch);
      await git(env, at, "push", "--quiet", "origin", "main");
    },
  };
}

const TREE = "content";

describe("the CI workflow with real git (origin, two authors, the emulator as the site)", () => {
  it("publishes every merge once, commits ids back without a loop, survives a race, and backs up", async () => {
    const w = await world();
    const site = w.emulator;
    // The run steps of the generated publish and backup workflows, without `npx --no-install coursesync`.
    const steps: Record<string, string[][]> = {};

    // Setup: a tree in a subfolder of the repository, pulled, with the GitHub recipes, pushed.
    const setup = await w.clone("setup");
    const maintainer = w.person("Maintainer");
    const env = { ...w.machine, COURSESYNC_CONFIG_DIR: path.join(w.dir, "config") };
    expect((await runBin(["init", TREE, "--url", site.baseUrl], { cwd: setup, env })).code).toBe(0);
    const tree = path.join(setup, TREE);
    await writeFile(
      path.join(tree, "coursesync.yaml"),
      (await readFile(path.join(tree, "coursesync.yaml"), "utf8")).replace("body: markdown", "body: html"),
    );
    // The secret: a token printed by `login --print-token`, as the README says to make one.
    const login = await runBin(["login", "--print-token"], {
      cwd: tree,
      env: { ...env, COURSESYNC_EMAIL: "demo@example.com", COURSESYNC_PASSWORD: "coursesync" },
    });
    expect(login.code, login.stderr).toBe(0);
    const ci = { ...w.machine, CI: "true", COURSESYNC_TOKEN: login.stdout.trim() };
    expect((await runBin(["pull"], { cwd: tree, env: ci })).code).toBe(0);
    const recipes = await runBin(["ci", "github"], { cwd: tree, env: ci });
    expect(recipes.code, recipes.stderr).toBe(0);
    for (const job of ["publish", "backup"]) {
      const text = await readFile(path.join(setup, `.github/workflows/coursesync-${job}.yml`), "utf8");
      const workflow = parse(text) as { jobs: Record<string, { steps: Array<{ run?: string }> }> };
      const runs = workflow.jobs[job]!.steps.flatMap((step) => (step.run ? [step.run] : []));
      // First the pinned install (test/e2e/ci-install.test.ts runs it), then the installed copy.
      expect(runs[0]).toBe("npm ci --no-audit --no-fund");
      steps[job] = runs.slice(1).map((run) => {
        const words = run.split(" ");
        expect(words.slice(0, 3)).toEqual(["npx", "--no-install", "coursesync"]);
        return words.slice(3);
      });
    }
    const publishStep = ["-C", TREE, "ci", "publish", "--branch", "main"];
    expect(steps.publish).toEqual([publishStep]);
    // The backup job publishes first (GitHub cancels a pending publish when a backup joins the group).
    expect(steps.backup).toEqual([publishStep, ["-C", TREE, "ci", "backup", "--branch", "main"]]);
    await git(maintainer, setup, "add", "--all");
    await git(maintainer, setup, "commit", "--quiet", "-m", "Course content and CI");
    await git(maintainer, setup, "push", "--quiet", "origin", "HEAD:main");
    site.state.clearRequests();
    const publish = async () => runBin(steps.publish![0]!, { cwd: await w.clone(), env: ci });
    /** The backup job: its steps in one clone, each run even when the one before failed. */
    const backup = async () => {
      const cwd = await w.clone();
      const published = await runBin(steps.backup![0]!, { cwd, env: ci });
      return { published, ...(await runBin(steps.backup![1]!, { cwd, env: ci })) };
    };

    // Two authors: A adds a chapter on a branch, B edits another; both merge.
    const a = await author(w, "Alice");
    const b = await author(w, "Bob");
    await a.write("courses/web/03-new.md", "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n");
    await a.merge("add-new", "Add a chapter");
    await b.replace("courses/web/02-tags.md", "<p>tags</p>", "<p>tags, edited</p>");
    await b.merge("edit-tags", "Edit Tags");

    // Publish, as CI runs it after the merges: both edits reach the site, the ids come back.
    const first = await publish();
    expect(first.code, first.stderr).toBe(0);
    expect(writeRequests(site).map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/chapters",
      "PATCH /api/v1/chapters/2",
    ]);
    expect(await w.head()).toMatch(
      /^[0-9a-f]{40} coursesync <coursesync@users\.noreply\.github\.com> coursesync: ids and snapshot after publish \[skip ci\]$/,
    );
    expect(await w.show(`${TREE}/courses/web/03-new.md`)).toBe(
      "---\nid: 3\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n",
    );
    // The snapshot's file of course 1 holds its chapters.
    const snapshot = JSON.parse(await w.show(`${TREE}/.coursesync/production/courses/1.json`)) as {
      chapters: Record<string, unknown>;
    };
    expect(Object.keys(snapshot.chapters).sort()).toEqual(["1", "2", "3"]);
    const cache = await git(w.machine, w.origin, "ls-tree", "-r", "--name-only", "main");
    expect(cache).not.toMatch(/\.coursesync\/cache|\.lock|\.tmp|\.pending/);
    expect(cache).toContain(`${TREE}/.coursesync/production/site.json`);

    // Publish again (the run the commit-back would start, were it not [skip ci]): it sends
    // nothing and commits nothing.
    site.state.clearRequests();
    const commitsBefore = await w.commits();
    const second = await publish();
    expect(second.code, second.stderr).toBe(0);
    expect(writeRequests(site)).toEqual([]);
    expect(await w.commits()).toBe(commitsBefore);

    // A race: A merges a new chapter; while its publish runs, B merges a title edit. The publish's
    // git push is refused; it starts again from the new tip, adopts what it created, sends B's edit.
    await a.write("courses/web/04-extra.md", "---\ntitle: Extra\nordinal: 4\nformat: html\n---\n<p>x</p>\n");
    await a.merge("add-extra", "Add Extra");
    await b.replace("courses/web/01-intro.md", "title: Intro", "title: Introduction");
    site.state.clearRequests();
    const realGit = processGit(ci);
    let raced = 0;
    const racing = await runCli(steps.publish![0]!, {
      cwd: await w.clone(),
      env: ci,
      git: async (args, cwd) => {
        if (args[0] === "push" && raced++ === 0) await b.merge("retitle-intro", "Retitle Intro");
        return realGit(args, cwd);
      },
    });
    expect(racing.code, racing.stderr).toBe(0);
    expect(racing.stderr).toContain("origin/main moved while this job ran (another merge)");
    expect(racing.stdout).toContain("adopted, not created again");
    expect(writeRequests(site).map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/chapters",
      "PATCH /api/v1/chapters/1",
    ]);
    expect(await w.head()).toMatch(/coursesync: ids and snapshot after publish \[skip ci\]$/);
    expect(await w.show(`${TREE}/courses/web/04-extra.md`)).toMatch(/^---\nid: 4\n/);
    expect(await w.show(`${TREE}/courses/web/01-intro.md`)).toContain("title: Introduction");

    // A publish that did not commit back (a plain `push --yes`), then one whose clone predates
    // that push: it adopts the chapter the first made, and commits its id.
    await a.write("courses/web/05-fifth.md", "---\ntitle: Fifth\nordinal: 5\nformat: html\n---\n<p>5</p>\n");
    await a.merge("add-fifth", "Add Fifth");
    site.state.clearRequests();
    const plain = await runBin(["-C", TREE, "push", "--yes"], { cwd: await w.clone(), env: ci });
    expect(plain.code, plain.stderr).toBe(0);
    const stale = await publish();
    expect(stale.code, stale.stderr).toBe(0);
    expect(writeRequests(site).map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/v1/chapters"]);
    expect(await w.show(`${TREE}/courses/web/05-fifth.md`)).toMatch(/^---\nid: 5\n/);

    // Every edit is on the site once, and no record twice.
    const chapters = site.state.dump().chapters.map((c) => [c.id, c.title, c.content]);
    expect(chapters).toEqual([
      [1, "Introduction", "<p>one</p>"],
      [2, "Tags", "<p>tags, edited</p>"],
      [3, "New", "<p>new</p>"],
      [4, "Extra", "<p>x</p>"],
      [5, "Fifth", "<p>5</p>"],
    ]);

    // A merge whose publish never ran (GitHub cancelled it while pending, as a backup joined the
    // group): the backup job publishes it first. Then an edit made on the site by someone else is
    // committed; a second backup commits nothing.
    await b.replace("courses/web/01-intro.md", "<p>one</p>", "<p>one, edited</p>");
    await b.merge("edit-intro", "Edit Intro");
    const edited = await site.admin("POST", "/edit", {
      resource: "chapters",
      id: 2,
      fields: { content: "<p>from the site</p>" },
    });
    expect(edited.status).toBe(200);
    site.state.clearRequests();
    const saved = await backup();
    expect(saved.published.code, saved.published.stderr).toBe(0);
    expect(saved.code, saved.stderr).toBe(0);
    expect(writeRequests(site).map((r) => `${r.method} ${r.path}`)).toEqual(["PATCH /api/v1/chapters/1"]);
    expect(site.state.dump().chapters[0]?.content).toBe("<p>one, edited</p>");
    expect(await w.show(`${TREE}/courses/web/01-intro.md`)).toContain("<p>one, edited</p>");
    expect(await w.head()).toMatch(
      /coursesync <coursesync@users\.noreply\.github\.com> coursesync: backup of production \[skip ci\]$/,
    );
    expect(await w.show(`${TREE}/courses/web/02-tags.md`)).toContain("<p>from the site</p>");
    expect(await w.show(`${TREE}/events.ndjson`)).toContain('"chapter.updated"');
    const afterBackup = await w.commits();
    site.state.clearRequests();
    const again = await backup();
    expect(again.published.code, again.published.stderr).toBe(0);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("nothing changed in the tree: nothing to commit");
    expect(await w.commits()).toBe(afterBackup);
    expect(writeRequests(site)).toEqual([]);

    // A merge that conflicts with the site: the publish holds that record (exit 3), sends and
    // commits nothing else (there is nothing else), and tells the author what to do.
    await b.replace("courses/web/01-intro.md", "title: Introduction", "title: Intro, again");
    await b.merge("retitle-again", "Retitle Intro again");
    expect(
      (await site.admin("POST", "/edit", { resource: "chapters", id: 1, fields: { title: "Site title" } }))
        .status,
    ).toBe(200);
    site.state.clearRequests();
    const headBefore = await w.head();
    const conflict = await publish();
    expect(conflict.code).toBe(3);
    expect(conflict.stderr).toContain(
      "Run `coursesync pull` in a clone of this branch, resolve the conflicts",
    );
    expect(conflict.stderr).toContain("publish held 1 record back");
    expect(conflict.stderr).toContain("courses/web/01-intro.md");
    expect(await w.head()).toBe(headBefore);
    expect(writeRequests(site)).toEqual([]);
    // A backup meanwhile meets the same conflict: it commits what it pulled (the site's edit
    // came with an event) and names what waits; the branch gets no conflict copy and no marker.
    const stuck = await backup();
    expect(stuck.published.code).toBe(3);
    expect(stuck.code).toBe(3);
    expect(stuck.stderr).toContain("backup: 1 record waits on a conflict: courses/web/01-intro.md");
    expect(await w.head()).toMatch(/coursesync: backup of production \[skip ci\]$/);
    expect(await w.show(`${TREE}/courses/web/01-intro.md`)).toContain("title: Intro, again\n");
    expect(await w.show(`${TREE}/courses/web/01-intro.md`)).not.toContain("<<<<<<<");
    const branchFiles = await git(w.machine, w.origin, "ls-tree", "-r", "--name-only", "main");
    expect(branchFiles).not.toContain(".remote.");
    expect(writeRequests(site)).toEqual([]);
    // No secret reaches the job's log.
    const jobs = [saved, again, stuck].flatMap((job) => [job, job.published]);
    for (const run of [first, second, racing, plain, stale, conflict, ...jobs])
      expect(run.stdout + run.stderr).not.toContain(ci.COURSESYNC_TOKEN);
  }, 120_000); // dozens of CLI runs and git commands in fresh clones, one after the other
});
