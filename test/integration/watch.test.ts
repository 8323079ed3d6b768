import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { appendFile, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { realSleep } from "../../src/api/gate.js";
import { main } from "../../src/cli/main.js";
import type { StopSignal } from "../../src/errors.js";
import { StatCache } from "../../src/tree/stat-cache.js";
import type { SetTimer } from "../../src/util/timer.js";
import { runCli } from "../helpers/cli.js";
import { GUIDE_HTML, teamWorld } from "../helpers/clones.js";
import { type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { eventually, pulledSite, writeRequests } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";
import { type ManualTimers, manualTimers } from "../helpers/time.js";

const start = useEmulators();
const stops: Array<() => Promise<number>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
  await cleanupTestdirs();
});

/** A pulled tree of one course, "Course" (1), with Chapter 1, 2 and 3; `folder` is the course's. */
async function setup() {
  const { emulator, root, env } = await pulledSite(start, {
    courses: [{ title: "Course", status: 1 }],
    chapters: [1, 2, 3].map((i) => ({
      course_id: 1,
      title: `Chapter ${i}`,
      ordinal: i,
      content: `<p>${i}</p>`,
    })),
  });
  return { emulator, tree: root, env, folder: path.join(root, "courses", "course") };
}

/** Start `coursesync watch` in this process; returns its output so far and a stop function. */
async function startWatch(
  tree: string,
  env: Record<string, string>,
  args: string[] = [],
  options: { apiRetries?: number; setTimer?: SetTimer } = {},
) {
  // The quiet time and the retries run on timers the test fires: nothing waits on the clock.
  const timers = manualTimers();
  let stdout = "";
  let stop!: () => void;
  const interrupted = new Promise<StopSignal>((resolve) => (stop = () => resolve("SIGINT")));
  const done = main(["watch", "--yes", ...args], {
    stdout: { write: (t: string) => (stdout += t), isTTY: false },
    stderr: { write: (t: string) => (stdout += t), isTTY: false },
    stdinIsTTY: false,
    env,
    cwd: tree,
    interrupted,
    sleep: realSleep,
    now: Date.now,
    setTimer: timers.setTimer,
    ...options,
    prompts: {
      input: () => Promise.reject(new Error("no prompt")),
      password: () => Promise.reject(new Error("no prompt")),
      confirm: () => Promise.reject(new Error("no prompt")),
    },
  });
  const handle = {
    timers,
    output: () => stdout,
    stop: async () => {
      stop();
      return done;
    },
  };
  stops.push(handle.stop);
  await eventually(() => stdout.includes("watching"));
  return handle;
}

/** Once the watcher has seen a save (the 300 ms quiet-time timer is set), end the quiet time now. */
async function quietTimeOver(timers: ManualTimers): Promise<void> {
  await eventually(() => timers.pending().includes(300));
  timers.fire(300);
}

/** End each quiet time as it starts (saves reported one by one) until `check` holds. */
function firingUntil(timers: ManualTimers, check: () => boolean): Promise<true> {
  return eventually(() => {
    timers.fire(300);
    return check();
  });
}

/**
 * End each pending wait that no further event restarted across `looks` looks (a save the
 * watcher reports in several events is one), until `check` holds: for tests where no push is
 * expected to fail and wait for a retry.
 */
function flushingUntil(timers: ManualTimers, check: () => boolean, looks = 3): Promise<true> {
  return eventually(() => {
    timers.fireSettled(looks);
    return check();
  });
}

/**
 * As flushingUntil, for a save that lands while the push of the one before it is under way.
 * chokidar drops a change of a file reported within 50 ms of the last one it reported for that
 * file (no trailing event), so the quiet time before that push must outlast its window, as the
 * real 300 ms one does: four looks, at least three polls of 20 ms apart, end it no sooner.
 */
function flushingAcrossSaves(timers: ManualTimers, check: () => boolean): Promise<true> {
  return flushingUntil(timers, check, 4);
}

/** Run `during` at the moment the site applies the next chapter update (as a save landing then). */
function onNextChapterUpdate(emulator: TestEmulator, during: () => void): void {
  const state = emulator.state;
  const real = state.updateChapter.bind(state);
  state.updateChapter = (id: number, body: unknown) => {
    state.updateChapter = real;
    const out = real(id, body);
    during();
    return out;
  };
}

/** The requests of one write method the site got (not logins). */
function writes(emulator: TestEmulator, method: string) {
  return writeRequests(emulator).filter((r) => r.method === method);
}

describe("watch", () => {
  it("PATCHes a save, and sends nothing more afterwards (no echo of its own writes)", async () => {
    const { emulator, tree, env, folder } = await setup();
    const timers = manualTimers();
    const watch = await startWatch(tree, env, [], { setTimer: timers.setTimer });
    emulator.state.clearRequests();
    await appendFile(path.join(folder, "01-chapter-1.md"), "<p>saved</p>\n");
    await quietTimeOver(timers);
    await eventually(() => writes(emulator, "PATCH").length === 1);
    expect(emulator.state.get("chapters", 1)?.content).toBe("<p>1</p>\n<p>saved</p>");
    // A later save of another file: the watcher reports events in order, so an echo of the
    // first push's writes would come before it, and be pushed with it or at the stop.
    await appendFile(path.join(folder, "02-chapter-2.md"), "<p>later</p>\n");
    await firingUntil(timers, () => writes(emulator, "PATCH").length === 2);
    expect(await watch.stop()).toBe(130); // stopped with Ctrl-C
    expect(writes(emulator, "PATCH").map((r) => r.path)).toEqual([
      "/api/v1/chapters/1",
      "/api/v1/chapters/2",
    ]);
    expect(watch.output()).toMatch(/updated\s+courses\/course\/01-chapter-1\.md \[content\]/);
    expect(watch.output()).toContain("stopped; the snapshot is saved");
    // Each push kept the stat cache's clean mark: the next status or pull reads only the
    // course folders watch touched, and says what a status without the cache says.
    const cache = new StatCache(path.join(tree, ".coursesync/cache/production/stat.json")).loadSync();
    expect(cache.clean).toBeDefined();
    expect(cache.dirtyAtClean).toEqual(["courses/course"]);
    const status = await runCli(["status", "--exit-code"], { cwd: tree, env });
    expect(status.code).toBe(0);
    rmSync(path.join(tree, ".coursesync/cache/production/stat.json"));
    expect(await runCli(["status", "--exit-code"], { cwd: tree, env })).toEqual(status);
  });

  it("turns ten saves before the quiet time ends into one PATCH carrying the final content", async () => {
    const { emulator, tree, env, folder } = await setup();
    const timers = manualTimers();
    const watch = await startWatch(tree, env, [], { setTimer: timers.setTimer });
    emulator.state.clearRequests();
    const file = path.join(folder, "02-chapter-2.md");
    const original = await readFile(file, "utf8");
    for (let i = 1; i <= 10; i++) await writeFile(file, `${original}<p>draft ${i}</p>\n`);
    await quietTimeOver(timers);
    await eventually(() => emulator.state.get("chapters", 2)?.content.endsWith("<p>draft 10</p>"));
    // Saves the watcher reports late are pushed at the stop, and find nothing new to send.
    expect(await watch.stop()).toBe(130);
    expect(writes(emulator, "PATCH")).toHaveLength(1);
  });

  it("reads an atomic rename-over save as an edit: a PATCH, never a DELETE", async () => {
    const { emulator, tree, env, folder } = await setup();
    const watch = await startWatch(tree, env);
    emulator.state.clearRequests();
    const file = path.join(folder, "03-chapter-3.md");
    const temp = path.join(folder, ".03-chapter-3.md.swp-tmp");
    await writeFile(temp, `${await readFile(file, "utf8")}<p>atomic</p>\n`);
    await rename(temp, file);
    await flushingUntil(watch.timers, () => writes(emulator, "PATCH").length === 1);
    expect(writes(emulator, "DELETE")).toHaveLength(0);
    expect(emulator.state.get("chapters", 3)?.content).toContain("<p>atomic</p>");
    await watch.stop();
  });

  it("sends no DELETE for a deleted file without --delete, says it waits for a push, and counts it at the stop", async () => {
    const { emulator, tree, env, folder } = await setup();
    const timers = manualTimers();
    const watch = await startWatch(tree, env, [], { setTimer: timers.setTimer });
    emulator.state.clearRequests();
    await rm(path.join(folder, "03-chapter-3.md"));
    await quietTimeOver(timers);
    await eventually(() => watch.output().includes("not sent: run `coursesync push`"));
    expect(writes(emulator, "DELETE")).toHaveLength(0);
    expect(emulator.state.get("chapters", 3)).toBeDefined();
    expect(await watch.stop()).toBe(130);
    expect(watch.output()).toMatch(
      /stopped; the snapshot is saved; 1 delete not sent \(`coursesync push` sends it\)\n$/,
    );
  });

  it("deletes with --delete", async () => {
    const { emulator, tree, env, folder } = await setup();
    const watch = await startWatch(tree, env, ["--delete"]);
    await rm(path.join(folder, "03-chapter-3.md"));
    await flushingUntil(watch.timers, () => writes(emulator, "DELETE").length === 1);
    expect(emulator.state.get("chapters", 3)).toBeUndefined();
    await watch.stop();
  });

  it("creates a new file once and writes its id back without a second POST", async () => {
    const { emulator, tree, env, folder } = await setup();
    const timers = manualTimers();
    const watch = await startWatch(tree, env, [], { setTimer: timers.setTimer });
    emulator.state.clearRequests();
    const file = path.join(folder, "04-new.md");
    await writeFile(file, "---\ntitle: Brand new\nordinal: 4\nformat: html\n---\n<p>new</p>\n");
    await quietTimeOver(timers);
    await eventually(() => writes(emulator, "POST").length === 1);
    const withId = await eventually(async () => {
      const body = await readFile(file, "utf8");
      return /^id: \d+$/m.test(body) && body;
    }, 4_000);
    expect(withId).toMatch(/^---\nid: \d+\ntitle: Brand new\n/);
    // A later save of another file: the id written back is reported before it (events come
    // in order), so it is pushed with it or at the stop, and must send nothing.
    await appendFile(path.join(folder, "01-chapter-1.md"), "<p>later</p>\n");
    await firingUntil(timers, () => writes(emulator, "PATCH").length === 1);
    expect(await watch.stop()).toBe(130);
    expect(writes(emulator, "POST")).toHaveLength(1);
    expect(writes(emulator, "PATCH").map((r) => r.path)).toEqual(["/api/v1/chapters/1"]);
  });

  it("reports an invalid file with its path and line, skips it, and goes on with the others", async () => {
    const { emulator, tree, env, folder } = await setup();
    const watch = await startWatch(tree, env);
    emulator.state.clearRequests();
    await writeFile(path.join(folder, "05-bad.md"), "---\ntitle: a: b\nordinal: 5\n---\n<p>x</p>\n");
    await flushingUntil(watch.timers, () => watch.output().includes("invalid"));
    expect(watch.output()).toMatch(/courses\/course\/05-bad\.md:2: YAML does not parse/);
    await appendFile(path.join(folder, "01-chapter-1.md"), "<p>still going</p>\n");
    await flushingUntil(watch.timers, () => writes(emulator, "PATCH").length === 1);
    expect(writes(emulator, "POST")).toHaveLength(0);
    // Fixed, it is created.
    await writeFile(
      path.join(folder, "05-bad.md"),
      "---\ntitle: Fixed\nordinal: 5\nformat: html\n---\n<p>x</p>\n",
    );
    await flushingUntil(watch.timers, () => writes(emulator, "POST").length === 1);
    await watch.stop();
  });

  it("reports a save holding a value the site cannot take, sends none of it, and sends the others", async () => {
    const { emulator, tree, env, folder } = await setup();
    const watch = await startWatch(tree, env);
    emulator.state.clearRequests();
    const bad = path.join(folder, "01-chapter-1.md");
    const saved = await readFile(bad, "utf8");
    await writeFile(bad, saved.replace("title: Chapter 1", 'title: "Chapter\\0 1"').concat("<p>more</p>\n"));
    await appendFile(path.join(folder, "02-chapter-2.md"), "<p>still going</p>\n");
    await flushingUntil(
      watch.timers,
      () => writes(emulator, "PATCH").length === 1 && watch.output().includes("invalid"),
    );
    expect(watch.output()).toContain(
      "courses/course/01-chapter-1.md:3: title holds the control character U+0000 (NUL), which the site cannot store as text (skipped until it is fixed)",
    );
    expect(writes(emulator, "PATCH").map((r) => r.path)).toEqual(["/api/v1/chapters/2"]);
    expect(emulator.state.get("chapters", 1)?.content).toBe("<p>1</p>");
    // Fixed, it is sent.
    await writeFile(bad, saved.concat("<p>more</p>\n"));
    await flushingUntil(watch.timers, () => writes(emulator, "PATCH").length === 2);
    expect(emulator.state.get("chapters", 1)?.content).toBe("<p>1</p>\n<p>more</p>");
    await watch.stop();
  });

  it("pauses on a burst of deletes (a branch switch), counts every file gone, and resumes when they are back", async () => {
    const { emulator, tree, env, folder } = await setup();
    for (let i = 4; i <= 6; i++) {
      emulator.state.createChapter({
        chapter: { course_id: 1, title: `Chapter ${i}`, ordinal: i, content: `<p>${i}</p>` },
      });
    }
    await runCli(["pull"], { cwd: tree, env });
    const timers = manualTimers();
    const watch = await startWatch(tree, env, ["--delete"], { setTimer: timers.setTimer });
    emulator.state.clearRequests();
    const names = (await import("node:fs/promises")).readdir;
    const files = (await names(folder)).filter((f) => f.endsWith(".md")).sort();
    const saved = await Promise.all(
      files.map(async (f) => [f, await readFile(path.join(folder, f), "utf8")] as const),
    );
    // A checkout's deletes reach the watcher in two bursts: the count is of the files gone.
    await Promise.all(files.slice(0, 5).map((f) => rm(path.join(folder, f))));
    await quietTimeOver(timers);
    await eventually(() => watch.output().includes("paused: 5 files disappeared at once"));
    await rm(path.join(folder, files[5]!));
    await quietTimeOver(timers);
    await eventually(() => watch.output().includes("paused: 6 files disappeared at once"));
    expect(writes(emulator, "DELETE")).toHaveLength(0);
    await Promise.all(saved.map(([f, text]) => writeFile(path.join(folder, f), text)));
    await firingUntil(timers, () => watch.output().includes("resumed"));
    expect(writes(emulator, "DELETE")).toHaveLength(0);
    expect(writes(emulator, "PATCH")).toHaveLength(0);
    expect(await watch.stop()).toBe(130);
    expect(watch.output()).toMatch(/stopped; the snapshot is saved\n$/);
  });

  it("leaves a record the site changed too, says so, and goes on with the rest", async () => {
    const { emulator, tree, env, folder } = await setup();
    const watch = await startWatch(tree, env);
    emulator.state.edit("chapters", 1, { content: "<p>changed on the site</p>" });
    emulator.state.clearRequests();
    await appendFile(path.join(folder, "01-chapter-1.md"), "<p>mine</p>\n");
    await flushingUntil(watch.timers, () => watch.output().includes("conflict"));
    expect(watch.output()).toMatch(
      /conflict +courses\/course\/01-chapter-1\.md \[content\].*; run `coursesync pull` to bring the site's version in, then save again\n/,
    );
    expect(writes(emulator, "PATCH")).toHaveLength(0);
    expect(emulator.state.get("chapters", 1)?.content).toBe("<p>changed on the site</p>");
    await appendFile(path.join(folder, "02-chapter-2.md"), "<p>other</p>\n");
    await flushingUntil(watch.timers, () => writes(emulator, "PATCH").length === 1);
    expect(emulator.state.get("chapters", 2)?.content).toContain("<p>other</p>");
    expect(await watch.stop()).toBe(130);
    expect(watch.output()).toContain(
      "stopped; the snapshot is saved; 1 conflict with the site (`coursesync pull` brings its version in): courses/course/01-chapter-1.md\n",
    );
  });

  it("keeps a save through a network loss and sends it once the site answers again", async () => {
    const { emulator, tree, env, folder } = await setup();
    // The client gives up at once, so watch's own retry (after 1 s) is what brings it through.
    const timers = manualTimers();
    const watch = await startWatch(tree, env, [], { apiRetries: 0, setTimer: timers.setTimer });
    emulator.faults.update({ resetNext: 1 });
    emulator.state.clearRequests();
    await appendFile(path.join(folder, "01-chapter-1.md"), "<p>offline edit</p>\n");
    await quietTimeOver(timers);
    await eventually(() => watch.output().includes("waiting"));
    expect(watch.output()).toContain("trying again in 1 s");
    expect(writes(emulator, "PATCH")).toHaveLength(0);
    expect(timers.pending()).toEqual([1000]);
    timers.fire(1000);
    await eventually(() => writes(emulator, "PATCH").length === 1);
    expect(emulator.state.get("chapters", 1)?.content).toContain("<p>offline edit</p>");
    expect(emulator.faults.pending.resetNext).toBe(0);
    // Stopping waits for that push to finish: its snapshot is saved, nothing is left to push.
    expect(await watch.stop()).toBe(130); // stopped with Ctrl-C
    expect((await runCli(["status"], { cwd: tree, env })).stdout).toContain("Nothing to push");
    expect(writes(emulator, "PATCH")).toHaveLength(1);
  });

  it("keeps the saves of two pushes that fail in a row, and sends both once the site answers", async () => {
    const { emulator, tree, env, folder } = await setup();
    const timers = manualTimers();
    const watch = await startWatch(tree, env, [], { apiRetries: 0, setTimer: timers.setTimer });
    emulator.faults.update({ resetNext: 2 });
    await appendFile(path.join(folder, "01-chapter-1.md"), "<p>edit A</p>\n");
    await quietTimeOver(timers);
    await eventually(() => watch.output().split("waiting").length === 2);
    expect(timers.pending()).toEqual([1000]);
    // Before the retry: another file is saved, and its push fails too; the wait doubles.
    await appendFile(path.join(folder, "02-chapter-2.md"), "<p>edit B</p>\n");
    await quietTimeOver(timers);
    await eventually(() => watch.output().split("waiting").length === 3);
    expect(timers.pending()).toEqual([2000]);
    timers.fire(2000);
    await eventually(() => emulator.state.get("chapters", 2)?.content.includes("edit B") === true);
    await eventually(() => emulator.state.get("chapters", 1)?.content.includes("edit A") === true);
    expect(await watch.stop()).toBe(130); // stopped with Ctrl-C
    expect((await runCli(["status"], { cwd: tree, env })).stdout).toContain("Nothing to push");
  });

  it("sends a save that lands while the push of the save before it is under way", async () => {
    const { emulator, tree, env, folder } = await setup();
    const watch = await startWatch(tree, env);
    const file = path.join(folder, "01-chapter-1.md");
    const state = emulator.state;
    onNextChapterUpdate(emulator, () => appendFileSync(file, "<p>second</p>\n"));
    await appendFile(file, "<p>first</p>\n");
    await flushingAcrossSaves(
      watch.timers,
      () => state.get("chapters", 1)?.content.includes("<p>second</p>") === true,
    );
    expect(await watch.stop()).toBe(130); // stopped with Ctrl-C
    expect((await runCli(["status"], { cwd: tree, env })).stdout).toContain("Nothing to push");
  });

  it("goes on when an editor deletes and writes a file again while its push is under way", async () => {
    const { emulator, tree, env, folder } = await setup();
    const watch = await startWatch(tree, env);
    const file = path.join(folder, "01-chapter-1.md");
    const state = emulator.state;
    onNextChapterUpdate(emulator, () => {
      const text = readFileSync(file, "utf8");
      rmSync(file);
      setImmediate(() => writeFileSync(file, `${text}<p>second</p>\n`));
    });
    await appendFile(file, "<p>first</p>\n");
    await flushingAcrossSaves(
      watch.timers,
      () => state.get("chapters", 1)?.content.includes("<p>second</p>") === true,
    );
    // Later saves of other files still go out: the session is alive.
    await appendFile(path.join(folder, "02-chapter-2.md"), "<p>later</p>\n");
    await flushingAcrossSaves(
      watch.timers,
      () => state.get("chapters", 2)?.content.includes("<p>later</p>") === true,
    );
    expect(writes(emulator, "DELETE")).toHaveLength(0);
    expect(await watch.stop()).toBe(130); // stopped with Ctrl-C
  });
});

describe("watch with a body the site changed too", () => {
  it("merges a save at the top with the site's edit at the bottom, and pushes the merge", async () => {
    const html = "<h1>Start</h1><p>Middle text here.</p><p>Last paragraph here.</p>";
    const { emulator, root, env } = await pulledSite(start, {
      body: "markdown",
      courses: [{ title: "Course" }],
      chapters: [{ course_id: 1, title: "Intro", ordinal: 1, content: html }],
    });
    const file = path.join(root, "courses", "course", "01-intro.md");
    expect(await readFile(file, "utf8")).toContain("# Start\n");
    emulator.state.edit("chapters", 1, {
      content: html.replace("Last paragraph here.", "Last, from the site."),
    });
    const watch = await startWatch(root, env);
    emulator.state.clearRequests();
    await writeFile(file, (await readFile(file, "utf8")).replace("# Start", "# Start here"));
    await flushingUntil(watch.timers, () => writes(emulator, "PATCH").length === 1);
    const content = String(emulator.state.get("chapters", 1)?.content);
    expect(content).toContain("<h1>Start here</h1>");
    expect(content).toContain("<p>Last, from the site.</p>");
    expect(await watch.stop()).toBe(130);
    expect(await readFile(file, "utf8")).toContain("Last, from the site.");
  });

  it("merges the same way in a fresh git clone, which has no content cache (the base is read from git)", async () => {
    const w = await teamWorld(start);
    const fresh = await w.clone();
    const sites = "Fifth paragraph about wrap-up, edited on the site.";
    w.emulator.state.edit("chapters", 1, {
      content: GUIDE_HTML.replace("Fifth paragraph about wrap-up.", sites),
    });
    // Saved before the watch starts: its first comparison meets both edits.
    await w.replace(fresh, "First paragraph about setup.", "First paragraph, saved while watching.");
    w.emulator.state.clearRequests();
    const watch = await startWatch(path.join(fresh, "content"), w.env);
    await flushingUntil(watch.timers, () => writes(w.emulator, "PATCH").length === 1);
    const content = String(w.emulator.state.get("chapters", 1)?.content);
    expect(content).toContain("<p>First paragraph, saved while watching.</p>");
    expect(content).toContain(`<p>${sites}</p>`);
    expect(await watch.stop()).toBe(130);
    expect(await w.read(fresh)).toContain(sites);
  });
});
