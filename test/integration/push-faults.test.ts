import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { eventually, ok, pulledSite, recordPatches } from "../helpers/site.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";
import { fakeTime } from "../helpers/time.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** The next PATCH of chapter `id` is refused with a 400. */
function refuseNextPatch(emulator: TestEmulator, id: number): void {
  emulator.faults.update({
    failNext: 1,
    failStatus: 400,
    match: { method: "PATCH", path: `/api/v1/chapters/${id}` },
  });
}

/** A pulled tree: course "Web" (1) with chapters One, Two, Three (1-3), course "Go" (2) with Tour (4). */
async function setup(options: EmulatorOptions = {}) {
  const clock = manualClock();
  const site = await pulledSite(start, {
    options: { admin: true, now: clock.now, ...options },
    courses: [{ title: "Web", status: 1 }, { title: "Go" }],
    chapters: [
      { course_id: 1, title: "One", ordinal: 1, content: "<p>One</p>" },
      { course_id: 1, title: "Two", ordinal: 2, content: "<p>Two</p>" },
      { course_id: 1, title: "Three", ordinal: 3, content: "<p>Three</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>Tour</p>" },
    ],
  });
  const retitle = (rel: string, from: string, to: string) =>
    site.replace(rel, `title: ${from}\n`, `title: ${to}\n`);
  // Retries wait on a fake time: backoff and Retry-After are recorded, not slept.
  const time = fakeTime();
  const cli = (...args: string[]) =>
    runCli(args, { cwd: site.root, env: site.env, sleep: time.sleep, now: time.now });
  return { ...site, cli, clock, time, retitle };
}

const ONE = "courses/web/01-one.md";
const TWO = "courses/web/02-two.md";
const THREE = "courses/web/03-three.md";

const newChapter = (title: string, ordinal: number) =>
  `---\ntitle: ${title}\nordinal: ${ordinal}\nformat: html\n---\n<p>${title}</p>\n`;

describe("creates whose answer is lost are looked up, never sent blind", () => {
  it("adopts a course whose POST was applied but whose answer was lost, and its chapter follows", async () => {
    const s = await setup();
    await s.write("courses/rust/course.yaml", "title: Rust\n");
    await s.write("courses/rust/01-ownership.md", newChapter("Ownership", 1));
    s.emulator.faults.update({ loseNextWrites: 1, match: { method: "POST", path: "/api/v1/courses" } });

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    const rust = s.emulator.state.dump().courses.filter((c) => c.title === "Rust");
    expect(rust).toHaveLength(1);
    expect(s.log().filter((line) => line.startsWith("POST /api/v1/courses"))).toEqual([
      "POST /api/v1/courses lost-write",
    ]);
    // Looked up by listing the courses, then the chapter was created in the adopted course.
    expect(s.log()).toContain("GET /api/v1/courses 200");
    const ownership = s.emulator.state.dump().chapters.find((c) => c.title === "Ownership")!;
    expect(ownership.course_id).toBe(rust[0]!.id);
    expect(await s.read("courses/rust/course.yaml")).toMatch(new RegExp(`^id: ${rust[0]!.id}\\n`));
    expect(await s.read("courses/rust/01-ownership.md")).toContain(`\nid: ${ownership.id}\n`);

    s.emulator.state.clearRequests();
    const again = await s.cli("push", "--yes");
    expect(again.stdout).toContain("Nothing to push");
    expect(s.emulator.state.requests).toEqual([]);
    expect(s.emulator.state.dump().courses).toHaveLength(3);
  });

  it("adopts a chapter whose answer was lost (faults set over the admin API)", async () => {
    const s = await setup();
    await s.write("courses/go/02-slices.md", newChapter("Slices", 2));
    await s.write("courses/go/03-maps.md", newChapter("Maps", 3));
    const faults = await s.emulator.admin("POST", "/faults", {
      loseNextWrites: 1,
      match: { method: "POST", path: "/api/v1/chapters" },
    });
    expect(faults.status).toBe(200);

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Pushed: 2 created.");
    const titles = s.emulator.state.dump().chapters.map((c) => c.title);
    expect(titles.filter((t) => t === "Slices")).toHaveLength(1);
    expect(titles.filter((t) => t === "Maps")).toHaveLength(1);
    expect(s.writes()).toEqual(["POST /api/v1/chapters", "POST /api/v1/chapters"]);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("a twin file's create whose answer was lost adopts its own record, not the one its twin just made", async () => {
    // Two new files alike in every field the site stores: the second POST's answer is lost,
    // and the look-up must not take the record this run made for the first.
    let posts = 0;
    const s = await setup({
      latencySleep: async (_ms, _signal, request) => {
        if (request.method === "POST" && request.path === "/api/v1/chapters" && ++posts === 2)
          s.emulator.faults.update({
            loseNextWrites: 1,
            match: { method: "POST", path: "/api/v1/chapters" },
          });
      },
    });
    await s.write("courses/go/02-slices.md", newChapter("Slices", 2));
    await s.write("courses/go/02-slices-copy.md", newChapter("Slices", 2));
    s.emulator.faults.update({ latencyMs: 1 });
    s.emulator.state.clearRequests();

    const result = await s.cli("push", "--yes");
    s.emulator.faults.update({ latencyMs: 0 });
    expect(result.code).toBe(0);
    expect(s.log().filter((line) => line.startsWith("POST /api/v1/chapters"))).toEqual([
      "POST /api/v1/chapters 201",
      "POST /api/v1/chapters lost-write",
    ]);
    const made = s.emulator.state.dump().chapters.filter((c) => c.title === "Slices");
    expect(made).toHaveLength(2);
    const ids = await Promise.all(
      ["courses/go/02-slices.md", "courses/go/02-slices-copy.md"].map(
        async (file) => /\nid: (\d+)\n/.exec(await s.read(file))?.[1],
      ),
    );
    expect(ids.map(Number).sort()).toEqual(made.map((c) => c.id).sort());
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("after a crash between a POST and its record, the rerun adopts what the site made", async () => {
    const s = await setup();
    await s.write("courses/go/02-slices.md", newChapter("Slices", 2));
    // The run that crashed: its intent is in the journal, and the site applied the POST.
    const made = ok(
      s.emulator.state.createChapter({
        chapter: { course_id: 2, title: "Slices", ordinal: 2, content: "<p>Slices</p>" },
      }),
    );
    await writeFile(
      s.file(".coursesync/production.journal"),
      `${JSON.stringify({
        t: "intent",
        op: "create",
        kind: "chapter",
        key: "chapter:new:courses/go/02-slices.md",
        path: "courses/go/02-slices.md",
        fields: { title: "Slices", ordinal: 2, content: "<p>Slices</p>", course_id: 2 },
      })}\n`,
    );
    s.emulator.state.clearRequests();

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(s.writes()).toEqual([]);
    expect(s.emulator.state.dump().chapters.filter((c) => c.title === "Slices")).toHaveLength(1);
    expect(await s.read("courses/go/02-slices.md")).toBe(
      `---\nid: ${made.id}\ntitle: Slices\nordinal: 2\nformat: html\n---\n<p>Slices</p>\n`,
    );
    expect(Object.keys(await readTree(s.file(".coursesync")))).not.toContain("production.journal");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("a create whose answer was lost and could not be looked up is adopted after a later edit, not sent twice", async () => {
    const s = await setup();
    const file = "courses/go/02-slices.md";
    await s.write(file, newChapter("Slices", 2));
    // The POST is applied and its answer lost; the listing that would find it fails too.
    s.emulator.faults.update({ loseNextWrites: 1, match: { method: "POST", path: "/api/v1/chapters" } });
    s.emulator.faults.update({ failNext: 20, match: { method: "GET", path: "/api/v1/chapters" } });
    expect((await s.cli("push", "--yes")).code).toBe(1);
    s.emulator.faults.update({ failNext: 0 });
    // The author goes on editing, then pushes again.
    await s.replace(file, "<p>Slices</p>", "<p>Slices, more</p>");
    const again = await s.cli("push", "--yes");
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const slices = s.emulator.state.dump().chapters.filter((c) => c.title === "Slices");
    expect(slices).toHaveLength(1);
    expect(slices[0]!.content).toBe("<p>Slices, more</p>");
    expect(await s.read(file)).toContain(`\nid: ${slices[0]!.id}\n`);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("a PATCH whose answer was lost is sent again: it changes nothing twice", async () => {
    const s = await setup();
    const patches = recordPatches(s.emulator);
    await s.retitle(ONE, "One", "One!");
    s.emulator.faults.update({ loseNextWrites: 1, match: { method: "PATCH" } });
    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(s.log().filter((l) => l.startsWith("PATCH"))).toEqual([
      "PATCH /api/v1/chapters/1 lost-write",
      "PATCH /api/v1/chapters/1 200",
    ]);
    expect(patches.map((p) => p.body)).toEqual([
      { chapter: { title: "One!" } },
      { chapter: { title: "One!" } },
    ]);
    expect(s.emulator.state.get("chapters", 1)?.title).toBe("One!");
  });

  it("with connections reset at random (GET, PATCH, POST), the push gets there without a duplicate", async () => {
    const s = await setup({ randomSeed: 2 });
    await s.retitle(ONE, "One", "One (reset-proof)");
    await s.retitle(TWO, "Two", "Two (reset-proof)");
    await s.retitle("courses/go/01-tour.md", "Tour", "Tour (reset-proof)");
    await s.write("courses/go/02-slices.md", newChapter("Slices", 2));
    s.emulator.faults.update({ resetRate: 0.3 });

    // Seeded (a seed whose draws reset a GET and the create, so the create is looked up by
    // listing before it is sent again); later draws depend on how many list pages were in
    // flight, so the test allows the rerun a user would make.
    let result = await s.cli("push", "--yes");
    for (let runs = 1; result.code !== 0 && runs < 3; runs++) result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    const resets = s.emulator.state.requests.filter((r) => r.fault === "reset").map((r) => r.method);
    expect(resets).toEqual(expect.arrayContaining(["GET", "POST"]));
    const creates = s.emulator.state.requests.filter(
      (r) => r.method === "POST" && r.path === "/api/v1/chapters",
    );
    expect(creates.filter((r) => r.status === 201)).toHaveLength(1);
    s.emulator.faults.update({ resetRate: 0 });

    const chapters = s.emulator.state.dump().chapters;
    expect(chapters.filter((c) => c.title === "Slices")).toHaveLength(1);
    expect(chapters.map((c) => c.title).sort()).toEqual(
      ["One (reset-proof)", "Slices", "Three", "Tour (reset-proof)", "Two (reset-proof)"].sort(),
    );
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
    s.emulator.state.clearRequests();
    expect((await s.cli("push", "--yes")).stdout).toContain("Nothing to push");
  });
});

describe("failures while writing", () => {
  it("logs in again when the token expires between the re-read and the writes", async () => {
    const s = await setup();
    await s.retitle(ONE, "One", "One, again");
    // Another session ends every token right after the push re-read the record.
    const state = s.emulator.state;
    const get = state.get.bind(state);
    state.get = ((resource: "courses" | "chapters", id: number) => {
      const record = get(resource, id);
      state.expireTokens();
      return record;
    }) as typeof state.get;

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    // The plan's read, then the read just before the write: each ends every token.
    expect(s.log()).toEqual([
      "POST /api/login 200",
      "GET /api/v1/chapters/1 200",
      "GET /api/v1/chapters/1 401",
      "POST /api/login 200",
      "GET /api/v1/chapters/1 200",
      "PATCH /api/v1/chapters/1 401",
      "POST /api/login 200",
      "PATCH /api/v1/chapters/1 200",
    ]);
    expect(get("chapters", 1)?.title).toBe("One, again");
  });

  it("logs in again when a stored token outlives its TTL while the push waits for a yes", async () => {
    const s = await setup({ tokenTtlMs: 60_000 });
    expect((await s.cli("login")).code).toBe(0);
    await s.retitle(TWO, "Two", "Two, later");
    s.emulator.state.clearRequests();
    const result = await runCli(["push"], {
      cwd: s.root,
      env: s.env,
      tty: true,
      prompts: {
        confirm: async () => {
          s.clock.advance(61_000);
          return true;
        },
      },
    });
    expect(result.code).toBe(0);
    // The plan is checked before the question, while the token is still good.
    expect(s.log()).toEqual([
      "GET /api/v1/chapters/2 200",
      "GET /api/v1/chapters/2 401",
      "POST /api/login 200",
      "GET /api/v1/chapters/2 200",
      "PATCH /api/v1/chapters/2 200",
    ]);
  });

  it("shows the site's field messages next to the file on a 422, and reports the rest as not applied", async () => {
    const s = await setup();
    // What only the site can know: another user deleted course Go since the pull, so a new
    // chapter filed in its folder names a course the site no longer has.
    expect(s.emulator.state.remove("courses", 2)).toBe(true);
    s.emulator.state.clearRequests();
    await s.write("courses/go/02-big.md", newChapter("Big", 5));
    await s.write("courses/go/03-more.md", newChapter("More", 6));
    await s.write("courses/web/04-four.md", newChapter("Four", 4));
    await s.retitle(THREE, "Three", "Three, renamed");

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "x failed   courses/go/02-big.md  (new chapter; POST /api/v1/chapters failed: 422 Unprocessable Entity",
    );
    expect(result.stdout).toContain("courses/go/02-big.md: course_id must exist");
    // Another course's creates run side by side with Go's: the one already sent finishes and
    // is reported; nothing starts after the failure (Go's next create, the update).
    expect(result.stdout).toMatch(/\+ created {2}courses\/web\/04-four\.md {2}\(chapter \d+\)/);
    expect(result.stdout).toMatch(/\? skipped {2}courses\/go\/03-more\.md {2}\(new chapter; not applied/);
    expect(result.stdout).toMatch(
      /\? skipped {2}courses\/web\/03-three\.md {2}\(chapter 3; not applied: an earlier write failed\)/,
    );
    expect(s.writes()).toEqual(["POST /api/v1/chapters", "POST /api/v1/chapters"]);
    expect(s.emulator.state.get("chapters", 3)?.title).toBe("Three");

    // The new chapter dropped by hand, the next thing the site refuses is an update, in its own
    // words: Three moved into Go's folder.
    await rm(s.file("courses/go/02-big.md"));
    await rm(s.file("courses/go/03-more.md"));
    await rename(s.file(THREE), s.file("courses/go/03-three.md"));
    const second = await s.cli("push", "--yes");
    expect(second.code).toBe(1);
    expect(second.stdout).toContain("courses/go/03-three.md: course_id must exist");
    const json = await s.cli("push", "--yes", "--json");
    const doc = JSON.parse(json.stdout) as { errors: Array<{ path: string; reason: string }> };
    expect(doc.errors).toEqual([
      expect.objectContaining({
        path: "courses/go/03-three.md",
        reason: expect.stringContaining("course_id must exist"),
      }),
    ]);
  });

  it("with one write at a time, one that fails leaves the rest not applied (exit 1); a rerun finishes", async () => {
    const s = await setup();
    await s.replace("coursesync.yaml", "concurrency: 4", "concurrency: 1");
    const patches = recordPatches(s.emulator);
    await s.retitle(ONE, "One", "One v2");
    await s.retitle(TWO, "Two", "Two v2");
    await s.retitle(THREE, "Three", "Three v2");
    refuseNextPatch(s.emulator, 2);

    const failed = await s.cli("push", "--yes", "--json");
    expect(failed.code).toBe(1);
    const doc = JSON.parse(failed.stdout) as {
      changes: Array<{ id: number; outcome: string; reason?: string }>;
    };
    expect(doc.changes.map((c) => [c.id, c.outcome])).toEqual([
      [1, "updated"],
      [2, "failed"],
      [3, "skipped"],
    ]);
    expect(doc.changes[1]!.reason).toContain("PATCH /api/v1/chapters/2 failed: 400");
    expect(s.emulator.state.get("chapters", 3)?.title).toBe("Three");
    const status = JSON.parse((await s.cli("status", "--json")).stdout) as { entries: Array<{ id: number }> };
    expect(status.entries.map((e) => e.id)).toEqual([2, 3]);

    patches.length = 0;
    const rerun = await s.cli("push", "--yes");
    expect(rerun.code).toBe(0);
    expect(patches).toEqual([
      { call: "chapters/2", body: { chapter: { title: "Two v2" } } },
      { call: "chapters/3", body: { chapter: { title: "Three v2" } } },
    ]);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("creates chapters side by side across courses, one at a time within a course, in ordinal order", async () => {
    // Each chapter POST is held at the site until two are waiting: answered only if the two
    // courses' creates are in flight together. A site that places a new chapter after the last
    // one of its course keeps the files' order only if a course's creates arrive in that order.
    const held: Array<() => void> = [];
    const s = await setup({
      normalise: { ordinals: "place" },
      latencySleep: (_ms, _signal, request) =>
        request.method === "POST" && request.path === "/api/v1/chapters"
          ? new Promise<void>((resolve) => held.push(resolve))
          : Promise.resolve(),
    });
    for (const [file, title, ordinal] of [
      ["courses/web/04-four.md", "Four", 4],
      ["courses/web/05-five.md", "Five", 5],
      ["courses/web/06-six.md", "Six", 6],
      ["courses/go/02-maps.md", "Maps", 2],
      ["courses/go/03-slices.md", "Slices", 3],
      ["courses/go/04-channels.md", "Channels", 4],
    ] as const) {
      await s.write(file, newChapter(title, ordinal));
    }
    s.emulator.faults.update({ latencyMs: 1 });
    s.emulator.state.clearRequests();
    const pushing = s.cli("push", "--yes");
    for (let round = 0; round < 3; round++) {
      await eventually(() => held.length === 2);
      for (const release of held.splice(0)) release();
    }
    const result = await pushing;
    s.emulator.faults.update({ latencyMs: 0 });
    expect(result.code).toBe(0);
    expect(s.emulator.state.peakWritesInFlight).toBe(2);
    const inOrder = (courseId: number) =>
      s.emulator.state
        .dump()
        .chapters.filter((c) => c.course_id === courseId)
        .sort((a, b) => a.ordinal - b.ordinal)
        .map((c) => c.title);
    expect(inOrder(1)).toEqual(["One", "Two", "Three", "Four", "Five", "Six"]);
    expect(inOrder(2)).toEqual(["Tour", "Maps", "Slices", "Channels"]);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("sends updates side by side, reports them in plan order, and starts none after a failure", async () => {
    // Each PATCH is held at the site until the test lets them all through: the four updates
    // can only be answered if they are in flight together (concurrency 4), with no clock.
    const held: Array<() => void> = [];
    const s = await setup({
      latencySleep: (_ms, _signal, request) =>
        request.method === "PATCH" ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve(),
    });
    await s.retitle(ONE, "One", "One v2");
    await s.retitle(TWO, "Two", "Two v2");
    await s.retitle(THREE, "Three", "Three v2");
    await s.write(
      "courses/go/course.yaml",
      (await s.read("courses/go/course.yaml")).replace("title: Go", "title: Go v2"),
    );
    s.emulator.faults.update({ latencyMs: 1 });
    s.emulator.state.clearRequests();
    const pushing = s.cli("push", "--yes", "--json");
    await eventually(() => held.length === 4);
    for (const release of held.splice(0)) release();
    const together = await pushing;
    s.emulator.faults.update({ latencyMs: 0 });
    expect(together.code).toBe(0);
    const doc = JSON.parse(together.stdout) as {
      changes: Array<{ kind: string; id: number; outcome: string }>;
    };
    expect(doc.changes.map((c) => [c.kind, c.id, c.outcome])).toEqual([
      ["course", 2, "updated"],
      ["chapter", 1, "updated"],
      ["chapter", 2, "updated"],
      ["chapter", 3, "updated"],
    ]);
    expect(s.emulator.state.peakWritesInFlight).toBe(4);

    // A failure stops what has not started; what was sent with it finishes, and every change
    // reported as made is on the site, every one reported as skipped is not.
    for (const [file, from] of [
      [ONE, "One v2"],
      [TWO, "Two v2"],
      [THREE, "Three v2"],
    ] as const) {
      await s.retitle(file, from, `${from}.1`);
    }
    refuseNextPatch(s.emulator, 1);
    const failed = await s.cli("push", "--yes", "--json");
    expect(failed.code).toBe(1);
    const outcomes = (JSON.parse(failed.stdout) as { changes: Array<{ id: number; outcome: string }> })
      .changes;
    expect(outcomes.map((c) => c.id)).toEqual([1, 2, 3]);
    expect(outcomes[0]!.outcome).toBe("failed");
    const titles = new Map([
      [2, "Two v2"],
      [3, "Three v2"],
    ]);
    for (const change of outcomes.slice(1)) {
      expect(["updated", "skipped"]).toContain(change.outcome);
      const sent = `${titles.get(change.id)}${change.outcome === "updated" ? ".1" : ""}`;
      expect(s.emulator.state.get("chapters", change.id)?.title).toBe(sent);
    }
    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("retries a 5xx on a PATCH and goes on", async () => {
    const s = await setup();
    await s.retitle(ONE, "One", "One v3");
    s.emulator.faults.update({ failNext: 1, failStatus: 503, match: { method: "PATCH" } });
    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(0);
    expect(s.log().filter((l) => l.startsWith("PATCH"))).toEqual([
      "PATCH /api/v1/chapters/1 503",
      "PATCH /api/v1/chapters/1 200",
    ]);
  });
});

describe("listings that cannot be trusted", () => {
  it("a 403 on the listing a course delete needs stops the push before any write", async () => {
    const s = await setup();
    await rm(s.file("courses/go"), { recursive: true });
    s.emulator.faults.update({
      failNext: 1,
      failStatus: 403,
      match: { method: "GET", path: "/api/v1/chapters" },
    });
    const result = await s.cli("push", "--yes", "--max-delete", "2");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("GET /api/v1/chapters?page=1 failed: 403 Forbidden");
    expect(result.stderr).toContain("account owner");
    expect(s.writes()).toEqual([]);
    expect(s.emulator.state.get("courses", 2)).toBeDefined();
  });

  it("a 401 on a listing logs in again and goes on", async () => {
    const s = await setup();
    await rm(s.file("courses/go"), { recursive: true });
    s.emulator.faults.update({
      failNext: 1,
      failStatus: 401,
      match: { method: "GET", path: "/api/v1/chapters" },
    });
    const result = await s.cli("push", "--yes", "--max-delete", "2");
    expect(result.code).toBe(0);
    expect(s.log().filter((l) => l.startsWith("POST /api/login"))).toHaveLength(2);
    expect(s.writes()).toEqual(["DELETE /api/v1/chapters/4", "DELETE /api/v1/courses/2"]);
  });

  it("a listing that breaks part-way stops the push before any write", async () => {
    const s = await setup({ pageSize: 2 });
    await rm(s.file("courses/go"), { recursive: true });
    const state = s.emulator.state;
    const list = state.list.bind(state);
    state.list = ((resource: "courses" | "chapters", page: number) => {
      const result = list(resource, page);
      // Page 2 of the chapters comes back as something that is not a list.
      return resource === "chapters" && page === 2 ? { ...result, items: { broken: true } } : result;
    }) as typeof state.list;
    const result = await s.cli("push", "--yes", "--max-delete", "2");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/chapters\?page=2/);
    expect(s.writes()).toEqual([]);
  });

  it("an empty listing while the snapshot holds records deletes nothing", async () => {
    const s = await setup();
    await rm(s.file("courses/go"), { recursive: true });
    const state = s.emulator.state;
    const list = state.list.bind(state);
    state.list = ((resource: "courses" | "chapters", page: number) => {
      const result = list(resource, page);
      return resource === "chapters" ? { items: [], total: 0, pageCount: 0 } : result;
    }) as typeof state.list;
    const result = await s.cli("push", "--yes", "--max-delete", "2");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the site listed no chapters");
    expect(s.writes()).toEqual([]);
    expect(s.emulator.state.get("courses", 2)).toBeDefined();
  });
});

describe("one process at a time", () => {
  it("a second push while the first waits for its yes is refused, and the first goes on", async () => {
    const s = await setup();
    await s.write("courses/go/02-slices.md", newChapter("Slices", 2));
    let second: Awaited<ReturnType<typeof runCli>> | undefined;
    const first = await runCli(["push"], {
      cwd: s.root,
      env: s.env,
      tty: true,
      prompts: {
        confirm: async () => {
          second = await s.cli("push", "--yes");
          return true;
        },
      },
    });
    expect(second?.code).toBe(1);
    expect(second?.stderr).toMatch(/the tree is busy: coursesync push \(pid \d+/);
    expect(first.code).toBe(0);
    expect(s.writes()).toEqual(["POST /api/v1/chapters"]);
    expect(s.emulator.state.dump().chapters.filter((c) => c.title === "Slices")).toHaveLength(1);
  });
});

describe("a save while its write is under way", () => {
  /** Run `during` at the moment the site applies the next write of this kind. */
  function onApply(
    s: Awaited<ReturnType<typeof setup>>,
    method: "updateChapter" | "createCourse" | "createChapter",
    during: () => void,
  ) {
    const state = s.emulator.state;
    const real = state[method].bind(state) as (...args: unknown[]) => unknown;
    (state as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      (state as unknown as Record<string, unknown>)[method] = real;
      const out = real(...args);
      during();
      return out;
    };
  }

  it("an update: the new save is not taken as synced, and the next push sends it", async () => {
    const s = await setup();
    await s.retitle(ONE, "One", "first save");
    onApply(s, "updateChapter", () =>
      writeFileSync(s.file(ONE), readFileSync(s.file(ONE), "utf8").replace("first save", "second save")),
    );
    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(s.emulator.state.get("chapters", 1)?.title).toBe("first save");
    expect(await s.read(ONE)).toContain("title: second save\n");
    const pending = await s.cli("status", "--exit-code");
    expect(pending.code, pending.stdout + pending.stderr).toBe(1);
    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(s.emulator.state.get("chapters", 1)?.title).toBe("second save");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("a create: the new save keeps its bytes and gains the id; the next push sends it", async () => {
    const s = await setup();
    await s.write("courses/rust/course.yaml", "title: Rust\n");
    onApply(s, "createCourse", () =>
      writeFileSync(s.file("courses/rust/course.yaml"), "title: Rust\nexcerpt: Memory safety\n"),
    );
    expect((await s.cli("push", "--yes")).code).toBe(0);
    const rust = s.emulator.state.dump().courses.find((c) => c.title === "Rust")!;
    // The new save's excerpt is kept; the fields the site filled in come in beside it.
    const yaml = await s.read("courses/rust/course.yaml");
    expect(yaml).toMatch(new RegExp(`^id: ${rust.id}\n`));
    expect(yaml).toContain("excerpt: Memory safety\n");
    expect(yaml).toContain("free: false\n");
    expect(rust.excerpt).toBe("");
    const second = await s.cli("push", "--yes");
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(s.emulator.state.get("courses", rust.id)?.excerpt).toBe("Memory safety");
    expect(s.emulator.state.dump().courses.filter((c) => c.title === "Rust")).toHaveLength(1);
  });

  it("a create whose file an editor deletes and writes again: the file still gets the id, no duplicate", async () => {
    const s = await setup();
    const file = "courses/go/02-slices.md";
    const text = newChapter("Slices", 2);
    await s.write(file, text);
    onApply(s, "createChapter", () => rmSync(s.file(file)));
    // The editor writes the file again while push waits for it to come back.
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      writeFileSync(s.file(file), text);
    };
    const pushed = await runCli(["push", "--yes"], { cwd: s.root, env: s.env, sleep, now: s.time.now });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(waits).toEqual([100]);
    const slices = s.emulator.state.dump().chapters.filter((c) => c.title === "Slices");
    expect(slices).toHaveLength(1);
    expect(await s.read(file)).toContain(`\nid: ${slices[0]!.id}\n`);
    s.emulator.state.clearRequests();
    expect((await s.cli("push", "--yes")).stdout).toContain("Nothing to push");
    expect(s.writes()).toEqual([]);
  });
});
