import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import type { Placed } from "../../src/sync/pull/stage-writer.js";
import { pullIn } from "../../src/sync/watch/pull-in.js";
import type { RemoteWork } from "../../src/sync/watch/site-events.js";
import { htmlBodies } from "../../src/tree/codecs.js";
import { runCli } from "../helpers/cli.js";
import { restoreTree, treeNow, userFiles } from "../helpers/crash.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import {
  addChapter,
  addCourse,
  edit,
  LOGIN,
  pulledSite,
  pullNewTree,
  seedSite,
  webSite,
} from "../helpers/site.js";
import { snapshotFiles } from "../helpers/snapshot.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

/** Called before and after each file operation pull makes (set by the test). */
let capture: ((where: string) => void) | undefined;

vi.mock("../../src/tree/fs-ops.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/tree/fs-ops.js")>();
  const watched =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      capture?.(`before ${name} ${args.slice(1).join(" ")}`);
      const out = await fn(...args);
      capture?.(`after ${name} ${args.slice(1).join(" ")}`);
      return out;
    };
  // The snapshot's own files: a save that changes several is killed between them too.
  const atomicWrite: typeof real.atomicWrite = async (file, ...rest) => {
    const snapshot = /[/\\]\.coursesync[/\\]production(?:[/\\]|\.pending)/.test(file);
    if (snapshot) capture?.(`before save ${file}`);
    await real.atomicWrite(file, ...rest);
    if (snapshot) capture?.(`after save ${file}`);
  };
  return {
    ...real,
    atomicWrite,
    writeTreeFile: watched("write", real.writeTreeFile),
    placeTreeFile: watched("place", real.placeTreeFile),
    moveTreePath: watched("move", real.moveTreePath),
    removeTreeFile: watched("remove", real.removeTreeFile),
    removeEmptyFolder: watched("rmdir", real.removeEmptyFolder),
  };
});

// Staged files are moved into place on the staging thread, all in one message: here each
// goes in a message of its own, so that a kill between any two is replayed too.
vi.mock("../../src/sync/pull/stage-writer.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/sync/pull/stage-writer.js")>();
  class WatchedWriter extends real.StageWriter {
    override async place(moves: Array<readonly [string, string]>) {
      const placed: Placed[] = [];
      for (const move of moves) {
        capture?.(`before place ${move[1]}`);
        const one = await super.place([move]);
        if (!one) return undefined;
        placed.push(one[0]!);
        capture?.(`after place ${move[1]}`);
      }
      return placed;
    }
  }
  return { ...real, StageWriter: WatchedWriter };
});

const start = useEmulators();
afterEach(() => {
  capture = undefined;
  return cleanupTestdirs();
});

describe("a pull killed at any moment is finished by the next pull", () => {
  it("from every state the tree passes through, the rerun ends where an uninterrupted pull ends", async () => {
    const s = await pulledSite(start, {
      courses: [{ title: "Web" }, { title: "Go" }, { title: "Alpha" }, { title: "Beta" }],
      chapters: [
        { course_id: 1, title: "One", ordinal: 1, content: "<p>One</p>" },
        { course_id: 1, title: "Two", ordinal: 2, content: "<p>Two</p>" },
        { course_id: 1, title: "Three", ordinal: 3, content: "<p>Three</p>" },
        { course_id: 2, title: "Tour", ordinal: 1, content: "<p>Tour</p>" },
        { course_id: 3, title: "Same", ordinal: 1, content: "<p>first</p>" },
        { course_id: 3, title: "Same", ordinal: 2, content: "<p>second</p>" },
        { course_id: 4, title: "Beta one", ordinal: 1, content: "<p>b</p>" },
      ],
    });
    // The site changes: two chapters swap places, a course is renamed, a body is edited,
    // records are added and one is deleted.
    edit(s.emulator, "chapters", 1, { ordinal: 2 });
    edit(s.emulator, "chapters", 2, { ordinal: 1 });
    edit(s.emulator, "courses", 2, { title: "Golang" });
    // Names that swap: files and folders go through temporary names.
    edit(s.emulator, "chapters", 5, { ordinal: 2 });
    edit(s.emulator, "chapters", 6, { ordinal: 1 });
    edit(s.emulator, "courses", 3, { title: "Beta" });
    edit(s.emulator, "courses", 4, { title: "Alpha" });
    edit(s.emulator, "chapters", 4, { content: "<p>Tour, <em>edited</em></p>" });
    s.emulator.state.remove("chapters", 3);
    const rust = addCourse(s.emulator, { title: "Rust" });
    addChapter(s.emulator, { course_id: rust, title: "Ownership", ordinal: 1, content: "<p>Own</p>" });
    addChapter(s.emulator, { course_id: 1, title: "Four", ordinal: 4, content: "<p>Four</p>" });

    const initial = treeNow(s.root);
    const points: Array<{ where: string; files: Record<string, string> }> = [];
    capture = (where) => points.push({ where, files: treeNow(s.root) });
    const first = await s.cli("pull");
    capture = undefined;
    expect(first.code, first.stderr).toBe(0);
    expect(points.length).toBeGreaterThanOrEqual(10);
    const final = userFiles(treeNow(s.root));
    expect(final).not.toEqual(userFiles(initial));
    expect(points.some((p) => Object.keys(p.files).some((f) => f.includes("moving")))).toBe(true);
    // New and changed files were staged while the listing arrived, and moved into place.
    expect(points.some((p) => p.where.startsWith("before place"))).toBe(true);
    expect(Object.keys(treeNow(s.root)).filter((f) => f.includes("/incoming/"))).toEqual([]);
    // The snapshot changes in several course files: saved as one change, through a pending file.
    expect(points.some((p) => p.files[".coursesync/production.pending"] !== undefined)).toBe(true);
    const finalSnapshot = snapshotFiles(treeNow(s.root));

    // A state met twice (just after one write is just before the next) is replayed once.
    const seen = new Set<string>();
    const distinct = points.filter((point) => {
      const key = JSON.stringify(Object.entries(point.files).sort());
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    for (const point of distinct) {
      restoreTree(s.root, point.files);
      const rerun = await s.cli("pull");
      expect(rerun.code, `${point.where}: ${rerun.stderr}${rerun.stdout}`).toBe(0);
      expect(userFiles(treeNow(s.root)), point.where).toEqual(final);
      expect(snapshotFiles(treeNow(s.root)), point.where).toEqual(finalSnapshot);
      expect(treeNow(s.root)[".coursesync/production.pending"], point.where).toBeUndefined();
      const status = await s.cli("status", "--exit-code");
      expect(status.code, `${point.where}: ${status.stdout}`).toBe(0);
      const again = await s.cli("pull");
      expect(again.stdout, point.where).toMatch(/no changes/);
    }
  });
});

describe("a pull stopped at any moment, rerun on a tree the stat cache vouches for", () => {
  it("reads only the folders the stopped run touched or the site changed, and ends where an unstopped pull ends", async () => {
    // Stopped by an error at each file operation in turn: unlike a restored copy, every file
    // the run did not touch keeps its stat, so the rerun trusts it as after a real kill.
    const emulator = await start({ seedDir: null, now: manualClock().now });
    seedSite(emulator, {
      courses: [{ title: "Web" }, { title: "Go" }, { title: "Alpha" }, { title: "Beta" }, { title: "Calm" }],
      chapters: [
        { course_id: 1, title: "One", ordinal: 1, content: "<p>One</p>" },
        { course_id: 1, title: "Two", ordinal: 2, content: "<p>Two</p>" },
        { course_id: 2, title: "Tour", ordinal: 1, content: "<p>Tour</p>" },
        { course_id: 3, title: "Same", ordinal: 1, content: "<p>first</p>" },
        { course_id: 3, title: "Same", ordinal: 2, content: "<p>second</p>" },
        { course_id: 4, title: "Beta one", ordinal: 1, content: "<p>b</p>" },
        { course_id: 5, title: "Quiet", ordinal: 1, content: "<p>q</p>" },
      ],
    });
    const before = emulator.state.dump();
    // The site changes: chapters swap places, courses swap names, a body is edited, a chapter
    // moves to another course, one is added and one deleted. Course 5 stays as it was.
    edit(emulator, "chapters", 1, { ordinal: 2 });
    edit(emulator, "chapters", 2, { ordinal: 1 });
    edit(emulator, "courses", 3, { title: "Beta" });
    edit(emulator, "courses", 4, { title: "Alpha" });
    edit(emulator, "chapters", 3, { content: "<p>Tour, <em>edited</em></p>" });
    edit(emulator, "chapters", 6, { course_id: 2 });
    emulator.state.remove("chapters", 5);
    addChapter(emulator, { course_id: 1, title: "Three", ordinal: 3, content: "<p>Three</p>" });
    const after = emulator.state.dump();
    const late = () => Date.now() + 60_000;
    /** A tree pulled before the changes, whose stat cache trusts every file and says it is clean. */
    const armedTree = async () => {
      emulator.state.reset(before);
      const tree = await pullNewTree(emulator, "html");
      const cli = (...args: string[]) => runCli(args, { cwd: tree.root, env: tree.env, now: late });
      expect((await cli("pull")).code).toBe(0);
      emulator.state.reset(after);
      return { ...tree, cli };
    };
    const whole = await armedTree();
    let operations = 0;
    capture = () => operations++;
    expect((await whole.cli("pull")).code).toBe(0);
    capture = undefined;
    expect(operations).toBeGreaterThanOrEqual(10);
    const final = userFiles(treeNow(whole.root));
    const finalSnapshot = snapshotFiles(treeNow(whole.root));
    let narrowed = 0;
    for (let stopAt = 1; stopAt <= operations; stopAt++) {
      const tree = await armedTree();
      let seen = 0;
      capture = (where) => {
        if (++seen === stopAt) throw new Error(`stopped ${where}`);
      };
      const stopped = await tree.cli("pull");
      capture = undefined;
      expect(stopped.code, `stop ${stopAt}`).not.toBe(0);
      const rerun = await tree.cli("pull", "-v");
      const where = `stop ${stopAt}: ${stopped.stderr}`;
      expect(rerun.code, `${where}${rerun.stderr}`).toBe(0);
      const read = /^tree: read (\d+) of (\d+) course folders/m.exec(rerun.stderr);
      // Never the folder of course 5, which neither the run nor the site touched.
      if (read) {
        narrowed++;
        expect(Number(read[1]), where).toBeLessThan(Number(read[2]));
      }
      expect(userFiles(treeNow(tree.root)), where).toEqual(final);
      expect(snapshotFiles(treeNow(tree.root)), where).toEqual(finalSnapshot);
      expect((await tree.cli("status", "--exit-code")).code, where).toBe(0);
      expect((await tree.cli("pull")).stdout, where).toMatch(/no changes/);
    }
    expect(narrowed).toBeGreaterThan(operations / 2);
  }, 120_000); // one pull per file operation: about 11 s alone, three times that on a loaded 2-core runner
});

describe("a pull killed while it goes around an invalid file", () => {
  it("is finished by the next pull: the invalid file untouched, the site's version of its record beside it", async () => {
    const web = webSite();
    const s = await pulledSite(start, {
      ...web,
      chapters: [
        ...(web.chapters ?? []),
        { course_id: 1, title: "Forms", ordinal: 3, content: "<p>forms</p>" },
      ],
    });
    await s.replace("courses/web/02-tags.md", "ordinal: 2", "ordinal: two");
    const broken = await s.read("courses/web/02-tags.md");
    edit(s.emulator, "chapters", 2, { content: "<p>tags, edited</p>" });
    edit(s.emulator, "chapters", 1, { title: "Welcome" });
    edit(s.emulator, "chapters", 3, { content: "<p>forms, edited</p>" });
    addChapter(s.emulator, { course_id: 1, title: "Canvas", ordinal: 4, content: "<p>canvas</p>" });

    const points: Array<{ where: string; files: Record<string, string> }> = [];
    capture = (where) => points.push({ where, files: treeNow(s.root) });
    const first = await s.cli("pull");
    capture = undefined;
    expect(first.code, first.stderr).toBe(1);
    expect(points.some((p) => p.where.includes("02-tags.remote.md"))).toBe(true);
    const final = userFiles(treeNow(s.root));
    expect(final["courses/web/02-tags.md"]).toBe(broken);
    expect(final["courses/web/02-tags.remote.md"]).toContain("<p>tags, edited</p>");
    const snapshot = snapshotFiles(treeNow(s.root));
    expect(Object.keys(snapshot)).toContain(".coursesync/production/site.json");

    for (const point of points) {
      restoreTree(s.root, point.files);
      const rerun = await s.cli("pull");
      expect(rerun.code, `${point.where}: ${rerun.stderr}${rerun.stdout}`).toBe(1);
      expect(rerun.stderr, point.where).toContain("courses/web/02-tags.md:4: ordinal must be a whole number");
      expect(userFiles(treeNow(s.root)), point.where).toEqual(final);
      expect(snapshotFiles(treeNow(s.root)), point.where).toEqual(snapshot);
      const again = await s.cli("pull", "--json");
      expect(JSON.parse(again.stdout), point.where).toMatchObject({ files_written: 0 });
    }
  });
});

describe("watch's pull of the records the events name, killed at any moment", () => {
  it("is finished by the next run: the site's changes in, the author's unsent edits kept", async () => {
    const s = await pulledSite(start, {
      // The site's clock stands still: each run lists it at the same time.
      options: { now: manualClock().now },
      body: "html",
      courses: [{ title: "Web" }, { title: "Go" }],
      chapters: [
        { course_id: 1, title: "One", ordinal: 1, content: "<p>one</p>\n<p>middle</p>\n<p>end</p>" },
        { course_id: 1, title: "Two", ordinal: 2, content: "<p>Two</p>" },
        { course_id: 1, title: "Three", ordinal: 3, content: "<p>Three</p>" },
        { course_id: 2, title: "Tour", ordinal: 1, content: "<p>Tour</p>" },
      ],
    });
    // The author's edits, not sent yet: one in a record the site also changes (merged), one in
    // a record it does not name (left as it is).
    await s.replace("courses/web/01-one.md", "<p>end</p>", "<p>end, mine</p>");
    await s.replace("courses/go/01-tour.md", "<p>Tour</p>", "<p>Tour, mine</p>");
    edit(s.emulator, "chapters", 1, { content: "<p>one, theirs</p>\n<p>middle</p>\n<p>end</p>" });
    edit(s.emulator, "chapters", 2, { title: "Second" });
    edit(s.emulator, "courses", 1, { title: "Web basics" });
    s.emulator.state.remove("chapters", 3);
    const added = addChapter(s.emulator, { course_id: 1, title: "Four", ordinal: 4, content: "<p>4</p>" });
    const work: RemoteWork = {
      kind: "records",
      courses: [1],
      chapters: [1, 2, 3, added],
      folders: ["courses/web"],
    };
    const target = {
      root: s.root,
      site: "production",
      siteUrl: s.emulator.baseUrl,
      ignore: [],
      bodies: htmlBodies,
    };
    const pullNamed = async () => {
      const client = new ApiClient({
        baseUrl: s.emulator.baseUrl,
        credentials: { email: LOGIN.COURSESYNC_EMAIL, password: LOGIN.COURSESYNC_PASSWORD },
        sleep: async () => {},
      });
      try {
        return await pullIn(target, client, {
          ...work,
          courses: [...work.courses],
          chapters: [...work.chapters],
        });
      } finally {
        client.close();
      }
    };

    const initial = treeNow(s.root);
    const points: Array<{ where: string; files: Record<string, string> }> = [];
    capture = (where) => points.push({ where, files: treeNow(s.root) });
    const first = await pullNamed();
    capture = undefined;
    expect(
      first.changes.map(({ change, merged }) => `${change.outcome} ${change.path} ${merged}`).sort(),
    ).toEqual([
      "created courses/web/04-four.md false",
      "deleted courses/web/03-three.md false",
      "updated courses/web false",
      "updated courses/web/01-one.md true",
      "updated courses/web/02-second.md false",
    ]);
    expect(points.length).toBeGreaterThanOrEqual(5);
    const final = userFiles(treeNow(s.root));
    expect(final["courses/web/01-one.md"]).toContain("<p>one, theirs</p>\n<p>middle</p>\n<p>end, mine</p>");
    expect(final["courses/go/01-tour.md"]).toContain("<p>Tour, mine</p>");
    expect(final).not.toEqual(userFiles(initial));
    // The next run of watch starts with a full comparison: a pull, which finds nothing to do.
    expect((await s.cli("pull")).stdout).toMatch(/no changes/);
    // `listed` (the newest time a whole listing saw) is a bound that may only be looser when the
    // records came in by a pull of named records first: compared without it.
    const synced = () =>
      Object.fromEntries(
        Object.entries(snapshotFiles(treeNow(s.root))).map(([file, text]) => [
          file,
          text.replace(/^\s*"listed": "[^"]*",\n/m, ""),
        ]),
      );
    const finalSnapshot = synced();

    const seen = new Set<string>();
    for (const point of points) {
      const key = JSON.stringify(Object.entries(point.files).sort());
      if (seen.has(key)) continue;
      seen.add(key);
      restoreTree(s.root, point.files);
      const rerun = await s.cli("pull");
      expect(rerun.code, `${point.where}: ${rerun.stderr}${rerun.stdout}`).toBe(0);
      expect(userFiles(treeNow(s.root)), point.where).toEqual(final);
      expect(synced(), point.where).toEqual(finalSnapshot);
      // The author's edits are still to be sent, no more: the merge and the untouched edit.
      const status = await s.cli("status", "--json");
      const modified = (
        JSON.parse(status.stdout) as { entries: Array<{ state: string; path: string }> }
      ).entries
        .filter((entry) => entry.state !== "unchanged")
        .map((entry) => `${entry.state} ${entry.path}`);
      expect(modified, point.where).toEqual([
        "modified courses/go/01-tour.md",
        "modified courses/web/01-one.md",
      ]);
    }
  }, 60_000); // one pull per file operation
});
