import { rm } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Journal } from "../../src/sync/state/journal.js";
import { gitBlobId } from "../../src/util/hash.js";
import { captureCrashPoints, restoreTree, treeNow, userFiles } from "../helpers/crash.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { answerCreatesWith, edit, type PulledSite, pulledSite } from "../helpers/site.js";
import { readSnapshot } from "../helpers/snapshot.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(() => {
  vi.restoreAllMocks();
  return cleanupTestdirs();
});

/**
 * A pulled site and tree with edits to push: a new course (whose file the site's defaults
 * rewrite) with a chapter, a new chapter in a known course, three updates and a delete.
 */
async function editedSite(): Promise<PulledSite> {
  const clock = manualClock();
  const s = await pulledSite(start, {
    options: { now: clock.now },
    courses: [{ title: "Web" }, { title: "Go" }],
    chapters: [
      { course_id: 1, title: "One", ordinal: 1, content: "<p>One</p>" },
      { course_id: 1, title: "Two", ordinal: 2, content: "<p>Two</p>" },
      { course_id: 1, title: "Three", ordinal: 3, content: "<p>Three</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>Tour</p>" },
    ],
    body: "html",
  });
  await s.write("courses/rust/course.yaml", "title: Rust\n");
  await s.write(
    "courses/rust/01-ownership.md",
    "---\ntitle: Ownership\nordinal: 1\nformat: html\n---\n<p>Own</p>\n",
  );
  // No ordinal: the site gives it one, so the file is rewritten from the record.
  await s.write("courses/web/09-four.md", "---\ntitle: Four\nordinal: 4\nformat: html\n---\n<p>Four</p>\n");
  await s.replace("courses/web/02-two.md", "title: Two\n", "title: Two!\n");
  await s.replace("courses/go/course.yaml", "title: Go\n", "title: Go!\n");
  await s.replace("courses/go/01-tour.md", "<p>Tour</p>", "<p>Tour, edited</p>");
  await rm(s.file("courses/web/03-three.md"));
  return s;
}

/**
 * An uninterrupted push, and the states it passes through: just before and just after each
 * journal line (a line before a write's answer, a write the site applied but the journal does
 * not yet hold, a file settled or not yet settled), and just before the journal is removed
 * (the snapshot saved, the journal still there).
 */
async function crashPoints() {
  const s = await editedSite();
  const points = captureCrashPoints(s.root, () => s.emulator.state.dump());
  const first = await s.cli("push", "--yes");
  expect(first.code, first.stderr).toBe(0);
  vi.restoreAllMocks();
  expect(points.length).toBeGreaterThanOrEqual(17);
  const finalSite = s.emulator.state.dump();
  expect(finalSite.chapters.map((c) => c.title).sort()).toEqual(["Four", "One", "Ownership", "Tour", "Two!"]);
  return { s, points, finalFiles: userFiles(treeNow(s.root)), finalSite };
}

/** Each chapter entry's git blob id in the snapshot, by its path. */
async function blobIds(s: PulledSite): Promise<Record<string, string | undefined>> {
  const snapshot = await readSnapshot(s.root);
  return Object.fromEntries(Object.values(snapshot.chapters).map((entry) => [entry.path, entry.blob]));
}

/** The git blob id of each chapter file: what the snapshot is to record for it. */
function fileBlobIds(files: Record<string, string>): Record<string, string> {
  const chapters = Object.entries(files).filter(([rel]) => rel.endsWith(".md"));
  return Object.fromEntries(chapters.map(([rel, text]) => [rel, gitBlobId(text)]));
}

describe("a push killed at any moment", () => {
  it("is finished by the next push: from every state it passes through, the rerun ends where an uninterrupted push ends", async () => {
    const { s, points, finalFiles, finalSite } = await crashPoints();
    for (const point of points) {
      restoreTree(s.root, point.files);
      s.emulator.state.reset(point.site);
      const rerun = await s.cli("push", "--yes");
      expect(rerun.code, `${point.where}: ${rerun.stderr}`).toBe(0);
      expect(s.emulator.state.dump(), point.where).toEqual(finalSite);
      expect(userFiles(treeNow(s.root)), point.where).toEqual(finalFiles);
      expect(await blobIds(s), point.where).toEqual(fileBlobIds(finalFiles));
      const status = await s.cli("status", "--exit-code");
      expect(status.stdout, point.where).toContain("Nothing to push");
      expect(status.code, point.where).toBe(0);
      expect(Object.keys(treeNow(s.root)), point.where).not.toContain(".coursesync/production.journal");
    }
  });

  it("is finished by a pull and a push: no duplicate record, no edit lost, nothing left to do", async () => {
    const { s, points, finalFiles, finalSite } = await crashPoints();
    for (const point of points) {
      restoreTree(s.root, point.files);
      s.emulator.state.reset(point.site);
      const pull = await s.cli("pull");
      expect(pull.code, `${point.where}: ${pull.stdout}${pull.stderr}`).toBe(0);
      expect(Object.keys(treeNow(s.root)), point.where).not.toContain(".coursesync/production.journal");
      const push = await s.cli("push", "--yes");
      expect(push.code, `${point.where}: ${push.stdout}${push.stderr}`).toBe(0);
      expect(s.emulator.state.dump(), point.where).toEqual(finalSite);
      expect(userFiles(treeNow(s.root)), point.where).toEqual(finalFiles);
      expect((await s.cli("status", "--exit-code")).code, point.where).toBe(0);
    }
  });

  it("whose first create was answered with another record is finished by the next push, or by a pull and a push", async () => {
    const { s, points, finalFiles, finalSite } = await crashPoints();
    const start = points[0]!;
    expect(start.where).toBe("before intent create courses/rust");
    for (const route of [["push"], ["pull", "push"]]) {
      restoreTree(s.root, start.files);
      s.emulator.state.reset(start.site);
      // The site makes the course, and answers with one the last sync knows.
      const answerTruly = answerCreatesWith(s.emulator, "courses", () => s.emulator.state.get("courses", 1)!);
      const refused = await s.cli("push", "--yes");
      expect(refused.code, refused.stdout).toBe(1);
      expect(userFiles(treeNow(s.root))).toEqual(userFiles(start.files));
      answerTruly();
      for (const command of route) {
        const run = await s.cli(command, ...(command === "push" ? ["--yes"] : []));
        expect(run.code, `${route.join(", then ")}: ${run.stdout}${run.stderr}`).toBe(0);
      }
      expect(s.emulator.state.dump(), route.join(", then ")).toEqual(finalSite);
      expect(userFiles(treeNow(s.root)), route.join(", then ")).toEqual(finalFiles);
      expect((await s.cli("status", "--exit-code")).code).toBe(0);
    }
  });

  it("that holds a conflict is finished by the next push: the rest ends as uninterrupted, the conflicting record stays held", async () => {
    const s = await editedSite();
    await s.replace("courses/web/01-one.md", "title: One\n", "title: One, mine\n");
    edit(s.emulator, "chapters", 1, { title: "One, theirs" });
    const points = captureCrashPoints(s.root, () => s.emulator.state.dump());
    const first = await s.cli("push", "--yes");
    expect(first.code, first.stderr).toBe(3);
    vi.restoreAllMocks();
    expect(points.length).toBeGreaterThanOrEqual(17);
    const finalSite = s.emulator.state.dump();
    expect(finalSite.chapters.map((c) => c.title).sort()).toEqual([
      "Four",
      "One, theirs",
      "Ownership",
      "Tour",
      "Two!",
    ]);
    const finalFiles = userFiles(treeNow(s.root));
    for (const point of points) {
      restoreTree(s.root, point.files);
      s.emulator.state.reset(point.site);
      const rerun = await s.cli("push", "--yes");
      expect(rerun.code, `${point.where}: ${rerun.stderr}`).toBe(3);
      expect(rerun.stdout, point.where).toContain("  held courses/web/01-one.md (chapter 1)");
      expect(s.emulator.state.dump(), point.where).toEqual(finalSite);
      expect(userFiles(treeNow(s.root)), point.where).toEqual(finalFiles);
      const status = await s.cli("status", "--json");
      const entries = (JSON.parse(status.stdout) as { entries: Array<{ path: string }> }).entries;
      expect(
        entries.map((e) => e.path),
        point.where,
      ).toEqual(["courses/web/01-one.md"]);
    }
  });

  it("after saving its snapshot, before removing its journal: later syncs do not replay the journal", async () => {
    const s = await editedSite();
    vi.spyOn(Journal.prototype, "clear").mockImplementation(async () => {});
    expect((await s.cli("push", "--yes")).code).toBe(0);
    vi.restoreAllMocks();
    // status says a push was interrupted, and what finishes it.
    expect((await s.cli("status")).stdout).toContain(
      "A push was interrupted: `coursesync push` (or `pull`) finishes it",
    );
    expect(JSON.parse((await s.cli("status", "--json")).stdout).interrupted_push).toBe(true);
    // The site retitles a chapter the push had retitled; pull brings it in; it changes again.
    edit(s.emulator, "chapters", 2, { title: "Two?" });
    expect((await s.cli("pull")).code).toBe(0);
    expect(await s.read("courses/web/02-two.md")).toContain("title: Two?\n");
    expect((await s.cli("status")).stdout).not.toContain("A push was interrupted");
    edit(s.emulator, "chapters", 2, { title: "Two#" });
    await s.replace("courses/web/02-two.md", "<p>Two</p>", "<p>Two, edited</p>");
    const push = await s.cli("push", "--yes");
    expect(push.code, push.stdout + push.stderr).toBe(0);
    expect(s.emulator.state.get("chapters", 2)).toMatchObject({
      title: "Two#",
      content: "<p>Two, edited</p>",
    });
  });
});
