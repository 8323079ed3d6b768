import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { pull as pullTree } from "../../src/sync/pull/index.js";
import { acquireLock } from "../../src/sync/state/lock.js";
import { htmlBodies } from "../../src/tree/codecs.js";
import { runCli } from "../helpers/cli.js";
import { DEAD_PID } from "../helpers/crash.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { addChapter, addCourse, cliEnv, LOGIN, ok, stamps, writeConfig } from "../helpers/site.js";
import { snapshotFiles } from "../helpers/snapshot.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** The files of the snapshot folder, as one text. */
async function snapshotText(root: string): Promise<string> {
  return JSON.stringify(snapshotFiles(await readTree(root)));
}

/** An emulator, a tree for it, and a CLI bound to both. */
async function setup(options: EmulatorOptions = {}) {
  const emulator = await start({ seedDir: null, admin: true, now: manualClock().now, ...options });
  const dir = await testdir();
  const env = cliEnv(dir);
  const root = path.join(dir, "tree");
  await writeConfig(root, emulator.baseUrl);
  const pull = (...args: string[]) => runCli(["pull", ...args], { cwd: root, env });
  return { emulator, dir, env, root, pull };
}

/** `courses` courses of `chapters` chapters each; returns their ids. */
function seed(
  emulator: TestEmulator,
  courses: number,
  chapters: number,
  content = (i: number) => `<p>${i}</p>`,
) {
  const out: { course: number; chapters: number[] }[] = [];
  for (let c = 0; c < courses; c++) {
    const course = addCourse(emulator, { title: `Course ${c}` });
    const ids: number[] = [];
    for (let i = 0; i < chapters; i++) {
      ids.push(
        addChapter(emulator, {
          course_id: course,
          title: `Chapter ${i}`,
          content: content(c * chapters + i),
        }),
      );
    }
    out.push({ course, chapters: ids });
  }
  return out;
}

describe("pull guards: cannot see it is not deleted", () => {
  it("aborts when a list page fails after its retries: nothing deleted, the snapshot untouched", async () => {
    const { emulator, root, pull } = await setup({ pageSize: 2 });
    const site = seed(emulator, 2, 4);
    expect((await pull()).code).toBe(0);
    // Changes a complete listing would apply: a delete, an update, a create.
    emulator.state.remove("chapters", site[0]!.chapters[0]!);
    ok(emulator.state.edit("chapters", site[1]!.chapters[1]!, { title: "Renamed" }));
    ok(emulator.state.createCourse({ course: { title: "New" } }));
    const before = await readTree(root);

    // Page 1 of the chapters arrives; every later chapters page answers 503, retries included.
    const client = new ApiClient({
      baseUrl: emulator.baseUrl,
      credentials: { email: LOGIN.COURSESYNC_EMAIL, password: LOGIN.COURSESYNC_PASSWORD },
      sleep: async () => {},
    });
    // Progress is told the last sync's counts before the first page (the bars' totals).
    const expected: Array<[string, number]> = [];
    const failing = pullTree(
      {
        root,
        site: "production",
        siteUrl: emulator.baseUrl,
        ignore: [],
        bodies: htmlBodies,
        onExpected: (list, records) => expected.push([list, records]),
        onPage: (list, page) => {
          if (list === "chapters" && page === 1) {
            emulator.faults.update({ failNext: 1000, failStatus: 503, match: { path: "/api/v1/chapters" } });
          }
        },
      },
      client,
    );
    await expect(failing).rejects.toThrow(/GET \/api\/v1\/chapters\?page=2.* 503/);
    client.close();
    expect(expected).toEqual([
      ["courses", 2],
      ["chapters", 8],
    ]);
    const retried = emulator.state.requests.filter((r) => r.query === "page=2" && r.status === 503);
    expect(retried.length).toBeGreaterThan(1);
    expect(await readTree(root)).toEqual(before);

    // Through the CLI: a page that fails aborts with exit 1 and changes nothing.
    emulator.faults.update({ failNext: 1, failStatus: 403, match: { path: "/api/v1/courses" } });
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GET \/api\/v1\/courses\?page=1 .*403/);
    expect(await readTree(root)).toEqual(before);
    emulator.faults.update({ failNext: 0 });
    expect((await pull()).code).toBe(0);
  });

  it("aborts on an empty course listing while the snapshot holds records", async () => {
    const { emulator, root, pull } = await setup();
    const site = seed(emulator, 2, 2);
    expect((await pull()).code).toBe(0);
    const before = await readTree(root);
    for (const { course } of site) emulator.state.remove("courses", course);
    const result = await pull("--max-delete", "100");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /the site listed no courses, but the snapshot holds 6 records; nothing was changed/,
    );
    expect(await readTree(root)).toEqual(before);
  });

  it("aborts on an empty chapter listing while the snapshot holds chapters", async () => {
    const { emulator, root, pull } = await setup();
    const site = seed(emulator, 4, 1);
    expect((await pull()).code).toBe(0);
    const before = await readTree(root);
    for (const { chapters } of site) emulator.state.remove("chapters", chapters[0]!);
    const result = await pull("--max-delete", "100");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /the site listed no chapters, but the snapshot holds 4; nothing was changed/,
    );
    expect(await readTree(root)).toEqual(before);
  });

  it("stops (exit 3) before deleting more files than the guard allows, unless --max-delete says more", async () => {
    const { emulator, root, pull } = await setup();
    const [only] = seed(emulator, 1, 8); // 9 records: a quarter is 2
    expect((await pull()).code).toBe(0);
    const before = await readTree(root);
    for (const id of only!.chapters.slice(0, 3)) emulator.state.remove("chapters", id);
    const stopped = await pull();
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toMatch(/would delete 3 local files \(the limit is 2\); nothing was changed/);
    expect(stopped.stderr).toMatch(/--max-delete 3/);
    expect(await readTree(root)).toEqual(before);
    expect((await pull("--max-delete", "2")).code).toBe(3);
    const allowed = await pull("--max-delete", "3");
    expect(allowed.code).toBe(0);
    expect(Object.keys(await readTree(path.join(root, "courses")))).toHaveLength(1 + 5);
  });

  it("caps the guard at 10 files on a large site", async () => {
    const { emulator, root, pull } = await setup({ pageSize: 50 });
    const [big] = seed(emulator, 1, 59); // 60 records: a quarter is 15, the cap 10
    expect((await pull()).code).toBe(0);
    for (const id of big!.chapters.slice(0, 11)) emulator.state.remove("chapters", id);
    const stopped = await pull();
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toMatch(/would delete 11 local files \(the limit is 10\)/);
    expect((await pull("--max-delete", "11")).code).toBe(0);
    expect(Object.keys(await readTree(path.join(root, "courses")))).toHaveLength(1 + 48);
  });
});

describe("pull with invalid local files", () => {
  it("pulls the other records, leaves the invalid file as it is and names it with its line", async () => {
    const { emulator, root, pull } = await setup();
    const [course] = seed(emulator, 1, 2);
    expect((await pull()).code).toBe(0);
    const file = path.join(root, "courses/course-0/01-chapter-0.md");
    await writeFile(file, (await readFile(file, "utf8")).replace("ordinal: 1", "ordinal: first"));
    ok(emulator.state.edit("chapters", course!.chapters[1]!, { title: "Changed" }));
    emulator.state.remove("chapters", course!.chapters[0]!);
    const before = await readTree(root);
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/1 invalid file; they were left as they are, the rest was pulled/);
    expect(result.stderr).toMatch(/courses\/course-0\/01-chapter-0\.md:4: ordinal must be a whole number/);
    // The record the site deleted is kept with its invalid file; the other one is pulled.
    expect(result.stdout).toMatch(
      /\? skipped +courses\/course-0\/01-chapter-0\.md .*deleted on the site; kept here, as its file is invalid/,
    );
    const after = await readTree(root);
    expect(after["courses/course-0/01-chapter-0.md"]).toBe(before["courses/course-0/01-chapter-0.md"]);
    expect(after["courses/course-0/02-changed.md"]).toContain("title: Changed");
    expect(after["courses/course-0/02-chapter-1.md"]).toBeUndefined();
  });
});

describe("pull without a usable snapshot", () => {
  // Bodies that must read back exactly for "equal to the site" to hold.
  const bodies = [
    "",
    "<p>no final newline</p>",
    "<p>trailing newlines</p>\n\n\n",
    "---\ntitle: not front matter\n---\n<p>x</p>",
    "<p>crlf</p>\r\n<p>and a lone cr\r</p>",
    "\n<p>leading newline</p>",
    "<p>lone surrogate \ud800 here</p>",
  ];

  it("adopts files equal to the site without writing them, and rebuilds the same snapshot", async () => {
    const { emulator, dir, env, root, pull } = await setup();
    seed(emulator, 1, bodies.length, (i) => bodies[i]!);
    expect((await pull()).code).toBe(0);
    const snapshot = await snapshotText(root);

    // A fresh clone: the committed files, no .coursesync/.
    const clone = path.join(dir, "clone");
    await cp(root, clone, { recursive: true, filter: (src) => !src.includes(`${path.sep}.coursesync`) });
    const before = await stamps(clone);
    const adopted = await runCli(["pull", "--json"], { cwd: clone, env });
    expect(adopted.code).toBe(0);
    const summary = JSON.parse(adopted.stdout) as { snapshot_missing: boolean; conflicts: unknown[] };
    expect(summary).toMatchObject({ snapshot_missing: true, files_written: 0, conflicts: [], changes: [] });
    const after = Object.fromEntries(
      Object.entries(await stamps(clone)).filter(([file]) => !file.startsWith(".coursesync/production/")),
    );
    expect(after).toEqual(before);
    expect(await snapshotText(clone)).toBe(snapshot);

    // A deleted .coursesync/ in the original tree: the same.
    await rm(path.join(root, ".coursesync"), { recursive: true });
    expect((await pull()).code).toBe(0);
    expect(await snapshotText(root)).toBe(snapshot);
  });

  it("reports every difference as a conflict instead of choosing a side", async () => {
    const { emulator, root, pull } = await setup();
    const [course] = seed(emulator, 1, 3);
    expect((await pull()).code).toBe(0);
    await rm(path.join(root, ".coursesync"), { recursive: true });
    const local = path.join(root, "courses/course-0/01-chapter-0.md");
    const localText = (await readFile(local, "utf8")).replace("<p>0</p>", "<p>older, or newer?</p>");
    await writeFile(local, localText);
    ok(emulator.state.edit("chapters", course!.chapters[1]!, { title: "Changed on the site" }));
    const before = await stamps(root);

    const result = await pull();
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(
      /! conflict +courses\/course-0\/01-chapter-0\.md .*no snapshot to tell which side changed: content/,
    );
    expect(result.stdout).toMatch(/! conflict +courses\/course-0\/02-chapter-1\.md .*title/);
    expect(await readFile(local, "utf8")).toBe(localText);
    expect(await readFile(path.join(root, "courses/course-0/01-chapter-0.remote.md"), "utf8")).toContain(
      "<p>0</p>",
    );
    expect(await readFile(path.join(root, "courses/course-0/02-chapter-1.remote.md"), "utf8")).toContain(
      "title: Changed on the site",
    );
    const after = await stamps(root);
    for (const file of Object.keys(before)) expect(after[file], file).toBe(before[file]);

    const theirs = await pull("--theirs");
    expect(theirs.code).toBe(0);
    expect(await readFile(local, "utf8")).toContain("<p>0</p>");
    expect(existsSync(path.join(root, "courses/course-0/02-changed-on-the-site.md"))).toBe(true);
  });

  it.each([
    ["does not parse", "site.json", "{ not json"],
    ["is not a snapshot", "site.json", '{"version": 3, "site": "x"}'],
    ["has a broken entry", "courses/1.json", '{"course": {"path": 3, "record": {"id": 1}}, "chapters": {}}'],
    ["(of an earlier version) does not parse", "../production.json", "{ not json"],
    [
      "(of an earlier version) is not a snapshot",
      "../production.json",
      '{"version": 2, "courses": {}, "chapters": {}}',
    ],
  ])("stops when the snapshot %s, changing nothing", async (_name, file, text) => {
    const { emulator, root, pull } = await setup();
    seed(emulator, 1, 2);
    expect((await pull()).code).toBe(0);
    const target = path.join(root, ".coursesync/production", file);
    // The single file of earlier versions counts only without the folder.
    if (file.startsWith("..")) await rm(path.join(root, ".coursesync/production"), { recursive: true });
    await writeFile(target, text);
    const before = await readTree(root);
    emulator.state.clearRequests();
    const result = await pull();
    expect(result.code).toBe(1);
    const shown = path.posix.join(".coursesync/production", file).replace(/[./]/g, (c) => `\\${c}`);
    expect(result.stderr).toMatch(new RegExp(`the snapshot ${shown} .*never read as empty`));
    expect(await readTree(root)).toEqual(before);
  });
});

describe("pull into a tree made from another site", () => {
  it("refuses with exit 2 and changes nothing", async () => {
    const { emulator, root, pull } = await setup();
    seed(emulator, 1, 1);
    expect((await pull()).code).toBe(0);
    const other = await start({ seedDir: null });
    await writeConfig(root, other.baseUrl);
    const before = await readTree(root);
    const result = await pull();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`was made for ${emulator.baseUrl}, not ${other.baseUrl}`);
    expect(await readTree(root)).toEqual(before);
    expect(other.state.requests).toHaveLength(0);
  });
});

describe("pull: one process at a time, atomic writes", () => {
  it("refuses to run while another process holds the lock, naming its pid", async () => {
    const { emulator, root, pull } = await setup();
    seed(emulator, 1, 1);
    const release = await acquireLock(root, "production", "push");
    try {
      const result = await pull();
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`the tree is busy: coursesync push (pid ${process.pid} on`);
      expect(existsSync(path.join(root, "courses"))).toBe(false);
      expect(emulator.state.requests).toHaveLength(0);
    } finally {
      await release();
    }
    expect((await pull()).code).toBe(0);
  });

  it("takes over the lock of a process that died on this machine", async () => {
    const { emulator, root, pull } = await setup();
    seed(emulator, 1, 1);
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    await mkdir(path.join(root, ".coursesync/production.lock"), { recursive: true });
    await writeFile(
      path.join(root, ".coursesync/production.lock.holder"),
      JSON.stringify({ pid: dead, host: hostname(), command: "pull", since: "2026-03-01T09:30:00.000Z" }),
    );
    const result = await pull();
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(existsSync(path.join(root, ".coursesync/production.lock"))).toBe(false);
  });

  it("takes at once a lock left without its holder file by a run killed between its two steps", async () => {
    const { emulator, root, pull } = await setup();
    seed(emulator, 1, 1);
    const lock = path.join(root, ".coursesync/production.lock");
    await mkdir(lock, { recursive: true });
    // Made 5 s ago: past the moment a live run takes to name itself, not yet stale by age (10 s).
    const made = new Date(Date.now() - 5_000);
    await utimes(lock, made, made);
    const result = await pull();
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(path.join(root, "courses"))).toBe(true);
  });

  it("clears the temp files killed runs left in the state folder and the cache, not a live writer's", async () => {
    const { emulator, root, pull } = await setup();
    seed(emulator, 1, 2);
    expect((await pull()).code).toBe(0);
    const cache = ".coursesync/cache/production";
    const leftovers = [
      `${cache}/stat.json.${DEAD_PID}.3.tmp`,
      `${cache}/content/ab/ab12.${DEAD_PID}.0.tmp`,
      `${cache}/packs/ab.pack.${DEAD_PID}.5.tmp`,
      `${cache}/spill.${DEAD_PID}.4.tmp`,
      `${cache}/incoming/ab12.${DEAD_PID}.6.tmp`,
      `.coursesync/production.json.${DEAD_PID}.1.tmp`,
      `.coursesync/production.journal.${DEAD_PID}.2.tmp`,
    ];
    const live = `${cache}/stat.json.${process.pid}.99.tmp`;
    for (const file of [...leftovers, live]) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), "half written");
    }
    const result = await pull();
    expect(result.code, result.stderr).toBe(0);
    const files = Object.keys(await readTree(path.join(root, ".coursesync"))).map((f) => `.coursesync/${f}`);
    expect(files.filter((f) => f.endsWith(".tmp"))).toEqual([live]);
  });

  it("lets only one of two overlapping pulls run", async () => {
    const { emulator, root, pull } = await setup({ latencyMs: 150, pageSize: 2 });
    seed(emulator, 2, 2);
    // Start a pull; once its first request is answered it holds the lock and has more to do.
    let firstRequest!: () => void;
    const started = new Promise<void>((resolve) => {
      firstRequest = resolve;
    });
    const log = emulator.state.logRequest.bind(emulator.state);
    emulator.state.logRequest = (entry) => {
      log(entry);
      firstRequest();
    };
    const first = pull();
    await started;
    const second = await pull();
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`the tree is busy: coursesync pull (pid ${process.pid}`);
    expect((await first).code).toBe(0);
    expect(Object.keys(await readTree(path.join(root, "courses")))).toHaveLength(6);
    emulator.faults.update({ latencyMs: 0 });
    expect((await pull()).code).toBe(0);
  });

  it("replaces files by rename, leaves no temp files, and saves the snapshot last", async () => {
    const { emulator, env, root, pull } = await setup();
    const [course] = seed(emulator, 1, 3);
    expect((await pull()).code).toBe(0);
    const before = await stamps(root);
    const snapshotBefore = await snapshotText(root);
    const rewritten = "courses/course-0/01-chapter-0.md";
    ok(emulator.state.edit("chapters", course!.chapters[0]!, { content: "<p>new</p>" }));
    ok(emulator.state.edit("chapters", course!.chapters[2]!, { title: "Renamed" }));
    ok(emulator.state.createChapter({ chapter: { course_id: course!.course, title: "Fourth", ordinal: 4 } }));
    // Something in the way of the new chapter's file, which the scan does not read (an invalid
    // file there would keep its name): the pull fails part-way, at that write.
    const blocker = path.join(root, "courses/course-0/04-fourth.md");
    await mkdir(path.join(blocker, "in-the-way"), { recursive: true });
    const config = path.join(root, "coursesync.yaml");
    const configText = await readFile(config, "utf8");
    await writeFile(config, configText.replace("ignore: []", "ignore: ['04-fourth.md']"));
    const failed = await pull();
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/courses\/course-0\/04-fourth\.md/);
    await writeFile(config, configText);
    expect(await snapshotText(root)).toBe(snapshotBefore);
    expect(Object.keys(await readTree(root)).filter((f) => /\.tmp$|\.moving/.test(f))).toEqual([]);

    // The next run, with the way clear, finishes the job without conflicts.
    await rm(blocker, { recursive: true });
    const rerun = await pull();
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).not.toMatch(/conflict/);
    const after = await stamps(root);
    expect(after[rewritten]!.split(":")[0]).not.toBe(before[rewritten]!.split(":")[0]);
    const shard = `.coursesync/production/courses/${course!.course}.json`;
    expect(after[shard]!.split(":")[0]).not.toBe(before[shard]!.split(":")[0]);
    expect(Object.keys(after).filter((f) => f.startsWith("courses/"))).toEqual([
      "courses/course-0/01-chapter-0.md",
      "courses/course-0/02-chapter-1.md",
      "courses/course-0/03-renamed.md",
      "courses/course-0/04-fourth.md",
      "courses/course-0/course.yaml",
    ]);
    expect(Object.keys(await readTree(root)).filter((f) => /\.tmp$|\.moving/.test(f))).toEqual([]);
    // And equals a clean pull of the same site.
    const clean = path.join(root, "..", "clean");
    await writeConfig(clean, emulator.baseUrl);
    expect((await runCli(["pull"], { cwd: clean, env })).code).toBe(0);
    expect(await readTree(root, [".coursesync/cache"])).toEqual(await readTree(clean, [".coursesync/cache"]));
  });
});
