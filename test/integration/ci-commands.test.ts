import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/version.js";
import { runCli } from "../helpers/cli.js";
import { asPerson, git, isolatedGit } from "../helpers/git.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const URL = "https://academy.example.com/api/v1";

/** A git repository whose course tree is the subfolder `site/content`, committed on main. */
async function repoWithSubfolderTree() {
  const dir = await testdir();
  const env = asPerson(await isolatedGit(dir), "Maintainer");
  const repo = path.join(dir, "repo");
  await mkdir(repo);
  await git(env, repo, "init", "--quiet");
  const tree = path.join(repo, "site", "content");
  const cli = (cwd: string, ...args: string[]) => runCli(args, { cwd, env });
  expect((await cli(repo, "init", "site/content", "--url", URL)).code).toBe(0);
  await git(env, repo, "add", "--all");
  await git(env, repo, "commit", "--quiet", "-m", "tree");
  return { dir, env, repo, tree, cli };
}

describe("coursesync ci github", () => {
  it("writes the workflows at the repository's top for a tree in a subfolder, on that subfolder", async () => {
    const { repo, tree, cli } = await repoWithSubfolderTree();
    const result = await cli(tree, "ci", "github");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        "wrote .github/workflows/coursesync-check.yml",
        "wrote .github/workflows/coursesync-publish.yml",
        "wrote .github/workflows/coursesync-backup.yml",
        "wrote package.json",
        "wrote .gitignore",
        "",
      ].join("\n"),
    );
    expect(existsSync(path.join(tree, ".github"))).toBe(false);
    const publish = await readFile(path.join(repo, ".github/workflows/coursesync-publish.yml"), "utf8");
    expect(publish).toMatch(/run: npx --no-install coursesync -C site\/content ci publish --branch main\n/);
    // The jobs install the coursesync package.json pins, exactly this version.
    expect(JSON.parse(await readFile(path.join(repo, "package.json"), "utf8"))).toMatchObject({
      private: true,
      devDependencies: { coursesync: VERSION },
    });
    expect(await readFile(path.join(repo, ".gitignore"), "utf8")).toMatch(/^node_modules\/$/m);
    // What must exist first: the lockfile, the secrets, a branch the bot may push to.
    expect(result.stderr).toContain(
      `package.json pins coursesync ${VERSION}. Run \`npm install\` at the repository's top to write package-lock.json, and commit both`,
    );
    expect(result.stderr).toContain("COURSESYNC_TOKEN");
    expect(result.stderr).toContain("COURSESYNC_EMAIL and COURSESYNC_PASSWORD");
    expect(result.stderr).toContain("if main is protected, allow GitHub Actions to push to it");
  });

  it("pins a tarball in the repository with --from, keeps the project's own package.json, and refuses a range", async () => {
    const { repo, tree, cli } = await repoWithSubfolderTree();
    await writeFile(
      path.join(repo, "package.json"),
      '{\n  "name": "docs",\n  "devDependencies": { "vite": "5.0.0" }\n}\n',
    );
    const ranged = await cli(tree, "ci", "github", "--from", "^0.1.0");
    expect(ranged.code).toBe(2);
    expect(ranged.stderr).toContain("--from ^0.1.0: the jobs must install one exact coursesync");
    expect(existsSync(path.join(repo, ".github"))).toBe(false);
    const spec = `file:vendor/coursesync-${VERSION}.tgz`;
    const result = await cli(tree, "ci", "github", "--from", spec);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(await readFile(path.join(repo, "package.json"), "utf8"))).toEqual({
      name: "docs",
      devDependencies: { vite: "5.0.0", coursesync: spec },
    });
    expect(result.stderr).toContain(`First put the tarball at vendor/coursesync-${VERSION}.tgz`);
    // Again, with the lockfile made: package.json is right already, the lockfile is to commit.
    await writeFile(
      path.join(repo, "package-lock.json"),
      JSON.stringify({ packages: { "node_modules/coursesync": { resolved: spec, integrity: "sha512-x" } } }),
    );
    const again = await cli(tree, "ci", "github", "--from", spec, "--force");
    expect(again.stdout).not.toContain("package.json");
    expect(again.stderr).toContain("package-lock.json locks it: commit it with package.json");
  });

  it("refuses to overwrite a workflow without --force, writing none; --force writes them all", async () => {
    const { repo, tree, cli } = await repoWithSubfolderTree();
    const check = path.join(repo, ".github/workflows/coursesync-check.yml");
    await mkdir(path.dirname(check), { recursive: true });
    await writeFile(check, "# my own edits\n");
    const refused = await cli(tree, "ci", "github");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(".github/workflows/coursesync-check.yml already exists");
    expect(refused.stderr).toContain("--force");
    expect(await readFile(check, "utf8")).toBe("# my own edits\n");
    expect(existsSync(path.join(repo, ".github/workflows/coursesync-publish.yml"))).toBe(false);
    const forced = await cli(tree, "ci", "github", "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(check, "utf8")).toMatch(/^# Generated by `coursesync ci github`/);
  });

  it("brings the editor schemas of a tree an older init made up to date, committed with the tree", async () => {
    const { env, repo, tree, cli } = await repoWithSubfolderTree();
    // An older init: no schemas, and a .gitignore that ignores everything in .coursesync/ but the snapshot.
    await rm(path.join(tree, ".coursesync/schemas"), { recursive: true });
    const gitignore = path.join(tree, ".gitignore");
    await writeFile(gitignore, (await readFile(gitignore, "utf8")).replace("!.coursesync/schemas/\n", ""));
    await git(env, repo, "add", "--all");
    await git(env, repo, "commit", "--quiet", "-m", "as an older init left it");
    const stale = path.join(tree, ".coursesync/schemas/course.schema.json");
    const result = await cli(tree, "ci", "github");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split("\n").slice(5)).toEqual([
      "wrote site/content/.coursesync/schemas/coursesync.schema.json",
      "wrote site/content/.coursesync/schemas/course.schema.json",
      "wrote site/content/.coursesync/schemas/chapter.schema.json",
      "wrote site/content/.gitignore",
      "",
    ]);
    expect(result.stdout.split("\n").slice(3, 5)).toEqual(["wrote package.json", "wrote .gitignore"]);
    expect(JSON.parse(await readFile(stale, "utf8"))).toMatchObject({ type: "object" });
    // git takes them: `git add --all` stages them, and still not the cache.
    await mkdir(path.join(tree, ".coursesync/cache"), { recursive: true });
    await writeFile(path.join(tree, ".coursesync/cache/x"), "cache");
    await git(env, repo, "add", "--all");
    const staged = await git(env, repo, "diff", "--cached", "--name-only");
    expect(staged).toContain("site/content/.coursesync/schemas/course.schema.json");
    expect(staged).not.toContain(".coursesync/cache");
    // Current already: a second run writes no schema.
    expect((await cli(tree, "ci", "github", "--force")).stdout).not.toContain("schemas");
  });

  it("outside a git repository says to run git init (exit 2)", async () => {
    const dir = await testdir();
    const env = await isolatedGit(dir);
    expect((await runCli(["init", "tree", "--url", URL], { cwd: dir, env })).code).toBe(0);
    const result = await runCli(["ci", "github"], { cwd: path.join(dir, "tree"), env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not in a git repository\n.*git init/);
  });
});

describe("coursesync ci gitlab", () => {
  it("writes .gitlab-ci.yml; beside a pipeline of the project's own, its own file to include", async () => {
    const { repo, tree, cli } = await repoWithSubfolderTree();
    const first = await cli(tree, "ci", "gitlab");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe("wrote .gitlab-ci.yml\nwrote package.json\nwrote .gitignore\n");
    // GitLab caches npm's downloads in .npm inside the project: never committed.
    expect(await readFile(path.join(repo, ".gitignore"), "utf8")).toMatch(/^node_modules\/\n\.npm\/$/m);
    // Ours again: refused without --force.
    expect((await cli(tree, "ci", "gitlab")).code).toBe(2);

    await writeFile(path.join(repo, ".gitlab-ci.yml"), "build:\n  script: [make]\n");
    const beside = await cli(tree, "ci", "gitlab");
    expect(beside.code, beside.stderr).toBe(0);
    expect(beside.stdout).toContain("wrote .gitlab/coursesync.gitlab-ci.yml");
    expect(beside.stdout).toContain("include:\n  - local: .gitlab/coursesync.gitlab-ci.yml\n");
    expect(await readFile(path.join(repo, ".gitlab-ci.yml"), "utf8")).toBe("build:\n  script: [make]\n");
    expect(await readFile(path.join(repo, ".gitlab/coursesync.gitlab-ci.yml"), "utf8")).toContain(
      "-C site/content ci publish --branch main",
    );
  });
});

describe("coursesync ci publish and ci backup", () => {
  it.each([["publish"], ["backup"]])(
    "%s refuses a working tree with changes (exit 2), touching nothing",
    async (job) => {
      const { env, repo, tree, cli } = await repoWithSubfolderTree();
      await writeFile(
        path.join(tree, "coursesync.yaml"),
        `${await readFile(path.join(tree, "coursesync.yaml"), "utf8")}# edit\n`,
      );
      const result = await cli(tree, "ci", job!, "--branch", "main");
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("the working tree has changes (site/content/coursesync.yaml)");
      expect(await git(env, repo, "status", "--porcelain")).toBe(" M site/content/coursesync.yaml\n");
    },
  );

  it("rejects --attempts that is not a whole number of 1 or more", async () => {
    const { tree, cli } = await repoWithSubfolderTree();
    const result = await cli(tree, "ci", "publish", "--attempts", "0");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--attempts 0: give a whole number of 1 or more");
  });
});
