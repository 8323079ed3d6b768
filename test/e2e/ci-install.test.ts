/**
 * The install step of the generated workflows, run for real against this project packed by
 * `npm pack`: the content repository's package.json pins the tarball, `npm install` makes the
 * lockfile as its README step says, the workflow's own `npm ci` installs from it, and the
 * workflow's check step runs the installed copy.
 *
 * Needs: the build (`npm run build`, which `npm test` runs first), npm, and the dependencies
 * of coursesync in npm's cache, which this project's own `npm ci` filled; npm may still ask the
 * registry for their metadata (`--prefer-offline` takes the cache first), so the registry must
 * be reachable unless the cache holds it too. About 30 s.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { VERSION } from "../../src/cli/version.js";
import { asPerson, git, isolatedGit } from "../helpers/git.js";
import { runBin } from "../helpers/subprocess.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * The environment npm runs with: this machine's (its HOME holds npm's cache), without what an
 * enclosing `npm test` sets for its own package (this project's .npmrc settings among them).
 */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_(config|package|lifecycle)_/i.test(key)),
  );
}

/** Run a command line of words; resolves with stdout, rejects with what it printed. */
function run(words: readonly string[], cwd: string): Promise<string> {
  const [command, ...args] = words;
  return new Promise((resolve, reject) => {
    execFile(command!, args, { cwd, env: npmEnv(), timeout: 45_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${words.join(" ")} failed: ${stderr}${stdout}`)) : resolve(stdout),
    );
  });
}

interface Workflow {
  jobs: Record<string, { steps: Array<{ run?: string }> }>;
}

describe("the generated workflows' install step", () => {
  it("installs the pinned tarball by its lockfile with npm ci, and runs that copy with npx --no-install", async () => {
    expect(existsSync(path.join(PROJECT, "dist", "bin", "coursesync.js")), "run `npm run build` first").toBe(
      true,
    );
    const dir = await testdir();
    const gitEnv = asPerson(await isolatedGit(dir), "Maintainer");
    const repo = path.join(dir, "repo");
    await mkdir(path.join(repo, "vendor"), { recursive: true });
    await git(gitEnv, repo, "init", "--quiet");
    const init = await runBin(
      ["init", "content", "--url", "https://academy.example.com/api/v1", "--no-check"],
      {
        cwd: repo,
        env: gitEnv,
      },
    );
    expect(init.code, init.stderr).toBe(0);
    await git(gitEnv, repo, "add", "--all");
    await git(gitEnv, repo, "commit", "--quiet", "-m", "tree");

    // This project, packed as a registry would serve it (built already: no scripts run).
    const tarball = `vendor/coursesync-${VERSION}.tgz`;
    await run(["npm", "pack", "--ignore-scripts", "--pack-destination", path.join(repo, "vendor")], PROJECT);
    const recipes = await runBin(["ci", "github", "--from", `file:${tarball}`], {
      cwd: path.join(repo, "content"),
      env: gitEnv,
    });
    expect(recipes.code, recipes.stderr).toBe(0);
    expect(recipes.stderr).toContain("Run `npm install` at the repository's top to write package-lock.json");

    // The person's step: the lockfile, holding the tarball's integrity hash.
    await run(["npm", "install", "--package-lock-only", "--prefer-offline", "--no-audit", "--no-fund"], repo);
    const lock = JSON.parse(await readFile(path.join(repo, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; integrity?: string; version?: string }>;
    };
    const sha512 = createHash("sha512")
      .update(await readFile(path.join(repo, tarball)))
      .digest("base64");
    expect(lock.packages["node_modules/coursesync"]).toMatchObject({
      version: VERSION,
      resolved: `file:${tarball}`,
      integrity: `sha512-${sha512}`,
    });
    const again = await runBin(["ci", "github", "--from", `file:${tarball}`, "--force"], {
      cwd: path.join(repo, "content"),
      env: gitEnv,
    });
    expect(again.stderr).toContain("package-lock.json locks it: commit it with package.json");

    // The workflow's steps, as written: its install (npm's cache first), then its check.
    const check = parse(
      await readFile(path.join(repo, ".github/workflows/coursesync-check.yml"), "utf8"),
    ) as Workflow;
    const [install, checkStep, ...more] = check.jobs.check!.steps.flatMap((step) =>
      step.run ? [step.run] : [],
    );
    expect(more).toEqual([]);
    expect(install).toBe("npm ci --no-audit --no-fund");
    await run([...install!.split(" "), "--prefer-offline"], repo);
    expect(existsSync(path.join(repo, "node_modules", "coursesync", "dist", "bin", "coursesync.js"))).toBe(
      true,
    );
    expect((await run(["npx", "--no-install", "coursesync", "--version"], repo)).trim()).toBe(VERSION);
    expect(checkStep).toBe("npx --no-install coursesync -C content check --format github");
    await run(checkStep!.split(" "), repo);
    // What the install leaves is never committed: git sees package.json and the lockfile, not node_modules.
    const untracked = await git(gitEnv, repo, "status", "--porcelain", "--untracked-files=all");
    expect(untracked).toContain("package-lock.json");
    expect(untracked).not.toContain("node_modules");
  }, 90_000); // about 30 s: npm pack, npm install --package-lock-only, npm ci; the bound is for a loaded runner
});
