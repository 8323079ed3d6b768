import { rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import type { StateDump } from "../../src/emulator/records.js";
import { runCli } from "../helpers/cli.js";
import { captureCrashPoints, restoreTree, treeNow, userFiles } from "../helpers/crash.js";
import { useEmulators } from "../helpers/emulator.js";
import { pulledSite, pullNewTree, stamps, writeRequests } from "../helpers/site.js";
import { expectSameRecords } from "../helpers/sites.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

// `coursesync restore`: the backup brought back into the site it came from after a loss (all of
// it, or part), from a fresh clone (no uncommitted cache).

const start = useEmulators();
afterEach(() => {
  vi.restoreAllMocks();
  return cleanupTestdirs();
});

const SAMPLE = path.join(import.meta.dirname, "..", "..", "sample-site");

/** The sample site pulled into a tree (Markdown bodies), as a fresh clone of its backup has it. */
async function backup(options: Parameters<typeof start>[0] = {}) {
  const emulator = await start({ seedDir: SAMPLE, ...options });
  const tree = await pullNewTree(emulator);
  await rm(path.join(tree.root, ".coursesync", "cache"), { recursive: true, force: true });
  const before = emulator.state.dump();
  const cli = (...args: string[]) => runCli(args, { cwd: tree.root, env: tree.env });
  return { emulator, tree, before, cli };
}

/** Delete every course on the site (its chapters go with it). */
function wipe(dump: StateDump, remove: (resource: "courses", id: number) => void): void {
  for (const course of dump.courses) remove("courses", course.id);
}

describe("restore into the site the backup came from", () => {
  it("brings a wiped site back whole from a fresh clone: new ids into the files; then pull and push change nothing", async () => {
    const { emulator, tree, before, cli } = await backup();
    wipe(before, (r, id) => emulator.state.remove(r, id));
    expect((await cli("push", "--yes")).stdout).toContain("Nothing to push");
    // pull and doctor point to restore.
    const pulled0 = await cli("pull");
    expect(pulled0.stderr).toContain("`coursesync restore` brings the tree back into it");
    const doctor = await cli("doctor");
    expect(doctor.stdout + doctor.stderr).toContain("`coursesync restore` brings the tree back into it");
    emulator.state.clearRequests();

    const dry = await cli("restore", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(writeRequests(emulator)).toEqual([]);
    const restored = await cli("restore", "--yes");
    expect(restored.code, restored.stdout + restored.stderr).toBe(0);
    const records = before.courses.length + before.chapters.length;
    expect(restored.stdout).toContain(`${records} records of the last sync the site no longer has`);
    const after = emulator.state.dump();
    expectSameRecords(before, after, () => true);
    expect(writeRequests(emulator).every((r) => r.method === "POST")).toBe(true);
    // Every file carries its record's new id.
    const files = await readTree(tree.root, [".coursesync"]);
    const courseFiles = Object.entries(files).filter(([rel]) => rel.endsWith("course.yaml"));
    expect(courseFiles.length).toBe(after.courses.length);
    for (const [rel, text] of courseFiles) {
      const { id, title } = parse(text) as { id: number; title: string };
      expect(after.courses.find((c) => c.id === id)?.title, rel).toBe(title);
    }
    const mtimes = await stamps(tree.root);
    emulator.state.clearRequests();
    const pulled = await cli("pull");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await stamps(tree.root)).toEqual(mtimes);
    expect((await cli("push", "--yes")).stdout).toContain("Nothing to push");
    expect((await cli("restore", "--yes")).stdout).toContain("Nothing to restore: the site holds the tree.");
    expect(writeRequests(emulator)).toEqual([]);
  });

  it("a partly wiped site: creates what it lost, sends the tree's values over a site edit, leaves what only it has unless --delete", async () => {
    const { emulator, tree, before, cli } = await backup();
    const [lost, edited] = before.courses;
    emulator.state.remove("courses", lost!.id);
    emulator.state.edit("courses", edited!.id, { title: "Renamed on the site" });
    emulator.state.createCourse({ course: { title: "Only on the site" } });
    emulator.state.clearRequests();

    const restored = await cli("restore", "--yes");
    expect(restored.code, restored.stdout + restored.stderr).toBe(0);
    expect(restored.stdout).toContain("1 record only on the site (left alone; --delete deletes them)");
    const after = emulator.state.dump();
    const titles = after.courses.map((c) => c.title).sort();
    expect(titles).toEqual([...before.courses.map((c) => c.title), "Only on the site"].sort());
    expect(after.chapters.length).toBe(before.chapters.length);
    expect(writeRequests(emulator).filter((r) => r.method === "PATCH")).toEqual([
      expect.objectContaining({ path: `/api/v1/courses/${edited!.id}` }),
    ]);
    const deleted = await cli("restore", "--delete", "--yes");
    expect(deleted.code, deleted.stdout + deleted.stderr).toBe(0);
    expectSameRecords(before, emulator.state.dump(), () => true);
    void tree;
  });

  it("killed at any journal step, is finished by running it again: the same site and files, nothing made twice", async () => {
    const s = await pulledSite(start, {
      courses: [{ title: "Web" }, { title: "Go", status: 1 }],
      chapters: [
        { course_id: 1, title: "Intro", ordinal: 1, content: "<p>one <em>two</em></p>" },
        { course_id: 1, title: "Tags", ordinal: 2, content: "<h2>Tags</h2><p>tags</p>" },
        { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
      ],
    });
    await rm(path.join(s.root, ".coursesync", "cache"), { recursive: true, force: true });
    const { emulator } = s;
    const tree = { root: s.root };
    const before = emulator.state.dump();
    const cli = s.cli;
    wipe(before, (r, id) => emulator.state.remove(r, id));
    const points = captureCrashPoints(tree.root, () => emulator.state.dump());
    const first = await cli("restore", "--yes");
    expect(first.code, first.stderr).toBe(0);
    vi.restoreAllMocks();
    // A rerun after a reset site numbers its records anew: files are compared without their ids.
    const withoutIds = (files: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(userFiles(files)).map(([rel, text]) => [rel, text.replace(/^id: \d+\n/m, "")]),
      );
    const finalFiles = withoutIds(treeNow(tree.root));
    expect(points.length).toBeGreaterThan(10);
    for (const point of points) {
      restoreTree(tree.root, point.files);
      emulator.state.reset(point.site);
      const rerun = await cli("restore", "--yes");
      expect(rerun.code, `${point.where}: ${rerun.stdout}${rerun.stderr}`).toBe(0);
      expectSameRecords(before, emulator.state.dump(), () => true);
      expect(withoutIds(treeNow(tree.root)), point.where).toEqual(finalFiles);
      // Each file names its record, the snapshot agrees, and nothing is left to send.
      const status = await cli("status", "--exit-code");
      expect(status.code, `${point.where}: ${status.stdout}`).toBe(0);
      expect((await cli("restore", "--yes")).stdout, point.where).toContain("Nothing to restore");
    }
  }, 90_000); // three runs for each of 11 crash points

  it("with a fifth of the answers lost, finishes in one run and makes nothing twice", async () => {
    const { emulator, before, cli } = await backup({ lostWriteRate: 0.2, randomSeed: 7 });
    wipe(before, (r, id) => emulator.state.remove(r, id));
    const restored = await cli("restore", "--yes");
    expect(restored.code, restored.stdout + restored.stderr).toBe(0);
    expectSameRecords(before, emulator.state.dump(), () => true);
  });
});
