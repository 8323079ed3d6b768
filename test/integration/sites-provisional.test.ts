import { rename } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { captureCrashPoints, restoreTree, treeNow, userFiles } from "../helpers/crash.js";
import { useEmulators } from "../helpers/emulator.js";
import { productionAndStaging, writesTo } from "../helpers/sites.js";
import { readSnapshot, snapshotFiles } from "../helpers/snapshot.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(() => {
  vi.restoreAllMocks();
  return cleanupTestdirs();
});

const SLICES = "courses/go/02-slices.md";
const SLICES_TEXT = "---\ntitle: Slices\nordinal: 2\nformat: html\n---\n<p>slices</p>\n";

/** The snapshot of a site, parsed. */
async function snapshotOf(s: { root: string }, site: string) {
  return (await readSnapshot(s.root, site)) as unknown as {
    chapters: Record<string, { path: string; record: { id: number; title: string } }>;
    courses: Record<string, { path: string }>;
    ids: { courses: Record<string, number>; chapters: Record<string, number> };
  };
}

describe("a new file pushed to a non-default site first: a provisional record", () => {
  it("each site gets exactly one POST, the file ends with production's id, and staging re-keys its record to it", async () => {
    const { s, staging } = await productionAndStaging(start);
    await s.write(SLICES, SLICES_TEXT);

    const toStaging = await s.cli("push", "--site", "staging", "--yes");
    expect(toStaging.code, toStaging.stderr).toBe(0);
    expect(writesTo(staging)).toEqual(["POST /api/v1/chapters"]);
    // The file keeps no id: file ids are production's.
    expect(await s.read(SLICES)).toBe(SLICES_TEXT);
    const onStaging = staging.state.dump().chapters.filter((c) => c.title === "Slices");
    expect(onStaging).toHaveLength(1);
    const stagingId = onStaging[0]!.id;
    const goOnStaging = staging.state.dump().courses.find((c) => c.title === "Go")!.id;
    expect(onStaging[0]).toMatchObject({ course_id: goOnStaging, ordinal: 2, content: "<p>slices</p>" });
    const provisional = await snapshotOf(s, "staging");
    expect(provisional.chapters[String(-stagingId)]).toMatchObject({ path: SLICES });

    expect((await s.cli("push", "--site", "staging", "--yes")).stdout).toContain("Nothing to push");
    expect((await s.cli("status", "--site", "staging", "--exit-code")).code).toBe(0);
    expect((await s.cli("pull", "--site", "staging")).code).toBe(0);
    expect(await s.read(SLICES)).toBe(SLICES_TEXT);
    expect(writesTo(staging)).toEqual(["POST /api/v1/chapters"]);
    // Production has not got it: there it is a new file.
    expect((await s.cli("status")).stdout).toMatch(/new\s+courses\/go\/02-slices.md/);

    const toProduction = await s.cli("push", "--yes");
    expect(toProduction.code, toProduction.stderr).toBe(0);
    expect(writesTo(s.emulator)).toEqual(["POST /api/v1/chapters"]);
    expect(await s.read(SLICES)).toBe(SLICES_TEXT.replace("---\n", "---\nid: 4\n"));

    const again = await s.cli("push", "--site", "staging", "--yes");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("Nothing to push");
    expect(writesTo(staging)).toEqual(["POST /api/v1/chapters"]);
    const rekeyed = await snapshotOf(s, "staging");
    expect(rekeyed.ids.chapters["4"]).toBe(stagingId);
    expect(rekeyed.chapters["4"]).toMatchObject({ path: SLICES, record: { id: 4, title: "Slices" } });
    expect(rekeyed.chapters[String(-stagingId)]).toBeUndefined();
    expect(staging.state.dump().chapters.filter((c) => c.title === "Slices")).toHaveLength(1);
    expect(s.emulator.state.dump().chapters.filter((c) => c.title === "Slices")).toHaveLength(1);
    expect((await s.cli("status", "--site", "staging", "--exit-code")).code).toBe(0);
    const pulled = await s.cli("pull", "--site", "staging");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await s.read(SLICES)).toContain("id: 4\n");
  });

  it("an edit before and after the re-key goes to staging's one record", async () => {
    const { s, staging } = await productionAndStaging(start);
    await s.write(SLICES, SLICES_TEXT);
    expect((await s.cli("push", "--site", "staging", "--yes")).code).toBe(0);
    const stagingId = staging.state.dump().chapters.find((c) => c.title === "Slices")!.id;

    await s.replace(SLICES, "<p>slices</p>", "<p>slices, edited</p>");
    expect((await s.cli("push", "--site", "staging", "--yes")).code).toBe(0);
    expect(staging.state.get("chapters", stagingId)?.content).toBe("<p>slices, edited</p>");

    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(s.emulator.state.get("chapters", 4)?.content).toBe("<p>slices, edited</p>");
    await s.replace(SLICES, "title: Slices", "title: Slices and maps");
    const after = await s.cli("push", "--site", "staging", "--yes");
    expect(after.code, after.stderr).toBe(0);
    expect(writesTo(staging)).toEqual([
      "POST /api/v1/chapters",
      `PATCH /api/v1/chapters/${stagingId}`,
      `PATCH /api/v1/chapters/${stagingId}`,
    ]);
    expect(staging.state.get("chapters", stagingId)?.title).toBe("Slices and maps");
    expect(staging.state.dump().chapters.filter((c) => c.title.startsWith("Slices"))).toHaveLength(1);
  });

  it("a file renamed before and after production gave it its id is the same record (no create, no delete)", async () => {
    const { s, staging } = await productionAndStaging(start);
    await s.write(SLICES, SLICES_TEXT);
    expect((await s.cli("push", "--site", "staging", "--yes")).code).toBe(0);
    // Moved before production saw it: found by content, still without an id.
    await rename(s.file(SLICES), s.file("courses/go/02-go-slices.md"));
    const moved = await s.cli("push", "--site", "staging", "--yes");
    expect(moved.code, moved.stderr).toBe(0);
    expect(writesTo(staging)).toEqual(["POST /api/v1/chapters"]);
    expect((await s.cli("push", "--yes")).code).toBe(0);
    // Moved after production gave it its id: production's snapshot says where it got it.
    await rename(s.file("courses/go/02-go-slices.md"), s.file("courses/go/02-slices-2.md"));
    const again = await s.cli("push", "--site", "staging", "--yes");
    expect(again.code, again.stderr).toBe(0);
    expect(writesTo(staging)).toEqual(["POST /api/v1/chapters"]);
    const snapshot = await snapshotOf(s, "staging");
    expect(snapshot.chapters["4"]?.path).toBe("courses/go/02-slices-2.md");
    expect(Object.keys(snapshot.chapters).filter((id) => Number(id) < 0)).toEqual([]);
    expect(staging.state.dump().chapters.filter((c) => c.title === "Slices")).toHaveLength(1);
  });

  it("a provisional record whose file is gone is not deleted while the push creates a file it may be", async () => {
    const { s, staging } = await productionAndStaging(start);
    await s.write(SLICES, SLICES_TEXT);
    expect((await s.cli("push", "--site", "staging", "--yes")).code).toBe(0);
    const stagingId = staging.state.dump().chapters.find((c) => c.title === "Slices")!.id;
    // Renamed and edited: nothing ties the new file to the record.
    await rename(s.file(SLICES), s.file("courses/go/02-arrays.md"));
    await s.replace("courses/go/02-arrays.md", "title: Slices", "title: Arrays");
    await s.replace("courses/go/02-arrays.md", "<p>slices</p>", "<p>arrays</p>");
    const pushed = await s.cli("push", "--site", "staging", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).toContain(`chapter ${SLICES} is kept on the site`);
    expect(writesTo(staging)).toEqual(["POST /api/v1/chapters", "POST /api/v1/chapters"]);
    expect(staging.state.get("chapters", stagingId)).toBeDefined();
    // Nothing new any more: the removal is certain, and it is a delete in the plan.
    const plan = await s.cli("push", "--site", "staging", "--dry-run");
    expect(plan.stdout).toMatch(/delete.*courses\/go\/02-slices.md/);
  });
});

describe("records made on a non-default site alone", () => {
  it("are pulled as files without an id, promoted to production, and re-keyed: no duplicate anywhere", async () => {
    const { s, staging } = await productionAndStaging(start);
    const goOnStaging = staging.state.dump().courses.find((c) => c.title === "Go")!.id;
    staging.state.createChapter({
      chapter: { course_id: goOnStaging, title: "Maps", ordinal: 3, content: "<p>maps</p>" },
    });
    const course = staging.state.createCourse({ course: { title: "Rust", status: 0 } });
    if (course.kind !== "ok") throw new Error("no course");
    staging.state.createChapter({
      chapter: { course_id: course.value.id, title: "Ownership", ordinal: 1, content: "<p>own</p>" },
    });
    staging.state.clearRequests();

    const pulled = await s.cli("pull", "--site", "staging");
    expect(pulled.code, pulled.stderr).toBe(0);
    const maps = await s.read("courses/go/03-maps.md");
    expect(maps).toBe("---\ntitle: Maps\nordinal: 3\nformat: html\n---\n<p>maps</p>\n");
    expect(await s.read("courses/rust/course.yaml")).not.toMatch(/^id:/m);
    expect(await s.read("courses/rust/01-ownership.md")).not.toMatch(/^id:/m);
    expect((await s.cli("push", "--site", "staging", "--yes")).stdout).toContain("Nothing to push");
    expect((await s.cli("pull", "--site", "staging")).stdout).not.toMatch(/created|updated/);

    const toProduction = await s.cli("push", "--yes");
    expect(toProduction.code, toProduction.stderr).toBe(0);
    expect(writesTo(s.emulator).sort()).toEqual([
      "POST /api/v1/chapters",
      "POST /api/v1/chapters",
      "POST /api/v1/courses",
    ]);
    expect(await s.read("courses/go/03-maps.md")).toMatch(/^id: \d+$/m);

    const back = await s.cli("push", "--site", "staging", "--yes");
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain("Nothing to push");
    expect(writesTo(staging)).toEqual([]);
    const snapshot = await snapshotOf(s, "staging");
    expect(Object.keys(snapshot.chapters).filter((id) => Number(id) < 0)).toEqual([]);
    expect(Object.keys(snapshot.courses).filter((id) => Number(id) < 0)).toEqual([]);
    const again = await s.cli("pull", "--site", "staging");
    expect(again.code, again.stderr).toBe(0);
    expect(writesTo(staging)).toEqual([]);
    for (const site of [staging, s.emulator]) {
      expect(site.state.dump().chapters.filter((c) => c.title === "Maps")).toHaveLength(1);
      expect(site.state.dump().courses.filter((c) => c.title === "Rust")).toHaveLength(1);
    }
    expect((await s.cli("status", "--site", "staging", "--exit-code")).code).toBe(0);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });
});

describe("crash safety of a provisional create", () => {
  it("a push to staging killed at any point is finished by the next one, creating nothing twice", async () => {
    const { s, staging } = await productionAndStaging(start);
    await s.write(SLICES, SLICES_TEXT);
    await s.write("courses/rust/course.yaml", "title: Rust\nstatus: draft\n");
    await s.write(
      "courses/rust/01-ownership.md",
      "---\ntitle: Ownership\nordinal: 1\nformat: html\n---\n<p>own</p>\n",
    );
    const points = captureCrashPoints(s.root, () => staging.state.dump());
    const first = await s.cli("push", "--site", "staging", "--yes");
    expect(first.code, first.stderr).toBe(0);
    vi.restoreAllMocks();
    expect(points.length).toBe(2 * 2 * 3 + 1);
    const finalSite = staging.state.dump();
    const finalFiles = treeNow(s.root);
    for (const point of points) {
      restoreTree(s.root, point.files);
      staging.state.reset(point.site);
      const rerun = await s.cli("push", "--site", "staging", "--yes");
      expect(rerun.code, `${point.where}: ${rerun.stderr}`).toBe(0);
      expect(staging.state.dump(), point.where).toEqual(finalSite);
      expect(userFiles(treeNow(s.root)), point.where).toEqual(userFiles(finalFiles));
      expect(snapshotFiles(treeNow(s.root), "staging"), point.where).toEqual(
        snapshotFiles(finalFiles, "staging"),
      );
      const again = await s.cli("push", "--site", "staging", "--yes");
      expect(again.stdout, `${point.where}: ${again.stderr}`).toContain("Nothing to push");
    }
  });

  it("a push to staging killed at any point is finished by a pull and a push: one file, one record each", async () => {
    const { s, staging } = await productionAndStaging(start);
    await s.write(SLICES, SLICES_TEXT);
    await s.write("courses/rust/course.yaml", "title: Rust\nstatus: draft\n");
    const points = captureCrashPoints(s.root, () => staging.state.dump());
    expect((await s.cli("push", "--site", "staging", "--yes")).code).toBe(0);
    vi.restoreAllMocks();
    const finalFiles = userFiles(treeNow(s.root));
    for (const point of points) {
      restoreTree(s.root, point.files);
      staging.state.reset(point.site);
      const pulled = await s.cli("pull", "--site", "staging");
      expect(pulled.code, `${point.where}: ${pulled.stderr}`).toBe(0);
      const pushed = await s.cli("push", "--site", "staging", "--yes");
      expect(pushed.code, `${point.where}: ${pushed.stderr}`).toBe(0);
      expect(
        staging.state.dump().chapters.filter((c) => c.title === "Slices"),
        point.where,
      ).toHaveLength(1);
      const rust = staging.state.dump().courses.filter((c) => c.title === "Rust");
      expect(rust, point.where).toHaveLength(1);
      expect(userFiles(treeNow(s.root)), point.where).toEqual(finalFiles);
      const again = await s.cli("push", "--site", "staging", "--yes");
      expect(again.stdout, point.where).toContain("Nothing to push");
    }
  });
});
