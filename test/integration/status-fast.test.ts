import { readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { changedSinceClean, prereadFolders } from "../../src/sync/local/unchanged.js";
import { snapshotCoursesFolder, snapshotStamp } from "../../src/sync/state/snapshot.js";
import { StatCache } from "../../src/tree/stat-cache.js";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { pulledSite, webSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const CACHE = ".coursesync/cache/production/stat.json";
const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";
const TOUR = "courses/go/01-tour.md";

/**
 * A pulled tree whose status has run once with a clock a minute ahead, so that every file is
 * old enough to trust (git's racy-clean rule) and the stat cache records the tree as clean.
 */
async function armed() {
  const web = webSite();
  const site = await pulledSite(start, {
    ...web,
    courses: [...(web.courses ?? []), { title: "Go" }],
    chapters: [...(web.chapters ?? []), { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" }],
  });
  // Whole seconds, so that a test can give a file its old mtime back exactly.
  const past = Math.floor(Date.now() / 1000) - 10;
  for (const file of [INTRO, TAGS, TOUR, "courses/web/course.yaml", "courses/go/course.yaml"]) {
    await utimes(site.file(file), past, past);
  }
  const late = () => Date.now() + 60_000;
  const status = (...args: string[]) =>
    runCli(["status", "--json", ...args], { cwd: site.root, env: site.env, now: late });
  const cache = () => new StatCache(site.file(CACHE), late).loadSync();
  expect(JSON.parse((await status()).stdout).entries).toEqual([]);
  expect(cache().clean).toBeDefined();
  /**
   * Whether the walk alone finds the tree (or these paths) as the cache last saw it clean. A
   * large tree's walk reads some course folders on another thread: made to here, it must find
   * the same course folders changed as the walk on one thread.
   */
  const unchanged = async (...paths: string[]) => {
    const loaded = cache();
    const given = paths.length ? paths : undefined;
    const changed = await changedSinceClean(site.root, loaded, loaded.clean, [], given, { threadFrom: 1 });
    const alone = cache();
    expect(changed).toEqual(
      await changedSinceClean(site.root, alone, alone.clean, [], given, {
        threadFrom: Number.POSITIVE_INFINITY,
      }),
    );
    if (!given) {
      // As status starts it: the thread reads the snapshot's course files first (for the
      // stamp, checked once the walk is done), then the last half of the course folders.
      const first = snapshotCoursesFolder("production");
      const preread = prereadFolders(site.root, { threadFrom: 1, share: 0.5, first: [first] });
      const early = cache();
      const stamp = preread!.first.then(() => early.clean);
      expect(await changedSinceClean(site.root, early, stamp, [], given, { preread })).toEqual(changed);
      // The stamp taken from the thread's stats is the one taken here (a walk that found no
      // clean mark returned before it looked: the thread is still asked, then stopped).
      const read = await preread!.first;
      preread!.stop();
      expect(read?.get(first)).toBeTruthy();
      expect(snapshotStamp(site.root, "production", read?.get(first))).toBe(
        snapshotStamp(site.root, "production"),
      );
      // A thread stopped before it answers leaves its folders to the walk.
      const stopped = prereadFolders(site.root, { threadFrom: 1, share: 0.5, first: [first] });
      stopped!.stop();
      const late = cache();
      expect(await changedSinceClean(site.root, late, late.clean, [], given, { preread: stopped })).toEqual(
        changed,
      );
    }
    return changed !== undefined && changed.size === 0;
  };
  /** Status with the cache as it is, then without it (the long way): both must say the same. */
  const both = async (...args: string[]) => {
    const fast = await status(...args);
    const kept = await readFile(site.file(CACHE), "utf8").catch(() => undefined);
    await rm(site.file(CACHE), { force: true });
    const slow = await status(...args);
    if (kept === undefined) await rm(site.file(CACHE), { force: true });
    else await writeFile(site.file(CACHE), kept);
    expect(fast).toEqual(slow);
    expect(fast.code).toBe(0);
    return (JSON.parse(fast.stdout) as { entries: Array<{ state: string; path: string }> }).entries.map(
      (e) => `${e.state} ${e.path}`,
    );
  };
  return { ...site, status, unchanged, both };
}

/** Write a file in place, then give it back its old mtime (its size unchanged by the caller). */
async function sameSizeAndMtime(file: string, from: string, to: string, atomic: boolean) {
  const before = await stat(file);
  const text = (await readFile(file, "utf8")).replace(from, to);
  expect(Buffer.byteLength(text)).toBe(before.size);
  if (atomic) {
    await writeFile(`${file}.tmp`, text);
    await rename(`${file}.tmp`, file);
  } else await writeFile(file, text);
  await utimes(file, before.atime, before.mtime);
  expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
}

describe("status's fast path (a clean tree known from the stat cache)", () => {
  it("takes it on an unchanged tree, for the tree and for a path, and says it is clean", async () => {
    const s = await armed();
    expect(await s.unchanged()).toBe(true);
    expect(await s.unchanged("courses/web")).toBe(true);
    expect(await s.unchanged(INTRO)).toBe(true);
    const again = await s.status();
    expect(JSON.parse(again.stdout)).toMatchObject({ clean: true, entries: [] });
    expect(await s.both()).toEqual([]);
    expect(await s.both("courses/go")).toEqual([]);
  });

  it("sees a file rewritten in place with its size and mtime restored (its ctime tells)", async () => {
    const s = await armed();
    await sameSizeAndMtime(s.file(INTRO), "<p>one</p>", "<p>ONE</p>", false);
    expect(await s.unchanged()).toBe(false);
    expect(await s.unchanged(INTRO)).toBe(false);
    expect(await s.unchanged("courses/go")).toBe(true);
    expect(await s.both()).toEqual([`modified ${INTRO}`]);
  });

  it("sees an editor's atomic save (a new inode) of the same size and mtime", async () => {
    const s = await armed();
    await sameSizeAndMtime(s.file(TAGS), "<p>tags</p>", "<p>TAGS</p>", true);
    expect(await s.unchanged("courses/web")).toBe(false);
    expect(await s.both("courses/web")).toEqual([`modified ${TAGS}`]);
  });

  it("does not trust a file modified within two seconds of being cached (the same clock tick)", async () => {
    const s = await armed();
    const mtime = (await stat(s.file(INTRO))).mtimeMs;
    // The run that caches sees the file a second after its mtime: too recent to trust.
    const racy = new StatCache(s.file(CACHE), () => mtime + 1_000).loadSync();
    const stats = await stat(s.file(INTRO));
    racy.set(INTRO, stats, "whatever");
    expect(racy.get(INTRO, stats)).toBeUndefined();
    await racy.save();
    expect(racy.clean).toBeUndefined();
    expect(await s.unchanged()).toBe(false);
    expect(await s.both()).toEqual([]);
  });

  it("sees a new file in a known folder, a new course folder and a deleted file", async () => {
    const s = await armed();
    await s.write("courses/web/03-new.md", "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n");
    expect(await s.unchanged()).toBe(false);
    expect(await s.unchanged("courses/web")).toBe(false);
    expect(await s.unchanged("courses/go")).toBe(true);
    expect(await s.both()).toEqual(["new courses/web/03-new.md"]);

    const t = await armed();
    await t.write("courses/rust/course.yaml", "title: Rust\n");
    expect(await t.unchanged()).toBe(false);
    expect(await t.both()).toEqual(["new courses/rust"]);

    const u = await armed();
    await rm(u.file(TOUR));
    expect(await u.unchanged()).toBe(false);
    expect(await u.unchanged("courses/go")).toBe(false);
    expect(await u.unchanged(TOUR)).toBe(false);
    expect(await u.both()).toEqual([`deleted ${TOUR}`]);
  });

  it("ignores what ignore: skips, but not a conflict copy, which is always reported", async () => {
    const s = await armed();
    await s.write("courses/web/.01-intro.md.swp", "junk");
    await s.write("courses/web/notes.txt", "not a chapter");
    await s.write("courses/web/images/logo.png", "png");
    expect(await s.unchanged()).toBe(true);
    expect(await s.both()).toEqual([]);

    await s.write("courses/web/02-tags.remote.md", "---\ntitle: Theirs\n---\n");
    expect(await s.unchanged()).toBe(false);
    expect(await s.both()).toEqual([`conflict ${TAGS}`]);

    // A chapter filed in a course's subfolder is reported, as the long way does.
    const t = await armed();
    await t.write("courses/web/images/03-lost.md", "---\ntitle: Lost\n---\n");
    expect(await t.unchanged()).toBe(false);
    expect(await t.both()).toEqual(["invalid courses/web/images/03-lost.md"]);
  });

  it("looks again when the snapshot changed (a git checkout) or the settings did", async () => {
    const s = await armed();
    // The course file of the snapshot that holds chapter 1, as another branch had it.
    const folder = s.file(".coursesync/production/courses");
    const shards = (await readdir(folder)).map((name) => path.join(folder, name));
    const texts = await Promise.all(shards.map((file) => readFile(file, "utf8")));
    const index = texts.findIndex((text) => JSON.parse(text).chapters?.["1"] !== undefined);
    const snapshotFile = shards[index]!;
    const shard = JSON.parse(texts[index]!);
    shard.chapters["1"].record.title = "Intro, as another branch had it";
    shard.chapters["1"].hash = "0".repeat(64);
    await writeFile(`${snapshotFile}.new`, JSON.stringify(shard));
    await rename(`${snapshotFile}.new`, snapshotFile);
    expect(await s.both()).toEqual([`modified ${INTRO}`]);

    // Another address than the snapshot's: refused, never "clean".
    const t = await armed();
    const elsewhere = await t.status("--url", "http://127.0.0.1:9/api/v1");
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain("never synced http://127.0.0.1:9/api/v1");
  });

  it("reads only the course folders that changed, and still sees moves, copies and edits undone", async () => {
    const s = await armed();
    // A chapter moved to another course: both folders changed.
    await rename(s.file(TAGS), s.file("courses/go/02-tags.md"));
    expect(await s.both()).toEqual(["moved courses/go/02-tags.md"]);
    expect(await s.both()).toEqual(["moved courses/go/02-tags.md"]);
    await rename(s.file("courses/go/02-tags.md"), s.file(TAGS));
    expect(await s.both()).toEqual([]);
    expect(await s.unchanged()).toBe(true);

    // A copy holds the id of a record filed in a folder that did not change: the whole tree is read.
    const t = await armed();
    await writeFile(t.file("courses/go/05-intro-copy.md"), await readFile(t.file(INTRO)));
    // (The long way names the original as the duplicate, in a folder that did not change.)
    expect(await t.both()).toEqual(["moved courses/go/05-intro-copy.md", `invalid ${INTRO}`]);
    expect(await t.both()).toEqual(["moved courses/go/05-intro-copy.md", `invalid ${INTRO}`]);

    // The folders that had something pending are read again, with the ones changed since.
    const u = await armed();
    await u.replace(INTRO, "<p>one</p>", "<p>one, edited</p>");
    expect(await u.both()).toEqual([`modified ${INTRO}`]);
    expect(await u.both()).toEqual([`modified ${INTRO}`]);
    await u.replace(TOUR, "<p>tour</p>", "<p>tour, edited</p>");
    expect(await u.both()).toEqual([`modified ${TOUR}`, `modified ${INTRO}`]);
    await u.replace(INTRO, "<p>one, edited</p>", "<p>one</p>");
    await u.replace(TOUR, "<p>tour, edited</p>", "<p>tour</p>");
    expect(await u.both()).toEqual([]);
  });
});
