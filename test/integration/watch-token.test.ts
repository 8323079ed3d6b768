/**
 * watch outliving its token: the emulator's tokens expire by its clock, which the test moves;
 * watch's retries run on timers the test fires. Nothing waits on the wall clock.
 */
import { appendFile, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CredentialStore } from "../../src/config/credentials.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { eventually, pulledSite, writeRequests } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";
import { poll, pollWait, quietTimeOver, useWatches } from "../helpers/watch.js";

const start = useEmulators();
afterEach(cleanupTestdirs);
const startWatch = useWatches();

/** How long a token lives on the emulated site. */
const TTL = 3_600_000;

/**
 * A pulled tree of course "Course" with Chapter 1 and 2, on a site whose tokens live an hour of
 * its clock, and a token stored by `coursesync login`. `stored` is the environment of a person
 * who logged in once (no e-mail or password set); `env` has them too.
 */
async function setup() {
  const clock = manualClock();
  const site = await pulledSite(start, {
    body: "html",
    options: { now: clock.now, tokenTtlMs: TTL },
    courses: [{ title: "Course" }],
    chapters: [1, 2].map((i) => ({
      course_id: 1,
      title: `Chapter ${i}`,
      ordinal: i,
      content: `<p>${i}</p>`,
    })),
  });
  const { root, env } = site;
  const store = new CredentialStore(path.join(env.COURSESYNC_CONFIG_DIR));
  /** `coursesync login`, as the person runs it in another terminal: a new token in the store. */
  const login = async () => {
    const done = await runCli(["login"], { cwd: root, env });
    expect(done.code, done.stderr).toBe(0);
    return (await store.get(site.emulator.baseUrl))?.token;
  };
  const first = await login();
  expect(first).toBeDefined();
  site.emulator.state.clearRequests();
  const stored = { COURSESYNC_CONFIG_DIR: env.COURSESYNC_CONFIG_DIR };
  const chapter = (n: number) => path.join(root, "courses", "course", `0${n}-chapter-${n}.md`);
  return { ...site, clock, store, login, first, stored, chapter };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/**
 * Start watch with `env`, let the token expire, run `between` (if any), then save: append each
 * text to its chapter, and end the quiet time.
 */
async function saveAfterExpiry(
  s: Setup,
  env: Record<string, string>,
  saves: Array<[number, string]>,
  between?: () => Promise<unknown>,
) {
  const watch = await startWatch(s.root, env, [], { apiRetries: 0 });
  s.clock.advance(TTL + 1);
  await between?.();
  for (const [chapter, text] of saves) await appendFile(s.chapter(chapter), text);
  await quietTimeOver(watch.timers);
  return watch;
}

/** The answers the site gave to the API (not the logins), as `METHOD path status`. */
function answered(emulator: TestEmulator): string[] {
  return emulator.state.requests
    .filter((r) => r.path !== "/api/login")
    .map((r) => `${r.method} ${r.path.replace(/\?.*$/, "")} ${r.status}`);
}

function logins(emulator: TestEmulator): number {
  return emulator.state.requests.filter((r) => r.path === "/api/login").length;
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe("watch when the stored token expires", () => {
  it("says once what to run, keeps the save, and sends it with the token `coursesync login` stores", async () => {
    const s = await setup();
    const watch = await saveAfterExpiry(s, s.stored, [[1, "<p>offline edit</p>\n"]]);
    await eventually(() => watch.output().includes("signed out"));
    expect(watch.output()).toContain(
      "refused the stored token: run `coursesync login` to log in again. Watching goes on: saves wait, and are sent once a token works",
    );
    expect(watch.timers.pending()).toEqual([1000]);
    // Each later try reads the store again, finds the same dead token, and says nothing more.
    for (const wait of [1000, 2000, 4000]) {
      expect(watch.timers.fire(wait)).toBe(1);
      await eventually(() => watch.timers.pending().length === 1 && watch.timers.pending()[0] === wait * 2);
    }
    expect(count(watch.output(), "signed out")).toBe(1);
    expect(watch.output()).not.toContain("waiting");
    expect(writeRequests(s.emulator)).toEqual([]);
    expect(logins(s.emulator)).toBe(0);

    // In another terminal: `coursesync login`. The next try takes the new token up.
    const renewed = await s.login();
    expect(renewed).not.toBe(s.first);
    s.emulator.state.clearRequests();
    watch.timers.fire(8000);
    await eventually(() => writeRequests(s.emulator).length === 1);
    expect(writeRequests(s.emulator).map((r) => `${r.method} ${r.path}`)).toEqual([
      "PATCH /api/v1/chapters/1",
    ]);
    expect(s.emulator.state.get("chapters", 1)?.content).toContain("<p>offline edit</p>");
    await eventually(() => watch.output().includes("signed in again"));
    // One request with the dead token, then the stored one: no login of watch's own.
    expect(answered(s.emulator).filter((line) => line.endsWith(" 401"))).toHaveLength(1);
    expect(logins(s.emulator)).toBe(0);
    expect(await watch.stop()).toBe(130);
    expect(watch.output()).toMatch(/stopped; the snapshot is saved\n$/);
    expect(watch.output()).not.toContain(String(s.first));
  });

  it("takes up a token renewed by another process before it says anything", async () => {
    const s = await setup();
    const watch = await saveAfterExpiry(s, s.stored, [[2, "<p>edit</p>\n"]], async () => {
      await s.login();
      s.emulator.state.clearRequests();
    });
    await eventually(() => writeRequests(s.emulator).length === 1);
    expect(s.emulator.state.get("chapters", 2)?.content).toContain("<p>edit</p>");
    expect(answered(s.emulator).filter((line) => line.endsWith(" 401"))).toHaveLength(1);
    expect(logins(s.emulator)).toBe(0);
    expect(await watch.stop()).toBe(130);
    expect(watch.output()).not.toMatch(/signed out|waiting/);
  });

  it("logs in again with COURSESYNC_EMAIL and COURSESYNC_PASSWORD, and stores the new token", async () => {
    const s = await setup();
    const watch = await saveAfterExpiry(s, s.env, [[1, "<p>edit</p>\n"]]);
    await eventually(() => writeRequests(s.emulator).length === 1);
    expect(s.emulator.state.get("chapters", 1)?.content).toContain("<p>edit</p>");
    expect(logins(s.emulator)).toBe(1);
    const now = (await s.store.get(s.emulator.baseUrl))?.token;
    expect(now).toBeDefined();
    expect(now).not.toBe(s.first);
    expect(s.emulator.state.checkToken(String(now))).toBe("ok");
    expect(await watch.stop()).toBe(130);
    expect(watch.output()).not.toMatch(/signed out|waiting/);
  });

  it("says once when the password is refused too, and recovers once a token is stored", async () => {
    const s = await setup();
    const wrong = { ...s.env, COURSESYNC_PASSWORD: "not the password" };
    const watch = await saveAfterExpiry(s, wrong, [[1, "<p>edit</p>\n"]]);
    await eventually(() => watch.output().includes("signed out"));
    expect(watch.output()).toContain(
      "Check the e-mail and password (COURSESYNC_EMAIL and COURSESYNC_PASSWORD)",
    );
    watch.timers.fire(1000);
    await eventually(() => watch.timers.pending()[0] === 2000);
    expect(count(watch.output(), "signed out")).toBe(1);
    expect(watch.output()).not.toContain("not the password");
    await s.login();
    watch.timers.fire(2000);
    await eventually(() => writeRequests(s.emulator).length === 1);
    await eventually(() => watch.output().includes("signed in again"));
    expect(await watch.stop()).toBe(130);
  });
});

describe("watch polling the site when the stored token expires", () => {
  it("says once what to run, and brings the site's edits in once `coursesync login` stored a token", async () => {
    const s = await setup();
    const watch = await startWatch(s.root, s.stored, [], { apiRetries: 0, pull: true });
    await eventually(() => pollWait(watch.timers) !== undefined);
    s.clock.advance(TTL + 1);
    s.emulator.state.edit("chapters", 2, { content: "<p>2, from the site</p>" });
    await poll(watch.timers);
    await poll(watch.timers);
    expect(count(watch.output(), "signed out")).toBe(1);
    expect(watch.output()).toContain("refused the stored token: run `coursesync login`");
    expect(await readFile(s.chapter(2), "utf8")).not.toContain("from the site");
    await s.login();
    s.emulator.state.clearRequests();
    await poll(watch.timers);
    await eventually(async () => (await readFile(s.chapter(2), "utf8")).includes("2, from the site"));
    expect(watch.output()).toContain("signed in again");
    expect(logins(s.emulator)).toBe(0);
    expect(await watch.stop()).toBe(130);
    expect(writeRequests(s.emulator)).toEqual([]);
  });
});

describe("watch's stop line", () => {
  it("names every edit not sent, with the count, and what to run first when signed out", async () => {
    const s = await setup();
    const watch = await saveAfterExpiry(s, s.stored, [
      [1, "<p>one</p>\n"],
      [2, "<p>two</p>\n"],
    ]);
    await eventually(() => watch.output().includes("signed out"));
    const bad = path.join(s.root, "courses", "course", "03-bad.md");
    await writeFile(bad, "---\ntitle: a: b\nordinal: 3\n---\n<p>x</p>\n");
    expect(await watch.stop()).toBe(130);
    expect(writeRequests(s.emulator)).toEqual([]);
    expect(watch.output()).toMatch(
      /stopped; the snapshot is saved; 3 edits not sent \(run `coursesync login`, then `coursesync push` sends them\): courses\/course\/01-chapter-1\.md, courses\/course\/02-chapter-2\.md, courses\/course\/03-bad\.md \(invalid: fix it first\)\n$/,
    );
    // They are there for the push it names.
    expect(await readFile(s.chapter(1), "utf8")).toContain("<p>one</p>");
    await rm(bad);
    await s.login();
    const pushed = await runCli(["push", "--yes"], { cwd: s.root, env: s.stored });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(s.emulator.state.get("chapters", 1)?.content).toContain("<p>one</p>");
    expect(s.emulator.state.get("chapters", 2)?.content).toContain("<p>two</p>");
  });
});
