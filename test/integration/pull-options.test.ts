import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { addChapter, addCourse, cliEnv, edit, LOGIN, ok, writeConfig } from "../helpers/site.js";
import { snapshotIn } from "../helpers/snapshot.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const PASSWORD = "pw-Hunter2-s3cret";

/** An emulator (password PASSWORD), a tree for it, and a CLI bound to both. */
async function setup(options: EmulatorOptions = {}) {
  const emulator = await start({
    seedDir: null,
    admin: true,
    password: PASSWORD,
    now: manualClock().now,
    ...options,
  });
  const dir = await testdir();
  const env = cliEnv(dir, { ...LOGIN, COURSESYNC_PASSWORD: PASSWORD });
  const root = path.join(dir, "tree");
  await writeConfig(root, emulator.baseUrl);
  const pull = (...args: string[]) => runCli(["pull", ...args], { cwd: root, env });
  return { emulator, dir, env, root, pull };
}

/** Two courses of two chapters each. */
function seed(emulator: TestEmulator) {
  const course = (title: string) => addCourse(emulator, { title });
  const chapter = (courseId: number, title: string) =>
    addChapter(emulator, { course_id: courseId, title, content: `<p>${title}</p>` });
  const alpha = course("Alpha");
  const beta = course("Beta");
  return {
    alpha,
    beta,
    a1: chapter(alpha, "First"),
    a2: chapter(alpha, "Second"),
    b1: chapter(beta, "First"),
    b2: chapter(beta, "Second"),
  };
}

describe("pull and the heap", () => {
  it("asks the entry point to bound the heap's growth before it lists and once listed; status and check do not", async () => {
    const { emulator, env, root } = await setup();
    seed(emulator);
    const asked: string[] = [];
    const run = (args: string[]) =>
      runCli(args, {
        cwd: root,
        env,
        boundHeap: (stage) =>
          asked.push(`${args[0]} ${stage} after ${emulator.state.requests.length} requests`),
      });
    expect((await run(["pull"])).code).toBe(0);
    // A first pull reads the lists and nothing more: the second call comes once they are whole.
    const listed = emulator.state.requests.length;
    expect(listed).toBeGreaterThan(0);
    expect(asked).toEqual(["pull listing after 0 requests", `pull writing after ${listed} requests`]);
    expect((await run(["status"])).code).toBe(0);
    expect((await run(["check"])).code).toBe(0);
    expect(asked).toHaveLength(2);
  });
});

describe("pull against a site that answers Not Found past the last page", () => {
  it("reads lists that end on a full page completely, and pulls again without a change", async () => {
    // Two courses and four chapters on pages of two: every list ends on a full page.
    const { emulator, pull, root } = await setup({ pageSize: 2, pastLastPage: "404" });
    seed(emulator);
    const first = await pull();
    expect(first.code, first.stderr).toBe(0);
    expect(Object.keys(await readTree(path.join(root, "courses")))).toHaveLength(6);
    const again = await pull();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("no changes");
    // The list pages (1 of courses, 2 of chapters), at most one look-ahead window (4) each, and
    // the Not Found page asked once more to tell the end from a hole.
    const requests = Number(/in (\d+) requests/.exec(again.stdout)?.[1]);
    expect(requests).toBeGreaterThanOrEqual(5);
    expect(requests).toBeLessThanOrEqual(3 + 2 * (4 + 1));
  });
});

describe("pull [paths...]", () => {
  it("limits the pull to the course folders given", async () => {
    const { emulator, root, env, pull } = await setup();
    const ids = seed(emulator);
    expect((await pull()).code).toBe(0);
    const before = await readTree(root, [".coursesync/cache"]);
    edit(emulator, "chapters", ids.a1, { title: "First, renamed" });
    edit(emulator, "chapters", ids.b1, { content: "<p>beta changed</p>" });
    edit(emulator, "courses", ids.beta, { excerpt: "beta excerpt" });
    ok(emulator.state.createCourse({ course: { title: "Gamma" } }));

    const scoped = await runCli(["pull", "beta"], { cwd: path.join(root, "courses"), env });
    expect(scoped.code).toBe(0);
    const after = await readTree(root, [".coursesync/cache"]);
    const changed = Object.keys({ ...before, ...after }).filter((f) => before[f] !== after[f]);
    expect(changed.sort()).toEqual([
      `.coursesync/production/courses/${ids.beta}.json`,
      "courses/beta/01-first.md",
      "courses/beta/course.yaml",
    ]);
    expect(after["courses/beta/01-first.md"]).toContain("<p>beta changed</p>");
    const snapshot = snapshotIn(after);
    expect(snapshot.chapters[ids.a1]!.record.title).toBe("First");

    // The rest of the site comes with a later pull.
    const full = await pull();
    expect(full.code).toBe(0);
    expect(full.stdout).toContain("courses/alpha/01-first-renamed.md");
    expect(full.stdout).toContain("+ created  courses/gamma");
  });

  it("refuses a path outside the tree (exit 2)", async () => {
    const { pull } = await setup();
    const result = await pull("../elsewhere");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/outside the tree/);
  });
});

describe("pull --dry-run", () => {
  it("writes nothing anywhere on a fresh tree and prints what it would create", async () => {
    const { emulator, root, pull } = await setup();
    seed(emulator);
    const before = await readTree(root);
    const result = await pull("--dry-run");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("+ created  courses/alpha/01-first.md");
    expect(result.stdout).toMatch(/^Dry run: pulled 2 courses and 4 chapters .* would write 6 files$/m);
    expect(await readTree(root)).toEqual(before);
    expect(existsSync(path.join(root, ".coursesync"))).toBe(false);
    expect(existsSync(path.join(root, "courses"))).toBe(false);
    expect(emulator.state.requests.every((r) => r.method === "GET" || r.path === "/api/login")).toBe(true);
  });

  it("writes no file, snapshot or cache on a synced tree with changes on both sides", async () => {
    const { emulator, root, pull } = await setup();
    const ids = seed(emulator);
    expect((await pull()).code).toBe(0);
    const first = path.join(root, "courses/alpha/02-second.md");
    await writeFile(first, (await readFile(first, "utf8")).replace("title: Second", "title: Mine"));
    edit(emulator, "chapters", ids.a2, { title: "Theirs" });
    edit(emulator, "chapters", ids.b1, { content: "<p>new body</p>" });
    emulator.state.remove("chapters", ids.b2);
    const before = await readTree(root);

    const result = await pull("--dry-run");
    // A dry run exits as the pull would: 3 for the conflict.
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/~ updated +courses\/beta\/01-first\.md/);
    expect(result.stdout).toMatch(/- deleted +courses\/beta\/02-second\.md/);
    expect(result.stdout).toMatch(/! conflict +courses\/alpha\/02-second\.md/);
    expect(result.stdout).toMatch(/^Dry run: .* would write 3 files$/m);
    expect(await readTree(root)).toEqual(before);

    const json = await pull("--dry-run", "--json");
    const summary = JSON.parse(json.stdout) as { dry_run: boolean; counts: Record<string, number> };
    expect(summary.dry_run).toBe(true);
    // 2 courses and 3 chapters listed; the conflict and the update are not unchanged.
    expect(summary.counts).toMatchObject({ updated: 1, deleted: 1, conflict: 1, unchanged: 3 });
    expect(await readTree(root)).toEqual(before);
  });
});

describe("pull's summary line", () => {
  it("says 'already up to date' only when nothing at all was written", async () => {
    const { emulator, pull } = await setup();
    const ids = seed(emulator);
    expect((await pull()).code).toBe(0);
    // A change the files do not show (only updated_at): the snapshot is written, no file.
    edit(emulator, "chapters", ids.a1, {});
    const quiet = await pull();
    expect(quiet.stdout).toMatch(/; no changes; wrote 0 files$/m);
    const again = await pull();
    expect(again.stdout).toMatch(/; no changes; wrote 0 files \(already up to date\)$/m);
  });
});

describe("pull -n", () => {
  it("is --dry-run: prints what it would write and writes nothing", async () => {
    const { emulator, root, pull } = await setup();
    seed(emulator);
    const before = await readTree(root);
    const result = await pull("-n");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Dry run: pulled 2 courses and 4 chapters .* would write 6 files$/m);
    expect(await readTree(root)).toEqual(before);
    expect(existsSync(path.join(root, ".coursesync"))).toBe(false);
  });
});

describe("pull --json", () => {
  it("prints one JSON summary on stdout and nothing else there, even with -v and conflicts", async () => {
    const { emulator, root, pull } = await setup({ pageSize: 1 });
    const ids = seed(emulator);
    const first = await pull("--json", "-v");
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      command: "pull",
      site: emulator.baseUrl,
      dry_run: false,
      snapshot_missing: true,
      remote: { courses: 2, chapters: 4 },
      files_written: 6,
      counts: { created: 6, conflict: 0 },
      conflicts: [],
      errors: [],
    });
    expect(summary.changes).toContainEqual({
      kind: "chapter",
      id: ids.b2,
      path: "courses/beta/02-second.md",
      outcome: "created",
    });
    expect(first.stderr).toMatch(/^GET \/api\/v1\/courses\?page=1 200 \d+ms$/m);
    const listRequests = emulator.state.requests.filter((r) => r.path !== "/api/login");
    expect(summary.requests).toBe(listRequests.length);

    const file = path.join(root, "courses/beta/course.yaml");
    await writeFile(file, (await readFile(file, "utf8")).replace("free: false", "free: true"));
    edit(emulator, "courses", ids.beta, { free: null });
    const conflicted = await pull("--json");
    expect(conflicted.code).toBe(3);
    const second = JSON.parse(conflicted.stdout) as { conflicts: unknown[]; snapshot_missing: boolean };
    expect(second.snapshot_missing).toBe(false);
    expect(second.conflicts).toEqual([
      expect.objectContaining({
        kind: "course",
        id: ids.beta,
        path: "courses/beta",
        outcome: "conflict",
        fields: ["free"],
        copy: "courses/beta/course.remote.yaml",
        resolution: "beside",
      }),
    ]);
  });
});

describe("pull -v", () => {
  it("logs one line per request and never shows the password or a token", async () => {
    const { emulator, dir, root, env } = await setup({ pageSize: 2 });
    seed(emulator);
    const issued: string[] = [];
    const login = emulator.state.login.bind(emulator.state);
    emulator.state.login = (email, password) => {
      const token = login(email, password);
      if (token !== undefined) issued.push(token);
      return token;
    };
    // Start from a token that has expired, so the client also logs in again mid-run.
    const stale = emulator.state.login("demo@example.com", PASSWORD)!;
    emulator.state.expireTokens();
    const result = await runCli(["pull", "-v"], { cwd: root, env: { ...env, COURSESYNC_TOKEN: stale } });
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(emulator.state.requests.length);
    for (const line of lines) expect(line).toMatch(/^(GET|POST) \/api\/\S+ (\d{3}|[A-Z_]+) \d+ms$/);
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/api\/v1\/courses\?page=1 401 \d+ms$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^POST \/api\/login\?email=\[redacted\]&password=\[redacted\] 200 \d+ms$/),
    );
    expect(issued.length).toBeGreaterThanOrEqual(2);
    const everything = [result.stdout, result.stderr, ...Object.values(await readTree(dir))].join("\n");
    for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), ...issued]) {
      expect(everything).not.toContain(secret);
    }
  });
});
