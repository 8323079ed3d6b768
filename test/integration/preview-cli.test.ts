import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { realSleep } from "../../src/api/gate.js";
import { main } from "../../src/cli/main.js";
import type { StopSignal } from "../../src/errors.js";
import { useEmulators } from "../helpers/emulator.js";
import { get } from "../helpers/preview.js";
import { ok, pulledSite, webAndGoSite } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const noPrompt = () => Promise.reject(new Error("unexpected prompt"));

/** `coursesync preview` run in this process: its first line of stdout, and Ctrl-C to stop it. */
async function runPreview(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; tty?: boolean; opened?: string[] },
) {
  let stdout = "";
  let stderr = "";
  let firstLine: (line: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    firstLine = resolve;
  });
  let stop: (signal: StopSignal) => void = () => {};
  const interrupted = new Promise<StopSignal>((resolve) => {
    stop = resolve;
  });
  const opened = options.opened;
  const done = main(["preview", "--port", "0", ...args], {
    stdout: {
      write: (text: string) => {
        stdout += text;
        if (stdout.includes("\n")) firstLine(stdout.slice(0, stdout.indexOf("\n")));
      },
      isTTY: options.tty ?? false,
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
    stdinIsTTY: false,
    env: options.env ?? {},
    cwd: options.cwd,
    interrupted,
    prompts: { input: noPrompt, password: noPrompt, confirm: noPrompt },
    sleep: realSleep,
    now: Date.now,
    ...(opened ? { openBrowser: (at: string) => void opened.push(at) } : {}),
  });
  const first = await Promise.race([url, done.then(() => undefined)]);
  return { url: first, stop, done, output: () => ({ stdout, stderr }) };
}

describe("coursesync preview", () => {
  it("prints the URL alone on the first line, serves the tree, and Ctrl-C closes it (exit 130)", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const run = await runPreview(["--no-open"], { cwd: s.root, env: s.env });
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await get(run.url!);
    expect(index.status).toBe(200);
    expect(index.body).toContain('data-path="courses/go"');
    expect(run.output().stderr).toContain(
      'against the last sync with site "production"; nothing is sent. Ctrl-C stops.',
    );
    run.stop("SIGINT");
    expect(await run.done).toBe(130);
    await expect(get(run.url!)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("shows only the paths given, and names a path that is not in the tree", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const run = await runPreview(["courses/go", "--no-open"], { cwd: s.root, env: s.env });
    const index = await get(run.url!);
    expect(index.body).toContain('data-path="courses/go"');
    expect(index.body).not.toContain('data-path="courses/web"');
    run.stop("SIGINT");
    await run.done;

    const bad = await runPreview(["courses/nope"], { cwd: s.root, env: s.env });
    expect(bad.url).toBeUndefined();
    expect(await bad.done).toBe(2);
    expect(bad.output().stderr).toContain("courses/nope: no such file or folder in the tree");
  });

  it("opens a browser only on a terminal with a display, outside CI, and not with --no-open", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const cases: Array<[string[], Record<string, string>, boolean, number]> = [
      [[], { DISPLAY: ":0" }, true, 1],
      [["--no-open"], { DISPLAY: ":0" }, true, 0],
      [[], { DISPLAY: ":0", CI: "true" }, true, 0],
      [[], { DISPLAY: ":0" }, false, 0],
      [[], {}, true, process.platform === "linux" ? 0 : 1],
    ];
    for (const [args, env, tty, opens] of cases) {
      const opened: string[] = [];
      const run = await runPreview(args, { cwd: s.root, env: { ...s.env, ...env }, tty, opened });
      expect(opened, JSON.stringify({ args, env, tty })).toEqual(opens ? [run.url] : []);
      run.stop("SIGINT");
      await run.done;
    }
  });

  it("says a port in use is, with what to do", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const address = taken.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const run = await runPreview(["--port", String(port)], { cwd: s.root, env: s.env });
      expect(await run.done).toBe(1);
      expect(run.output().stderr).toBe(
        `coursesync: port ${port} on 127.0.0.1 is in use\nPass --port 0 to take any free port, or another --port <n>.\n`,
      );
      expect(run.output().stdout).toBe("");
    } finally {
      taken.close();
    }
  });

  it("refuses a bad --port, and a folder that is not a coursesync tree as other commands do", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const run = await runPreview(["--port", "http"], { cwd: s.root, env: s.env });
    expect(await run.done).toBe(2);
    expect(run.output().stderr).toContain('--port must be a whole number from 0 to 65535, got "http"');

    const dir = await testdir();
    const outside = await runPreview([], { cwd: dir });
    expect(await outside.done).toBe(2);
    expect(outside.output().stderr).toBe(
      `coursesync: no coursesync.yaml in ${dir} or any folder above it\nRun \`coursesync init --url <api-base-url>\` to start a tree, or pass -C <dir>.\n`,
    );
  });

  it("reads the site only when a diff page asks to compare with it, and then reads only", async () => {
    const s = await pulledSite(start, webAndGoSite());
    ok(s.emulator.state.edit("chapters", 1, { content: "<p>a</p>\n<p>site</p>\n<p>c</p>" }));
    await s.replace("courses/web/01-intro.md", "<p>c</p>", "<p>sea</p>");
    await s.write("courses/go/02-new.md", "---\ntitle: New\nordinal: 2\nformat: html\n---\n<p>new</p>\n");
    s.emulator.state.clearRequests();
    const run = await runPreview(["--no-open"], { cwd: s.root, env: s.env });
    const diffPage = "/chapters/web/01-intro.md/diff";
    for (const path of ["/", "/courses/web", "/chapters/web/01-intro.md", diffPage]) {
      expect((await get(run.url!, { path })).status).toBe(200);
    }
    expect(s.log()).toEqual([]);
    expect((await get(run.url!, { path: diffPage })).body).toContain(
      `<a href="${diffPage}?against=site" id="against-site"`,
    );

    const against = await get(run.url!, { path: `${diffPage}?against=site` });
    expect(against.status).toBe(200);
    expect(against.body).toMatch(/<del>site<\/del><ins>b<\/ins>[\s\S]*<del>c<\/del><ins>sea<\/ins>/);
    expect(against.body).toContain('<div id="live" data-watch="">');
    const tour = await get(run.url!, { path: "/chapters/go/01-tour.md/diff?against=site" });
    expect(tour.body).toContain('<p id="no-diff">The file matches the site.</p>');
    const fresh = await get(run.url!, { path: "/chapters/go/02-new.md/diff?against=site" });
    expect(fresh.body).toContain("This chapter is not on the site yet: the next push creates it.");
    expect(s.writes()).toEqual([]);
    expect(s.log().filter((line) => line.startsWith("GET"))).toEqual([
      "GET /api/v1/chapters/1 200",
      "GET /api/v1/chapters/3 200",
    ]);
    run.stop("SIGINT");
    await run.done;
  });
});
