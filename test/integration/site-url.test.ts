import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { closedPortUrl, useHtmlServers } from "../helpers/servers.js";
import { cliEnv, pulledSite, writeConfig } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";
import { fakeTime } from "../helpers/time.js";

const start = useEmulators();
const htmlServer = useHtmlServers();
afterEach(cleanupTestdirs);

/** A tree whose coursesync.yaml points at `url`, and the CLI environment for it. */
async function treeFor(url: string) {
  const root = await testdir();
  await writeConfig(root, url);
  return { root, env: cliEnv(root) };
}

describe("a URL that is a web server but not the API", () => {
  it("login says the URL does not look like the API, shows the URL asked and the form expected", async () => {
    const site = await htmlServer(404);
    const { root } = await treeFor(site.url);
    const env = cliEnv(root, { COURSESYNC_EMAIL: "me@example.com", COURSESYNC_PASSWORD: "s3cret-Pa55" });
    const result = await runCli(["login"], { cwd: root, env });
    expect(result.code).toBe(1);
    const origin = new URL(site.url).origin;
    expect(result.stderr).toContain(
      `POST ${origin}/api/login?email=[redacted]&password=[redacted] failed: 404`,
    );
    expect(result.stderr).toContain(`${site.url} does not look like the site's API`);
    expect(result.stderr).toContain("for example https://academy.example.com/api/v1");
    expect(result.stderr).not.toMatch(/Try again later|deleted there/);
    expect(result.stderr).not.toContain(env.COURSESYNC_PASSWORD);
  });

  it.each([200, 404, 405, 501])(
    "pull of a site answering %i with a web page says the same",
    async (status) => {
      const site = await htmlServer(status);
      const { root } = await treeFor(site.url);
      const result = await runCli(["pull"], {
        cwd: root,
        env: {
          ...cliEnv(root, { COURSESYNC_EMAIL: "", COURSESYNC_PASSWORD: "" }),
          COURSESYNC_TOKEN: "tok-1234",
        },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`GET ${site.url}/courses?page=1`);
      expect(result.stderr).toContain(`${site.url} does not look like the site's API`);
      expect(result.stderr).not.toMatch(/Try again later|deleted there/);
      // Each list's first page, once: no retries, no page after it.
      expect(site.asked).toContain("/api/v1/courses?page=1");
      expect(new Set(site.asked).size).toBe(site.asked.length);
      for (const asked of site.asked) expect(asked).toMatch(/\?page=1$/);
    },
  );
});

describe("an address where nothing answers", () => {
  it("fails on the first attempt, without backoff, naming the host and what to check", async () => {
    const url = await closedPortUrl();
    const { root, env } = await treeFor(url);
    const time = fakeTime();
    const result = await runCli(["pull"], { cwd: root, env, sleep: time.sleep, now: time.now });
    expect(result.code).toBe(1);
    expect(time.waits).toEqual([]);
    const host = new URL(url).host;
    expect(result.stderr).toContain(
      `POST http://${host}/api/login?email=[redacted]&password=[redacted] failed: connection refused (ECONNREFUSED)\n`,
    );
    expect(result.stderr).toContain(`Nothing answers at ${host}`);
  });
});

describe("init tries the URL once, and writes the tree whatever it finds", () => {
  it("says the API answered when it wants a login", async () => {
    const emulator = await start({ seedDir: null });
    const dir = await testdir();
    const result = await runCli(["init", "--url", emulator.baseUrl], { cwd: dir, env: cliEnv(dir) });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`${emulator.baseUrl}: the API answered (it wants a login).`);
    expect(result.stderr).not.toContain("warning");
    expect(emulator.state.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/v1/courses"]);
  });

  it("warns when a web page answers, and still writes the files", async () => {
    const site = await htmlServer(200);
    const dir = await testdir();
    const result = await runCli(["init", "--url", site.url], { cwd: dir, env: cliEnv(dir) });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "warning: the files are written, but the URL looks wrong: fix it in coursesync.yaml:",
    );
    expect(existsSync(path.join(dir, "coursesync.yaml"))).toBe(true);
  });

  it("warns when nothing answers (offline), and still writes the files", async () => {
    const url = await closedPortUrl();
    const dir = await testdir();
    const result = await runCli(["init", "--url", url], { cwd: dir, env: cliEnv(dir) });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "warning: the files are written, but the URL could not be reached (offline?):",
    );
    expect(result.stderr).toContain(`Nothing answers at ${new URL(url).host}`);
    expect(result.stderr).toContain("connection refused (ECONNREFUSED)");
    expect(existsSync(path.join(dir, "coursesync.yaml"))).toBe(true);
  });

  it("--no-check sends nothing", async () => {
    const site = await htmlServer(200);
    const dir = await testdir();
    const result = await runCli(["init", "--url", site.url, "--no-check"], { cwd: dir, env: cliEnv(dir) });
    expect(result.code).toBe(0);
    expect(site.asked).toEqual([]);
    expect(result.stderr).not.toContain("warning");
  });
});

describe("a token the site refuses", () => {
  it("COURSESYNC_TOKEN refused: says so, names the site, and says to renew or unset it", async () => {
    const { root, dir } = await pulledSite(start, {});
    const env = { COURSESYNC_CONFIG_DIR: path.join(dir, "config"), COURSESYNC_TOKEN: "not-a-real-token" };
    const result = await runCli(["pull"], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /The site at http:\/\/127\.0\.0\.1:\d+\/api\/v1 refused the token in COURSESYNC_TOKEN/,
    );
    expect(result.stderr).toContain("coursesync login --print-token");
    expect(result.stderr).toContain("unset COURSESYNC_TOKEN to use the stored login");
    expect(result.stderr).not.toMatch(/set COURSESYNC_TOKEN,|or set COURSESYNC_TOKEN/);
    expect(result.stderr).not.toContain("not-a-real-token");
  });
});
