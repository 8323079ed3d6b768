import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { runCli } from "./cli.js";
import type { useEmulators } from "./emulator.js";
import { manualClock } from "./emulator.js";
import { asPerson, git, isolatedGit } from "./git.js";
import { cliEnv, seedSite } from "./site.js";
import { testdir } from "./testdir.js";

/** Paragraphs far apart, as a rich-text editor saves them: one line of HTML. */
export const GUIDE_HTML =
  "<h1>Guide</h1><p>First paragraph about setup.</p><p>Second paragraph about tools.</p>" +
  "<p>Third paragraph about practice.</p><p>Fourth paragraph about habits.</p>" +
  "<p>Fifth paragraph about wrap-up.</p>";

/** The chapter file the guide is pulled into. */
export const GUIDE = "courses/web/01-guide.md";

/** The tree's folder inside each clone. */
const TREE = "content";

/**
 * A team's setup with real git: a bare origin, an author's clone that ran `init` and `pull`
 * (its content cache holds the last sync's texts) and pushed the tree, and the site as the
 * emulator. `clone()` makes a fresh clone of origin (no cache: as CI or a teammate has it).
 */
export async function teamWorld(
  start: ReturnType<typeof useEmulators>,
  body: "markdown" | "html" = "markdown",
) {
  const dir = await testdir();
  const person = asPerson(await isolatedGit(dir), "Author");
  const env = { ...person, ...cliEnv(dir) };
  const emulator = await start({ seedDir: null, now: manualClock().now });
  seedSite(emulator, {
    courses: [{ title: "Web" }],
    chapters: [{ course_id: 1, title: "Guide", ordinal: 1, content: GUIDE_HTML }],
  });
  const origin = path.join(dir, "origin.git");
  await git(person, dir, "init", "--quiet", "--bare", origin);
  const author = path.join(dir, "author");
  await git(person, dir, "clone", "--quiet", origin, author);
  const cli = (repo: string, ...args: string[]) => runCli(args, { cwd: path.join(repo, TREE), env });
  const init = await runCli(["init", TREE, "--url", emulator.baseUrl, "--no-check"], { cwd: author, env });
  expect(init.code, init.stderr).toBe(0);
  const config = path.join(author, TREE, "coursesync.yaml");
  await writeFile(config, (await readFile(config, "utf8")).replace(/^body: .*$/m, `body: ${body}`));
  const pulled = await cli(author, "pull");
  expect(pulled.code, pulled.stderr).toBe(0);
  const file = (repo: string, rel = GUIDE) => path.join(repo, TREE, ...rel.split("/"));
  const read = (repo: string, rel = GUIDE) => readFile(file(repo, rel), "utf8");
  /** Commit everything in a clone and push it to origin's main. */
  const commitAndPush = async (repo: string, message: string) => {
    await git(person, repo, "add", "--all");
    await git(person, repo, "commit", "--quiet", "-m", message);
    await git(person, repo, "push", "--quiet", "origin", "HEAD:main");
  };
  await commitAndPush(author, "Course content");
  let clones = 0;
  const clone = async (...flags: string[]) => {
    const at = path.join(dir, `clone-${++clones}`);
    await git(person, dir, "clone", "--quiet", ...flags, flags.length > 0 ? `file://${origin}` : origin, at);
    return at;
  };
  /** Replace text in the guide of a clone (it must hold it). */
  const replace = async (repo: string, from: string, to: string) => {
    const text = await read(repo);
    expect(text).toContain(from);
    await writeFile(file(repo), text.replace(from, to));
  };
  /** The snapshot folder's files of a clone, by path. */
  const snapshot = async (repo: string) => {
    const folder = path.join(repo, TREE, ".coursesync", "production");
    const names = ((await readdir(folder, { recursive: true })) as string[]).filter((n) =>
      n.endsWith(".json"),
    );
    const files: Record<string, string> = {};
    for (const name of names.sort()) files[name] = await readFile(path.join(folder, name), "utf8");
    return files;
  };
  const showOrigin = (rel = GUIDE) => git(person, origin, "show", `main:${TREE}/${rel}`);
  return {
    dir,
    person,
    env,
    emulator,
    origin,
    author,
    cli,
    file,
    read,
    replace,
    commitAndPush,
    clone,
    snapshot,
    showOrigin,
  };
}

/** A team world as teamWorld makes it. */
export type TeamWorld = Awaited<ReturnType<typeof teamWorld>>;
