import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChapterRecord } from "../../src/emulator/records.js";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { runCli } from "../helpers/cli.js";
import { captureCrashPoints, restoreTree, treeNow, userFiles } from "../helpers/crash.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { addChapter, addCourse, pullNewTree, seedSite, stamps, writeRequests } from "../helpers/site.js";
import { addSite, expectSameRecords, writesTo } from "../helpers/sites.js";
import { snapshotFiles } from "../helpers/snapshot.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";
import { fakeTime } from "../helpers/time.js";

const start = useEmulators();
afterEach(() => {
  vi.restoreAllMocks();
  return cleanupTestdirs();
});

const SAMPLE = path.join(import.meta.dirname, "..", "..", "sample-site");

describe("push --site to an empty site: a restore", () => {
  it("creates every course and chapter of the sample site; a pull from it then changes nothing and a push sends nothing", async () => {
    const source = await start({ seedDir: SAMPLE });
    const empty = await start({ seedDir: null });
    const tree = await pullNewTree(source);
    await addSite(tree.root, "staging", empty.baseUrl);
    const cli = (...args: string[]) => runCli(args, { cwd: tree.root, env: tree.env });
    const before = await readTree(tree.root, [".coursesync"]);
    const defaultSnapshot = snapshotFiles(await readTree(tree.root, [".coursesync/cache"]), "production");
    source.state.clearRequests();

    const restored = await cli("push", "--site", "staging", "--yes");
    expect(restored.code, restored.stderr).toBe(0);
    const dump = source.state.dump();
    expect(restored.stdout).toContain(
      `will create ${dump.courses.length} courses and ${dump.chapters.length} chapters`,
    );
    expect(restored.stdout).toMatch(/Not restored .*slugs, created_at and updated_at, and events/);
    expectSameRecords(dump, empty.state.dump(), () => true);
    // Nothing went to the default site, and no file of the tree changed.
    expect(writeRequests(source)).toEqual([]);
    expect(await readTree(tree.root, [".coursesync"])).toEqual(before);
    const state = await readTree(tree.root, [".coursesync/cache"]);
    expect(snapshotFiles(state, "production")).toEqual(defaultSnapshot);
    expect(Object.keys(snapshotFiles(state, "staging"))).toContain(".coursesync/staging/site.json");

    const mtimes = await stamps(tree.root);
    empty.state.clearRequests();
    const pulled = await cli("pull", "--site", "staging");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await stamps(tree.root)).toEqual(mtimes);
    expect(await readTree(tree.root, [".coursesync"])).toEqual(before);
    const again = await cli("push", "--site", "staging", "--yes");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("Nothing to push");
    expect(writesTo(empty)).toEqual([]);
  });
});

/** A site with names that are not safe as they are, raw-HTML chapters and a 1 MB chapter. */
function oddSite(emulator: TestEmulator): void {
  const web = addCourse(emulator, {
    title: "../../etc/passwd CON: <Web> “Ünïcode”",
    status: 1,
    excerpt: "Line one\nline two",
    free: true,
    questions_enabled: false,
    scheduled_at: "2026-05-01T09:00:00+02:00",
    published_at: "2026-04-01T08:00:00.250Z",
  });
  const draft = addCourse(emulator, {
    title: ".hidden / slash \\ back",
    status: 0,
    free: false,
    questions_enabled: true,
  });
  addCourse(emulator, { title: "Empty course" });
  addChapter(emulator, {
    course_id: web,
    title: "Intro",
    ordinal: 1,
    content: "<p>Plain <strong>text</strong></p>",
  });
  addChapter(emulator, {
    course_id: web,
    title: "Styled",
    ordinal: 2,
    content: '<div class="box" style="color:red"><span>raw</span></div>\n<!-- a comment -->\n<p>&nbsp;</p>',
  });
  addChapter(emulator, { course_id: web, title: "Same title", ordinal: 3, content: "<p>a</p>" });
  addChapter(emulator, { course_id: web, title: "Same title", ordinal: 4, content: "<p>b</p>" });
  addChapter(emulator, {
    course_id: draft,
    title: "Big",
    ordinal: 7,
    content: `<pre>${"x".repeat(1024 * 1024)}</pre>`,
  });
  addChapter(emulator, {
    course_id: draft,
    title: "NUL-free <script>",
    ordinal: 1,
    content: "<script>alert(1)</script>",
  });
}

/** A tree pulled from a site made by `seed`, an empty second site named staging, and the CLI. */
async function restoreSetup(seed: (emulator: TestEmulator) => void, options: EmulatorOptions = {}) {
  const source = await start({ seedDir: null });
  seed(source);
  // The runs wait on a fake time (retries, 429s); the site's rate window runs on it too.
  const time = fakeTime();
  const empty = await start({ seedDir: null, now: manualClock().now, rateClock: time.now, ...options });
  const tree = await pullNewTree(source);
  await addSite(tree.root, "staging", empty.baseUrl);
  const cli = (...args: string[]) =>
    runCli(args, { cwd: tree.root, env: tree.env, sleep: time.sleep, now: time.now });
  /** Whether the tree holds a chapter as Markdown (else its HTML is kept byte for byte). */
  const markdown = async () => {
    const files = await readTree(path.join(tree.root, "courses"));
    const html = new Set(
      Object.values(files)
        .filter((text) => /^format: (html|json)$/m.test(text))
        .map((text) => Number(/^id: (\d+)$/m.exec(text)?.[1])),
    );
    return (chapter: ChapterRecord) => !html.has(chapter.id);
  };
  return { source, empty, tree, cli, markdown, time };
}

describe("a restore of odd data", () => {
  it("brings back unsafe names, raw HTML byte for byte, and a 1 MB chapter; files stay as they are", async () => {
    const { source, empty, tree, cli, markdown } = await restoreSetup(oddSite);
    const before = await readTree(tree.root, [".coursesync"]);
    const restored = await cli("push", "--site", "staging", "--yes");
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain("will create 3 courses and 6 chapters");
    expectSameRecords(source.state.dump(), empty.state.dump(), await markdown());
    expect(empty.state.dump().chapters.find((c) => c.title === "Styled")?.content).toBe(
      source.state.dump().chapters.find((c) => c.title === "Styled")?.content,
    );
    expect(await readTree(tree.root, [".coursesync"])).toEqual(before);
    const again = await cli("push", "--site", "staging", "--yes");
    expect(again.stdout).toContain("Nothing to push");
  });
});

describe("a restore into a rate-limited site", () => {
  it("waits out the 429's Retry-After, is refused no more after it, and creates every record exactly once", async () => {
    // The site's rate window runs on the run's clock, which only its sleeps move: a request
    // sent before the Retry-After is waited out would be refused again.
    const { source, empty, cli, markdown, time } = await restoreSetup(
      (e) => {
        for (let c = 1; c <= 3; c++) {
          const course = addCourse(e, { title: `Course ${c}`, status: c % 2 });
          for (let i = 1; i <= 3; i++)
            addChapter(e, {
              course_id: course,
              title: `Part ${c}.${i}`,
              ordinal: i,
              content: `<p>${c}.${i}</p>`,
            });
        }
      },
      { rate: 3 },
    );
    const restored = await cli("push", "--site", "staging", "--yes");
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain("will create 3 courses and 9 chapters");

    const log = empty.state.requests;
    const limited = log.filter((r) => r.status === 429).length;
    // The site's limit was met, and its "Retry-After: 1" waited out first of all.
    expect(limited).toBeGreaterThan(0);
    expect(time.waits[0]).toBe(1000);
    // After that first collision the client paces itself at what the site took (3 starts per
    // window of 1.1 s): no request is refused again, and no wait is longer than one window.
    const first = log.findIndex((r) => r.status === 429);
    const after = log.slice(first).findIndex((r) => r.status !== 429) + first;
    expect(log.slice(after).filter((r) => r.status === 429)).toEqual([]);
    expect(time.waits.slice(1).every((ms) => ms > 0 && ms <= 1100)).toBe(true);
    const created = (resource: string) =>
      log.filter((r) => r.method === "POST" && r.path === `/api/v1/${resource}` && r.status === 201).length;
    expect(created("courses")).toBe(3);
    expect(created("chapters")).toBe(9);
    expectSameRecords(source.state.dump(), empty.state.dump(), await markdown());
    expect((await cli("push", "--site", "staging", "--yes")).stdout).toContain("Nothing to push");
  });
});

describe("a restore that fails part-way", () => {
  it("killed at any write (every journal line) is finished by running it again: nothing twice, nothing missing", async () => {
    const { source, empty, tree, cli, markdown } = await restoreSetup((e) =>
      seedSite(e, {
        courses: [{ title: "Web", status: 1 }, { title: "Go" }],
        chapters: [
          { course_id: 1, title: "One", ordinal: 1, content: "<p>One</p>" },
          { course_id: 1, title: "Two", ordinal: 2, content: "<p>Two</p>" },
          { course_id: 2, title: "Tour", ordinal: 1, content: "<p>Tour</p>" },
        ],
      }),
    );
    const points = captureCrashPoints(tree.root, () => empty.state.dump());
    const first = await cli("push", "--site", "staging", "--yes");
    expect(first.code, first.stderr).toBe(0);
    vi.restoreAllMocks();
    expect(points.length).toBe(2 * 2 * 5 + 1);
    const finalSite = empty.state.dump();
    const finalFiles = treeNow(tree.root);
    const match = await markdown();
    for (const point of points) {
      restoreTree(tree.root, point.files);
      empty.state.reset(point.site);
      const rerun = await cli("push", "--site", "staging", "--yes");
      expect(rerun.code, `${point.where}: ${rerun.stderr}`).toBe(0);
      expect(empty.state.dump(), point.where).toEqual(finalSite);
      expectSameRecords(source.state.dump(), empty.state.dump(), match);
      expect(userFiles(treeNow(tree.root)), point.where).toEqual(userFiles(finalFiles));
      expect(snapshotFiles(treeNow(tree.root), "staging"), point.where).toEqual(
        snapshotFiles(finalFiles, "staging"),
      );
      const again = await cli("push", "--site", "staging", "--yes");
      expect(again.stdout, point.where).toContain("Nothing to push");
    }
  });

  it("under 5xx, dropped connections and lost writes gets there by running it again, with no record twice", async () => {
    const { source, empty, cli, markdown } = await restoreSetup(oddSite, { randomSeed: 7 });
    empty.faults.update({ failRate: 0.2, resetRate: 0.2, lostWriteRate: 0.2 });
    let result = await cli("push", "--site", "staging", "--yes");
    for (let runs = 1; result.code !== 0 && runs < 10; runs++)
      result = await cli("push", "--site", "staging", "--yes");
    expect(result.code, result.stderr).toBe(0);
    const faults = new Set(empty.state.requests.map((r) => r.fault).filter(Boolean));
    expect([...faults].sort()).toEqual(expect.arrayContaining(["lost-write", "reset"]));
    empty.faults.update({ failRate: 0, resetRate: 0, lostWriteRate: 0 });
    expectSameRecords(source.state.dump(), empty.state.dump(), await markdown());
    expect((await cli("push", "--site", "staging", "--yes")).stdout).toContain("Nothing to push");
  });
});
