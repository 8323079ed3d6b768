import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import type { EmulatorOptions } from "../../src/emulator/server.js";
import { pull as pullTree } from "../../src/sync/pull/index.js";
import { htmlBodies } from "../../src/tree/codecs.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";
import { type ProxyRule, useProxies } from "../helpers/proxy.js";
import { addChapter, addCourse, cliEnv, LOGIN, writeConfig } from "../helpers/site.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

const start = useEmulators();
const startProxy = useProxies();
afterEach(cleanupTestdirs);

/**
 * One course of five chapters on pages of two (chapter pages 2, 2 and 1), pulled once through a
 * proxy that forwards everything; the test then makes the proxy (or the emulator) misbehave.
 */
async function pulledSite(options: EmulatorOptions = {}) {
  const emulator = await start({
    seedDir: null,
    admin: true,
    now: manualClock().now,
    pageSize: 2,
    ...options,
  });
  const course = addCourse(emulator, { title: "Course" });
  for (let i = 0; i < 5; i++)
    addChapter(emulator, { course_id: course, title: `Chapter ${i}`, content: `<p>${i}</p>` });
  const proxy = await startProxy(emulator.baseUrl);
  const dir = await testdir();
  const env = cliEnv(dir);
  const root = path.join(dir, "tree");
  await writeConfig(root, proxy.baseUrl);
  const pull = (...args: string[]) => runCli(["pull", ...args], { cwd: root, env });
  const first = await pull();
  expect(first.code, first.stderr).toBe(0);
  expect(Object.keys(await readTree(path.join(root, "courses")))).toHaveLength(6);
  return { emulator, proxy, root, pull, before: await readTree(root) };
}

/** Requests the emulator saw for a list since `from` (an index into its request log). */
function listRequests(emulator: TestEmulator, list: string, from: number) {
  return emulator.state.requests
    .slice(from)
    .filter((r) => r.method === "GET" && r.path === `/api/v1/${list}`);
}

/** Rewrite the chapters list pages the rule picks; every other request is forwarded. */
function onChapterPages(
  rewrite: (
    page: number,
    headers: Record<string, string>,
    body: string,
  ) => { headers?: Record<string, string>; body?: string } | undefined,
): ProxyRule {
  return (request) => {
    if (request.method !== "GET" || !request.url.pathname.endsWith("/chapters")) return "forward";
    const page = Number(request.url.searchParams.get("page"));
    return {
      rewrite: (upstream) => {
        const change = rewrite(page, upstream.headers, upstream.body);
        if (change === undefined) return upstream;
        return {
          ...upstream,
          headers: { ...upstream.headers, ...change.headers },
          body: change.body ?? upstream.body,
        };
      },
    };
  };
}

describe("pull: a listing that cannot be trusted deletes nothing", () => {
  it("a page answered Not Found once is a hole, not the end, even when the page after it is empty", async () => {
    const { emulator, root, pull, before } = await pulledSite();
    // The last chapters page (3) answers 404 once; page 4 is an ordinary empty page.
    emulator.faults.update({ failNext: 1, failStatus: 404, match: { path: "/api/v1/chapters", page: 3 } });
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GET \/api\/v1\/chapters\?page=3 .*404/);
    expect(await readTree(root)).toEqual(before);
    // Once the site answers again, the same pull changes nothing.
    const again = await pull();
    expect(again.code, again.stderr).toBe(0);
    expect(await readTree(root)).toEqual(before);
  });

  it("on a site that answers Not Found past its end, a passing Not Found on the last page is caught", async () => {
    // Chapter pages of two: 2, 2, 1 → page 3 is the last; pages past it answer 404.
    const { emulator, root, pull, before } = await pulledSite({ pastLastPage: "404" });
    emulator.faults.update({ failNext: 1, failStatus: 404, match: { path: "/api/v1/chapters", page: 3 } });
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GET \/api\/v1\/chapters\?page=3 .*404/);
    expect(await readTree(root)).toEqual(before);
  });

  it("a page that fails after its retries fails the listing", async () => {
    const { emulator, proxy, root, before } = await pulledSite();
    emulator.faults.update({ failNext: 100, failStatus: 500, match: { path: "/api/v1/chapters", page: 3 } });
    const client = new ApiClient({
      baseUrl: proxy.baseUrl,
      credentials: { email: LOGIN.COURSESYNC_EMAIL, password: LOGIN.COURSESYNC_PASSWORD },
      sleep: async () => {},
    });
    const options = { root, site: "production", siteUrl: proxy.baseUrl, ignore: [], bodies: htmlBodies };
    await expect(pullTree(options, client)).rejects.toThrow(/GET \/api\/v1\/chapters\?page=3 failed: 500/);
    client.close();
    expect(await readTree(root)).toEqual(before);
  });

  it("a Link rel=next that points back to page 1 fails the listing instead of ending it", async () => {
    const { emulator, proxy, root, pull, before } = await pulledSite();
    proxy.rule = onChapterPages((page) => ({
      headers: { link: `<${emulator.baseUrl}/chapters?page=${page === 2 ? 1 : page + 1}>; rel="next"` },
    }));
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the Link header of GET \/api\/v1\/chapters\?page=2 points back to page 1/);
    expect(result.stderr).toMatch(/Nothing was changed/);
    expect(await readTree(root)).toEqual(before);
  });

  it("a site that ignores ?page= is stopped at the first repeated page, naming it", async () => {
    const { emulator, proxy, root, pull, before } = await pulledSite();
    // Whatever page is asked for, the site answers page 1 (two records: a full page).
    proxy.rule = (request) => {
      if (request.url.pathname.endsWith("/chapters")) request.url.searchParams.set("page", "1");
      return "forward";
    };
    const from = emulator.state.requests.length;
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /the site repeats page 1: GET \/api\/v1\/chapters\?page=2 brought no record/,
    );
    expect(await readTree(root)).toEqual(before);
    // Stopped at once: page 1, then at most one window of pages (4) in flight when page 2 came.
    expect(listRequests(emulator, "chapters", from).length).toBeLessThanOrEqual(1 + 4);
  });
});
