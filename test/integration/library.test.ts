import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import {
  type CoursesyncError,
  check,
  type ProgressEvent,
  pull,
  push,
  restore,
  status,
} from "../../src/lib.js";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { initTree, seedSite, webSite } from "../helpers/site.js";

const start = useEmulators();

/** Every way the process could print: none may be called by the library. */
let printers: MockInstance[] = [];
beforeEach(() => {
  printers = [
    vi.spyOn(process.stdout, "write"),
    vi.spyOn(process.stderr, "write"),
    vi.spyOn(console, "log"),
    vi.spyOn(console, "error"),
    vi.spyOn(console, "warn"),
    vi.spyOn(console, "info"),
  ];
});
afterEach(() => {
  for (const printer of printers) printer.mockRestore();
});

/** Assert nothing was printed since the test began. */
function nothingPrinted(): void {
  for (const printer of printers) expect(printer).not.toHaveBeenCalled();
}

/** The CoursesyncError a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<CoursesyncError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).name).toBe("CoursesyncError");
  return error as CoursesyncError;
}

/** The steps a pull told, in the order it told them. */
function stepsOf(events: readonly ProgressEvent[]): string[] {
  return events.flatMap((e) => (e.type === "step" ? [e.step] : []));
}

/** A site (Web: Intro, Tags) and a tree made by init for it, not pulled yet. */
async function siteAndTree() {
  const spec = webSite();
  const emulator = await start({ seedDir: null, ...spec.options });
  seedSite(emulator, spec);
  const tree = await initTree(emulator);
  return { emulator, ...tree };
}

describe("the library against the emulator", () => {
  it("pulls, tells status, pushes, checks and restores, printing nothing", async () => {
    const { emulator, root, env } = await siteAndTree();
    const events: ProgressEvent[] = [];
    const pulled = await pull({ dir: root, env, onProgress: (e) => events.push(e) });
    expect(pulled).toMatchObject({ command: "pull", site: emulator.baseUrl, dry_run: false, errors: [] });
    expect(pulled.counts.created).toBe(3);
    expect(pulled.remote).toEqual({ courses: 1, chapters: 2 });
    expect(events).toContainEqual({ type: "listing", list: "chapters", page: 1, records: 2 });
    // Its steps, each once and in order, once every page is in.
    expect(stepsOf(events)).toEqual(["listed", "converted", "planned", "written", "committed"]);
    expect(events.findLastIndex((e) => e.type === "listing")).toBeLessThan(
      events.findIndex((e) => e.type === "step"),
    );
    const intro = path.join(root, "courses", "web", "01-intro.md");
    expect(await readFile(intro, "utf8")).toContain("one");

    expect(await status({ dir: root, env })).toMatchObject({ command: "status", clean: true, entries: [] });
    await writeFile(intro, (await readFile(intro, "utf8")).replace("one", "one, edited"));
    const pending = await status({ dir: root, env });
    expect(pending.entries).toMatchObject([{ state: "modified", path: "courses/web/01-intro.md" }]);
    // The same document as --json prints.
    const cli = await runCli(["status", "--json"], { cwd: root, env });
    expect(JSON.parse(cli.stdout)).toEqual(pending);

    const writes: ProgressEvent[] = [];
    const pushed = await push({ dir: root, env, yes: true, onProgress: (e) => writes.push(e) });
    expect(pushed).toMatchObject({ command: "push", applied: true, errors: [] });
    expect(pushed.sent).toMatchObject([
      { kind: "chapter", path: "courses/web/01-intro.md", outcome: "updated" },
    ]);
    expect(writes).toContainEqual({
      type: "write",
      path: "courses/web/01-intro.md",
      outcome: "updated",
      done: 1,
      total: 1,
    });
    expect(emulator.state.get("chapters", 1)?.content).toContain("one, edited");

    expect(await check({ dir: root, env })).toMatchObject({ command: "check", ok: true, problems: [] });

    emulator.state.remove("chapters", 2);
    const restored = await restore({ dir: root, env, yes: true });
    expect(restored).toMatchObject({ command: "restore", applied: true, restored: { lost: 1, extra: 0 } });
    expect(restored.sent).toMatchObject([{ kind: "chapter", outcome: "created" }]);
    expect(emulator.state.list("chapters", 1).items.map((c) => c.title)).toEqual(["Intro", "Tags"]);
    nothingPrinted();
  });

  it("resolves, not throws, for what the command line ends with 1 or 3: the document says it", async () => {
    const { emulator, root, env } = await siteAndTree();
    // A dry run tells its steps up to the plan, and writes nothing.
    const dry: ProgressEvent[] = [];
    await pull({ dir: root, env, dryRun: true, onProgress: (e) => dry.push(e) });
    expect(stepsOf(dry)).toEqual(["listed", "converted", "planned"]);
    expect(existsSync(path.join(root, "courses"))).toBe(false);
    await pull({ dir: root, env });
    const intro = path.join(root, "courses", "web", "01-intro.md");
    const text = await readFile(intro, "utf8");
    // The same title changed on both sides: a conflict (exit 3 on the command line).
    await writeFile(intro, text.replace("title: Intro", "title: Intro here"));
    emulator.state.edit("chapters", 1, { title: "Intro there" });
    const pulled = await pull({ dir: root, env });
    expect(pulled.conflicts).toMatchObject([{ kind: "chapter", path: "courses/web/01-intro.md" }]);
    expect(pulled.errors).toEqual([]);
    // A file that does not parse (exit 1): every problem, with its file and line.
    await writeFile(path.join(root, "courses", "web", "02-tags.md"), "---\ntitle: [unclosed\n---\nbody\n");
    const checked = await check({ dir: root, env });
    expect(checked.ok).toBe(false);
    expect(checked.problems).toContainEqual(
      expect.objectContaining({ file: "courses/web/02-tags.md", line: 2, rule: "yaml-syntax" }),
    );
    nothingPrinted();
  });

  it("takes credentials as options, and without any fails with what to do", async () => {
    const { root, env } = await siteAndTree();
    const config = { COURSESYNC_CONFIG_DIR: env.COURSESYNC_CONFIG_DIR };
    const error = await rejection(pull({ dir: root, env: config }));
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/^no credentials for http/);
    expect(error.hint).toMatch(/COURSESYNC_TOKEN/);
    const pulled = await pull({
      dir: root,
      env: config,
      email: env.COURSESYNC_EMAIL,
      password: env.COURSESYNC_PASSWORD,
    });
    expect(pulled.counts.created).toBe(3);
    nothingPrinted();
  });

  it("throws a CoursesyncError (exit 2, with a hint) for a bad option or a missing tree", async () => {
    const { root, env } = await siteAndTree();
    const negative = await rejection(pull({ dir: root, env, maxDelete: -1 }));
    expect(negative.exitCode).toBe(2);
    expect(negative.message).toBe('pull: option "maxDelete" must be a whole number of 0 or more, not -1');
    expect(negative.hint).toContain("maxDelete");
    const unknown = await rejection(push({ dir: root, env, watch: true } as never));
    expect(unknown.exitCode).toBe(2);
    expect(unknown.message).toBe('push: unknown option "watch"');
    const missing = await rejection(status({ dir: path.join(root, "nowhere"), env }));
    expect(missing.exitCode).toBe(2);
    expect(missing.message).toContain("nowhere");
    nothingPrinted();
  });

  it("stops as Ctrl-C stops the command when its signal aborts", async () => {
    const { root, env } = await siteAndTree();
    const error = await rejection(pull({ dir: root, env, signal: AbortSignal.abort() }));
    expect(error.exitCode).toBe(130);
    expect(error.message).toContain("nothing was changed");
    nothingPrinted();
  });
});
