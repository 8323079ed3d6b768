/**
 * watch bringing the site's edits in: the emulator over real HTTP, watch's polls and quiet
 * times on timers the test fires. Nothing waits on the wall clock.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { appendFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { type TestEmulator, useEmulators } from "../helpers/emulator.js";
import {
  afterRequest,
  eventually,
  type PulledSite,
  pulledSite,
  webAndGoSite,
  writeRequests,
} from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";
import type { ManualTimers } from "../helpers/time.js";
import { poll, pollWait, quietTimeOver, type RunningWatch, useWatches } from "../helpers/watch.js";

const start = useEmulators();
afterEach(cleanupTestdirs);
const startWatch = useWatches();

const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";
const TOUR = "courses/go/01-tour.md";

/** The API requests the site got (not logins), as `METHOD path` without the query. */
function requests(emulator: TestEmulator): string[] {
  return emulator.state.requests
    .filter((r) => r.path !== "/api/login")
    .map((r) => `${r.method} ${r.path.replace(/\?.*$/, "")}`);
}

/** "Web" (Intro, Tags) and "Go" (Tour), pulled, and watch started on it, its first comparison done. */
async function watching(
  options: EmulatorOptions = {},
  apiRetries?: number,
): Promise<PulledSite & { watch: RunningWatch; timers: ManualTimers }> {
  const site = await pulledSite(start, webAndGoSite(options));
  const retries = apiRetries === undefined ? {} : { apiRetries };
  const watch = await startWatch(site.root, site.env, [], { pull: true, ...retries });
  await eventually(() => pollWait(watch.timers) !== undefined);
  site.emulator.state.clearRequests();
  return { ...site, watch, timers: watch.timers };
}

describe("watch bringing the site's edits in", () => {
  it("costs one request a poll while nothing changes", async () => {
    const s = await watching();
    await poll(s.timers);
    await poll(s.timers);
    expect(requests(s.emulator)).toEqual(["GET /api/v1/events", "GET /api/v1/events"]);
    expect(await s.watch.stop()).toBe(130);
  });

  it("writes a site edit of an untouched chapter into its file, and sends nothing back", async () => {
    const s = await watching();
    s.emulator.state.edit("chapters", 2, { content: "<p>tags, from the site</p>" });
    await poll(s.timers);
    await eventually(async () => (await s.read(TAGS)).includes("tags, from the site"));
    expect(s.watch.output()).toMatch(/↓ updated +courses\/web\/02-tags\.md \[content\]: from the site\n/);
    // The watcher's events for the file the pull wrote are no save: nothing goes out.
    await poll(s.timers);
    s.timers.fireSettled(1);
    expect(await s.watch.stop()).toBe(130);
    expect(writeRequests(s.emulator)).toEqual([]);
    expect(s.watch.output()).toMatch(/stopped; the snapshot is saved\n$/);
    expect((await s.cli("status")).stdout).toContain("Nothing to push");
  });

  it("pulls nothing for its own push coming back as an event", async () => {
    const s = await watching();
    await appendFile(s.file(INTRO), "<p>saved here</p>\n");
    await quietTimeOver(s.timers);
    await eventually(() => writeRequests(s.emulator).length === 1);
    s.emulator.state.clearRequests();
    await poll(s.timers);
    expect(requests(s.emulator)).toEqual(["GET /api/v1/events"]);
    expect(await s.watch.stop()).toBe(130);
  });

  it("ends with disjoint edits of both sides on both sides", async () => {
    const s = await watching();
    await s.replace(INTRO, "<p>a</p>", "<p>a, edited here</p>");
    s.emulator.state.edit("chapters", 1, { content: "<p>a</p>\n<p>b</p>\n<p>c, from the site</p>" });
    s.emulator.state.edit("chapters", 3, { title: "Tour, from the site" });
    // The poll comes while the save waits for its quiet time: the push goes first.
    await eventually(() => s.timers.pending().includes(300));
    await poll(s.timers);
    await eventually(() => s.emulator.state.get("chapters", 1)?.content.includes("a, edited here") === true);
    const intro = await s.read(INTRO);
    expect(intro).toContain("<p>a, edited here</p>");
    expect(intro).toContain("<p>c, from the site</p>");
    expect(s.emulator.state.get("chapters", 1)?.content).toBe(
      "<p>a, edited here</p>\n<p>b</p>\n<p>c, from the site</p>",
    );
    await eventually(() => existsSync(s.file("courses/go/01-tour-from-the-site.md")));
    // The save's push merged the site's edit of Intro into the file; the poll brought Tour's.
    expect(s.watch.output()).toMatch(/ {2}updated +courses\/web\/01-intro\.md \[content\]/);
    expect(s.watch.output()).toMatch(
      /↓ updated +courses\/go\/01-tour-from-the-site\.md \[title\] \(was courses\/go\/01-tour\.md\): from the site\n/,
    );
    expect(await s.watch.stop()).toBe(130);
    expect((await s.cli("status")).stdout).toContain("Nothing to push");
  });

  it("merges a site edit into a save not sent yet, and sends the merge", async () => {
    const s = await watching({}, 0);
    s.emulator.faults.update({ resetNext: 1 });
    await s.replace(INTRO, "<p>a</p>", "<p>a, edited here</p>");
    await quietTimeOver(s.timers);
    await eventually(() => s.watch.output().includes("waiting"));
    s.emulator.state.edit("chapters", 1, { content: "<p>a</p>\n<p>b</p>\n<p>c, from the site</p>" });
    await poll(s.timers);
    expect(s.watch.output()).toMatch(
      /↓ updated +courses\/web\/01-intro\.md \[content\]: from the site, merged with your edit \(sent next\)\n/,
    );
    await eventually(() => writeRequests(s.emulator).some((r) => r.method === "PATCH"));
    expect(s.emulator.state.get("chapters", 1)?.content).toBe(
      "<p>a, edited here</p>\n<p>b</p>\n<p>c, from the site</p>",
    );
    expect(await s.watch.stop()).toBe(130);
    expect((await s.cli("status")).stdout).toContain("Nothing to push");
  });

  it("writes markers for a true overlap, holds only that record, and still sends another chapter's save", async () => {
    const s = await watching();
    await s.replace(INTRO, "<p>b</p>", "<p>b, mine</p>");
    s.emulator.state.edit("chapters", 1, { content: "<p>a</p>\n<p>b, theirs</p>\n<p>c</p>" });
    await eventually(() => s.timers.pending().includes(300));
    await poll(s.timers);
    await eventually(async () => (await s.read(INTRO)).includes("<<<<<<<"));
    expect(s.watch.output()).toMatch(/↓ conflict +courses\/web\/01-intro\.md.*conflict markers in the file/);
    await appendFile(s.file(TAGS), "<p>more tags</p>\n");
    await quietTimeOver(s.timers);
    await eventually(() => s.emulator.state.get("chapters", 2)?.content.includes("more tags") === true);
    expect(s.emulator.state.get("chapters", 1)?.content).toBe("<p>a</p>\n<p>b, theirs</p>\n<p>c</p>");
    expect(writeRequests(s.emulator).map((r) => `${r.method} ${r.path}`)).toEqual([
      "PATCH /api/v1/chapters/2",
    ]);
    // The markers are said once, by the pull: the watcher's events of its write are no save.
    expect(s.watch.output()).not.toContain("invalid");
    expect(await s.watch.stop()).toBe(130);
  });

  it("keeps a save that lands while a pull is under way, and ends with both edits on both sides", async () => {
    const s = await watching();
    s.emulator.state.edit("chapters", 1, { content: "<p>a</p>\n<p>b</p>\n<p>c, from the site</p>" });
    // Saved after the pull has read the tree or before: the save is kept either way.
    // (The event names chapter 1: the pull reads it on its own.)
    afterRequest(s.emulator, "GET /api/v1/chapters/1", () => {
      const text = readFileSync(s.file(INTRO), "utf8");
      writeFileSync(s.file(INTRO), text.replace("<p>a</p>", "<p>a, saved during the pull</p>"));
    });
    for (let i = 0; !(await s.read(INTRO)).includes("c, from the site"); i++) {
      await poll(s.timers);
      expect(i).toBeLessThan(5);
    }
    expect(await s.read(INTRO)).toContain("<p>a, saved during the pull</p>");
    await eventually(() => s.emulator.state.get("chapters", 1)?.content.includes("saved during the pull"));
    expect(s.emulator.state.get("chapters", 1)?.content).toBe(
      "<p>a, saved during the pull</p>\n<p>b</p>\n<p>c, from the site</p>",
    );
    expect(await s.watch.stop()).toBe(130);
    expect((await s.cli("status")).stdout).toContain("Nothing to push");
  });

  it("stops sending a file the site changes back right after each push, and says why", async () => {
    const s = await watching();
    const state = s.emulator.state;
    const update = state.updateChapter.bind(state);
    // Something on the site undoes every update of Tags (as another user's automation would).
    state.updateChapter = (id: number, body: unknown) => {
      const out = update(id, body);
      if (id === 2) state.edit("chapters", 2, { content: "<p>tags</p>" });
      return out;
    };
    const patches = () => writeRequests(s.emulator).filter((r) => r.method === "PATCH").length;
    const tags = await s.read(TAGS);
    for (let save = 1; save <= 4; save++) {
      // Saved again until the watcher reports it: it drops a change that comes within 50 ms of
      // the one it reported for the pull's write of the file.
      await eventually(async () => {
        if (patches() === save) return true;
        if (s.timers.fire(300) === 0) await writeFile(s.file(TAGS), `${tags}<p>save ${save}</p>\n`);
        return false;
      });
      await poll(s.timers);
      await eventually(async () => !(await s.read(TAGS)).includes(`save ${save}`));
    }
    expect(s.watch.output()).toContain(
      "paused: courses/web/02-tags.md: the site changed it right after each of the last 4 pushes",
    );
    await appendFile(s.file(TAGS), "<p>save 5</p>\n");
    await appendFile(s.file(INTRO), "<p>other</p>\n");
    await quietTimeOver(s.timers);
    // The two saves may reach the watcher apart (under load): the later one's quiet time ends too.
    await eventually(() => {
      s.timers.fire(300);
      return state.get("chapters", 1)?.content.includes("other") === true;
    });
    expect(patches()).toBe(5);
    // A later change on the site is merged into the paused file, the save kept, and not sent.
    state.edit("chapters", 2, { content: "<p>first, from the site</p>\n<p>tags</p>" });
    await poll(s.timers);
    expect(await s.read(TAGS)).toContain("<p>first, from the site</p>");
    expect(await s.read(TAGS)).toContain("<p>save 5</p>");
    expect(patches()).toBe(5);
    expect(await s.watch.stop()).toBe(130);
    expect(s.watch.output()).toMatch(/1 edit not sent .*courses\/web\/02-tags\.md/);
  });

  it("brings a chapter created on the site in, and takes one deleted there out", async () => {
    const s = await watching();
    s.emulator.state.createChapter({
      chapter: { course_id: 2, title: "Maps", ordinal: 2, content: "<p>m</p>" },
    });
    s.emulator.state.remove("chapters", 2);
    await poll(s.timers);
    // The tree is read file by file: a whole-tree read would race the lock watch takes.
    await eventually(() => existsSync(s.file("courses/go/02-maps.md")) && !existsSync(s.file(TAGS)));
    expect(await s.read("courses/go/02-maps.md")).toContain("<p>m</p>");
    expect(s.watch.output()).toMatch(/↓ created +courses\/go\/02-maps\.md: from the site/);
    expect(s.watch.output()).toMatch(/↓ deleted +courses\/web\/02-tags\.md: deleted on the site/);
    expect(await s.watch.stop()).toBe(130);
    expect(writeRequests(s.emulator)).toEqual([]);
  });

  it("keeps a file with edits not sent when the site deletes its record, and says so", async () => {
    const s = await watching({}, 0);
    s.emulator.faults.update({ resetNext: 1 });
    await appendFile(s.file(TAGS), "<p>kept here</p>\n");
    await quietTimeOver(s.timers);
    await eventually(() => s.watch.output().includes("waiting"));
    s.emulator.state.remove("chapters", 2);
    await poll(s.timers);
    expect(s.watch.output()).toMatch(
      /↓ conflict +courses\/web\/02-tags\.md \[content\]: deleted on the site, edited here; your file is kept\n/,
    );
    expect(await s.read(TAGS)).toContain("<p>kept here</p>");
    // The retry of the save finds the record gone: nothing is created or deleted behind the author's back.
    s.timers.fire(1000);
    await poll(s.timers);
    expect(await s.read(TAGS)).toContain("<p>kept here</p>");
    // What to do is said for this case: a pull would only keep the file again.
    // (The pull's "↓ conflict" line above names the file too: wait for the save's own line.)
    const said =
      /conflict +courses\/web\/02-tags\.md .*\(deleted on the site, edited here\).*; run `coursesync push --force` to create it again from the file, or `coursesync pull --theirs` to remove the file\n/;
    await eventually(() => said.test(s.watch.output()));
    expect(s.watch.output()).toMatch(said);
    expect(await s.watch.stop()).toBe(130);
    expect(writeRequests(s.emulator).filter((r) => r.method !== "PATCH")).toEqual([]);
  });

  it("brings a burst of site edits in with one pull that reads each named record, no list page", async () => {
    const s = await watching();
    s.emulator.state.edit("chapters", 1, { title: "Intro 2" });
    s.emulator.state.edit("chapters", 2, { content: "<p>tags 2</p>" });
    s.emulator.state.edit("chapters", 3, { content: "<p>tour 2</p>" });
    s.emulator.state.edit("courses", 2, { excerpt: "Gophers 2" });
    await poll(s.timers);
    await eventually(async () => (await s.read(TOUR)).includes("tour 2"));
    expect(await s.read(TAGS)).toContain("tags 2");
    expect(await s.read("courses/go/course.yaml")).toContain("Gophers 2");
    const reads = requests(s.emulator).filter((r) => r.startsWith("GET /api/v1/c"));
    expect(reads.sort()).toEqual([
      "GET /api/v1/chapters/1",
      "GET /api/v1/chapters/2",
      "GET /api/v1/chapters/3",
      "GET /api/v1/courses/2",
    ]);
    expect(await s.watch.stop()).toBe(130);
  });

  it("brings nothing in with --no-pull, and never asks for events", async () => {
    const site = await pulledSite(start, webAndGoSite());
    const watch = await startWatch(site.root, site.env);
    site.emulator.state.edit("chapters", 2, { content: "<p>tags, from the site</p>" });
    expect(watch.timers.pending()).toEqual([]);
    expect(await watch.stop()).toBe(130);
    expect(await site.read(TAGS)).not.toContain("from the site");
    expect(requests(site.emulator).filter((r) => r.includes("events"))).toEqual([]);
  });

  it("compares the lists at each poll when the site has no events", async () => {
    const s = await watching({ events: false });
    s.emulator.state.edit("chapters", 2, { content: "<p>tags, from the site</p>" });
    await poll(s.timers);
    await eventually(async () => (await s.read(TAGS)).includes("tags, from the site"));
    expect(requests(s.emulator)).toEqual(
      expect.arrayContaining(["GET /api/v1/courses", "GET /api/v1/chapters"]),
    );
    // The site said it has no events at the start: it is not asked again.
    expect(requests(s.emulator).filter((r) => r.includes("events"))).toEqual([]);
    expect(await s.watch.stop()).toBe(130);
  });

  it("compares the lists when the events it last saw are no longer on the first page", async () => {
    const s = await watching({ eventsKept: 2 });
    // Three edits: the site keeps only the newest two events, neither of them seen before.
    s.emulator.state.edit("chapters", 1, { content: "<p>a, from the site</p>" });
    s.emulator.state.edit("chapters", 2, { content: "<p>tags 2</p>" });
    s.emulator.state.edit("chapters", 3, { content: "<p>tour 2</p>" });
    await poll(s.timers);
    await eventually(async () => (await s.read(INTRO)).includes("a, from the site"));
    expect(await s.read(TAGS)).toContain("tags 2");
    expect(await s.read(TOUR)).toContain("tour 2");
    expect(await s.watch.stop()).toBe(130);
  });

  it("catches a change made without an event at the periodic comparison, slowing down while idle", async () => {
    const s = await watching();
    s.emulator.state.edit("chapters", 2, { content: "<p>tags, silently</p>" }, { silent: true });
    const waits: number[] = [];
    while (!(await s.read(TAGS)).includes("silently")) {
      waits.push(await poll(s.timers));
      expect(waits.length).toBeLessThan(40);
    }
    // Polls every 10 s until three idle minutes, then 20, 40 and 60 s; five minutes in all.
    expect(waits.slice(0, 18)).toEqual(Array(18).fill(10_000));
    expect(waits.slice(18)).toEqual([20_000, 40_000, 60_000]);
    expect(await s.watch.stop()).toBe(130);
    expect(writeRequests(s.emulator)).toEqual([]);
  });

  it("lets a pull under way finish writing when stopped", async () => {
    const s = await watching({ events: false });
    s.emulator.state.edit("chapters", 2, { content: "<p>tags, from the site</p>" });
    let stopped: Promise<number> | undefined;
    const wait = await eventually(() => pollWait(s.timers));
    const chapters = s.emulator.state.logRequest.bind(s.emulator.state);
    s.emulator.state.logRequest = (entry) => {
      chapters(entry);
      if (entry.path.startsWith("/api/v1/chapters")) stopped ??= s.watch.stop();
    };
    s.timers.fire(wait);
    await eventually(() => stopped);
    expect(await stopped).toBe(130);
    expect(await s.read(TAGS)).toContain("tags, from the site");
    expect((await s.cli("status")).stdout).toContain("Nothing to push");
    const pulled = await s.cli("pull", "--dry-run");
    expect(pulled.stdout + pulled.stderr).not.toMatch(/updated/);
  });
});

describe("watch's options for the site's edits", () => {
  it("are push --watch's too: listed in push's help, checked, and refused without --watch", async () => {
    const site = await pulledSite(start, webAndGoSite());
    const help = await site.cli("push", "--help");
    expect(help.stdout).toMatch(/--no-pull +with --watch: only publish, do not bring the site's/);
    expect(help.stdout).toMatch(/--poll <seconds> +with --watch: how often to look for the site's edits/);
    const bad = await site.cli("push", "--watch", "--poll", "0");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--poll must be a number of seconds from 1 to 3600");
    for (const flags of [["--poll", "5"], ["--no-pull"]]) {
      const alone = await site.cli("push", "--yes", ...flags);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toContain("--no-pull and --poll go with --watch (or use `coursesync watch`)");
    }
    expect(
      site.emulator.state.requests.filter((r) => r.method !== "GET" && !r.path.endsWith("/login")),
    ).toEqual([]);
  });

  it("lists --no-pull and --poll in its help, refuses a poll of no seconds, and prints pulled changes with --json", async () => {
    const site = await pulledSite(start, webAndGoSite());
    const help = await site.cli("watch", "--help");
    expect(help.stdout).toMatch(/--no-pull +only publish: do not bring the site's edits into the/);
    expect(help.stdout).toMatch(/--poll <seconds> +how often to look for the site's edits/);
    const bad = await site.cli("watch", "--poll", "0");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--poll must be a number of seconds from 1 to 3600");
    const watch = await startWatch(site.root, site.env, ["--json", "--poll", "30"], { pull: true });
    expect(pollWait(watch.timers)).toBe(30_000);
    site.emulator.state.edit("chapters", 2, { content: "<p>tags, from the site</p>" });
    await poll(watch.timers);
    const pulled = watch
      .output()
      .split("\n")
      .filter((line) => line.includes('"pulled"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(pulled).toEqual([
      expect.objectContaining({
        type: "pulled",
        merged: false,
        change: expect.objectContaining({ kind: "chapter", id: 2, path: TAGS, outcome: "updated" }),
      }),
    ]);
    expect(await watch.stop()).toBe(130);
  });
});
