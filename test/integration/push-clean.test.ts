import { readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { StatCache } from "../../src/tree/stat-cache.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const CACHE = ".coursesync/cache/production/stat.json";

/** Four courses of two chapters, pulled; then a status, so that the stat cache trusts every file. */
async function fourCourses() {
  const names = ["Web", "Go", "Rust", "Zig"];
  const site = await pulledSite(start, {
    body: "html",
    options: { now: manualClock().now },
    courses: names.map((title) => ({ title })),
    chapters: names.flatMap((_, c) => [
      { course_id: c + 1, title: "One", ordinal: 1, content: `<p>one of ${c + 1}</p>` },
      { course_id: c + 1, title: "Two", ordinal: 2, content: `<p>two of ${c + 1}</p>` },
    ]),
  });
  const late = () => Date.now() + 60_000;
  const cli = (...args: string[]) => runCli(args, { cwd: site.root, env: site.env, now: late });
  expect((await cli("pull")).code).toBe(0);
  /** Status with the stat cache as the run left it, then without it: both must say the same. */
  const status = async () => {
    const fast = await cli("status", "--short");
    const kept = await readFile(site.file(CACHE), "utf8");
    await rm(site.file(CACHE));
    const slow = await cli("status", "--short");
    await writeFile(site.file(CACHE), kept);
    expect(fast).toEqual(slow);
    return fast.stdout;
  };
  return { ...site, cli, status, cache: () => new StatCache(site.file(CACHE), late).loadSync() };
}

describe("push of the whole tree leaves the stat cache's clean mark", () => {
  it("naming only the folders it sent from, and status then says what it says without the cache", async () => {
    const s = await fourCourses();
    await s.replace("courses/web/01-one.md", "one of 1", "one of 1, edited");
    await s.write("courses/go/03-three.md", "---\ntitle: Three\nordinal: 3\n---\n<p>three</p>\n");
    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    const cache = s.cache();
    expect(cache.clean).toBeDefined();
    expect(cache.dirtyAtClean).toEqual(["courses/go", "courses/web"]);
    expect(await s.status()).toBe("");
    // An edit after the push, in a folder the mark says is clean, is seen.
    await s.replace("courses/rust/02-two.md", "two of 3", "two of 3, later");
    expect(await s.status()).toBe(" M courses/rust/02-two.md\n");
    // That status left only the folder of that edit to read: so does the next pull.
    const pulled = await s.cli("pull", "-v");
    expect(pulled.stderr).toMatch(/^tree: read 1 of 4 course folders/m);
    expect(await s.status()).toBe(" M courses/rust/02-two.md\n");
  });

  it("a push that sends nothing of an invalid file keeps its folder pending", async () => {
    const s = await fourCourses();
    await s.replace("courses/zig/01-one.md", "ordinal: 1", "ordinal: [broken");
    await s.replace("courses/web/02-two.md", "two of 1", "two of 1, edited");
    // Invalid files stop a push: nothing is sent, and the mark stays as it was.
    const refused = await s.cli("push", "--yes");
    expect(refused.code).not.toBe(0);
    expect(await s.status()).toBe(" M courses/web/02-two.md\n!! courses/zig/01-one.md\n");
  });
});

describe("a push of some paths (as watch sends) keeps the stat cache's clean mark", () => {
  it("adding the folders it touched, and status then says what it says without the cache", async () => {
    const s = await fourCourses();
    expect(s.cache().clean).toBeDefined();
    await s.replace("courses/web/01-one.md", "one of 1", "one of 1, edited");
    await s.replace("courses/rust/02-two.md", "two of 3", "two of 3, edited");
    // Old enough for any clock to trust their stats: the push reads nothing of courses/rust.
    const past = Date.now() / 1000 - 10;
    for (const file of ["courses/web/01-one.md", "courses/rust/02-two.md"])
      await utimes(s.file(file), past, past);
    // Status records the edits' stats and marks their folders pending: after it, only the mark
    // tells that courses/rust still differs from the last sync.
    expect(await s.status()).toBe(" M courses/rust/02-two.md\n M courses/web/01-one.md\n");
    const pushed = await s.cli("push", "courses/web/01-one.md", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    const cache = s.cache();
    expect(cache.clean).toBeDefined();
    expect(cache.dirtyAtClean).toEqual(["courses/rust", "courses/web"]);
    // That status read both folders, found courses/web as the push left it, and left only
    // courses/rust pending: the next pull reads that one.
    expect(await s.status()).toBe(" M courses/rust/02-two.md\n");
    expect(s.cache().dirtyAtClean).toEqual(["courses/rust"]);
    const pulled = await s.cli("pull", "-v");
    expect(pulled.stderr).toMatch(/^tree: read 1 of 4 course folders/m);
    expect(await s.status()).toBe(" M courses/rust/02-two.md\n");
  });

  it("a chapter moved to another course and pushed by its new path leaves both folders to read", async () => {
    const s = await fourCourses();
    await rename(s.file("courses/go/01-one.md"), s.file("courses/zig/03-moved.md"));
    const pushed = await s.cli("push", "courses/zig/03-moved.md", "courses/go", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    const cache = s.cache();
    expect(cache.clean).toBeDefined();
    expect(cache.dirtyAtClean).toEqual(["courses/go", "courses/zig"]);
    expect(await s.status()).toBe("");
    // An edit elsewhere after it is seen as ever.
    await s.replace("courses/web/02-two.md", "two of 1", "two of 1, later");
    expect(await s.status()).toBe(" M courses/web/02-two.md\n");
  });

  it("is not carried over when the snapshot changed since the mark (another clone's push, a checkout)", async () => {
    const s = await fourCourses();
    // The snapshot's files change under the mark: its stamp no longer holds.
    const shard = s.file(".coursesync/production/courses/1.json");
    await writeFile(shard, await readFile(shard, "utf8"));
    await s.replace("courses/web/01-one.md", "one of 1", "one of 1, edited");
    const pushed = await s.cli("push", "courses/web/01-one.md", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(s.cache().clean).toBeUndefined();
    expect(await s.status()).toBe("");
  });
});
