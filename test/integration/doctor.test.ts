import { mkdir, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { closedPortUrl, useHtmlServers } from "../helpers/servers.js";
import { cliEnv, pulledSite, webSite, writeConfig } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
const htmlServer = useHtmlServers();
afterEach(cleanupTestdirs);

interface DoctorJson {
  ok: boolean;
  checks: Array<{ check: string; status: string; message: string; hint?: string }>;
}

/** The status of each check, by name, from `doctor --json`. */
function statuses(doc: DoctorJson): Record<string, string> {
  return Object.fromEntries(doc.checks.map((c) => [c.check, c.status]));
}

/** A tree (written by hand, no .gitignore) whose coursesync.yaml points at `url`. */
async function treeFor(url: string) {
  const root = await testdir();
  await writeConfig(root, url);
  await writeFile(path.join(root, ".gitignore"), ".coursesync/*\n!.coursesync/*.json\n");
  return { root, env: cliEnv(root) };
}

describe("coursesync doctor", () => {
  it("a pulled tree and a working site: every check ok, one line each, exit 0", async () => {
    const site = await pulledSite(start, webSite());
    const result = await site.cli("doctor");
    expect(result.code, result.stdout).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.map((l) => l.split(/\s+/).slice(0, 2).join(" "))).toEqual([
      "ok config",
      "ok snapshot",
      "ok lock",
      "ok .gitignore",
      "ok url",
      "ok credentials",
      "ok account",
    ]);
    expect(result.stdout).toContain(".coursesync/production/ is readable: 1 course, 2 chapters");
    expect(result.stdout).toContain(`${site.emulator.baseUrl} answers as the API (it wants a login)`);
    expect(result.stdout).toContain(
      "login works (demo@example.com), with COURSESYNC_EMAIL/COURSESYNC_PASSWORD",
    );
    expect(result.stdout).toContain("lists the first page of courses (1) and chapters (2)");

    const json = await site.cli("doctor", "--json");
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as DoctorJson;
    expect(doc.ok).toBe(true);
    expect(Object.values(statuses(doc))).toEqual(Array(7).fill("ok"));
  });

  it("a wrong password fails the credentials, skips the account, exit 1, never printing it", async () => {
    const site = await pulledSite(start, webSite());
    const env = { ...site.env, COURSESYNC_PASSWORD: "wrong-Passw0rd" };
    const result = await runCli(["doctor", "--json"], { cwd: site.root, env });
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout) as DoctorJson;
    expect(doc.ok).toBe(false);
    expect(statuses(doc)).toMatchObject({ url: "ok", credentials: "fail", account: "skip" });
    const credentials = doc.checks.find((c) => c.check === "credentials");
    expect(credentials?.message).toMatch(/POST \/api\/login failed: 401/);
    expect(credentials?.hint).toMatch(/Check the e-mail and password/);
    expect(result.stdout + result.stderr).not.toContain("wrong-Passw0rd");
  });

  it("a refused COURSESYNC_TOKEN: the credentials line says to renew or unset it", async () => {
    const site = await pulledSite(start, webSite());
    const env = {
      COURSESYNC_CONFIG_DIR: site.env.COURSESYNC_CONFIG_DIR,
      COURSESYNC_TOKEN: "expired-token-1",
    };
    const result = await runCli(["doctor"], { cwd: site.root, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^fail\s+credentials\s+GET \/api\/v1\/courses\?page=1 failed: 401/m);
    expect(result.stdout).toContain("refused the token in COURSESYNC_TOKEN");
    expect(result.stdout).not.toContain("expired-token-1");
  });

  it("a web server that is not the API: the url fails with the form expected; later checks skip", async () => {
    const server = await htmlServer(200);
    const { root, env } = await treeFor(server.url);
    const result = await runCli(["doctor"], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^ok\s+\.gitignore/m);
    expect(result.stdout).toMatch(
      /^fail\s+url\s+GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/courses\?page=1 did not answer with JSON/m,
    );
    expect(result.stdout).toContain("for example https://academy.example.com/api/v1");
    expect(result.stdout).toMatch(/^skip\s+credentials\s+not checked: the site URL failed/m);
    expect(result.stdout).toMatch(/^skip\s+account/m);
  });

  it("a closed port: the url fails on one attempt, naming the host", async () => {
    const url = await closedPortUrl();
    const { root, env } = await treeFor(url);
    const result = await runCli(["doctor"], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^fail\s+url\s+GET .* failed: connection refused \(ECONNREFUSED\)$/m);
    expect(result.stdout).toContain(`Nothing answers at ${new URL(url).host}`);
  });

  it("a lock left by a dead run and a missing .gitignore are warnings, with what to do", async () => {
    const site = await pulledSite(start, webSite());
    const lock = path.join(site.root, ".coursesync", "production.lock");
    await mkdir(lock, { recursive: true });
    const holder = { pid: 99_999_999, host: hostname(), command: "push", since: "2026-03-01T09:30:00.000Z" };
    await writeFile(`${lock}.holder`, JSON.stringify(holder));
    await rm(path.join(site.root, ".gitignore"));
    const result = await site.cli("doctor");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^warn\s+lock\s+\.coursesync\/production\.lock was left by coursesync push \(pid 99999999/m,
    );
    expect(result.stdout).toContain("the next command takes the lock over");
    expect(result.stdout).toMatch(/^warn\s+\.gitignore\s+there is no \.gitignore/m);
    expect(result.stdout).toMatch(/^ok\s+account/m);
  });

  it("a broken coursesync.yaml fails the config and skips the rest", async () => {
    const root = await testdir({ "coursesync.yaml": "sites: [\n" });
    const result = await runCli(["doctor"], { cwd: root, env: cliEnv(root) });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^fail\s+config\s+.*coursesync\.yaml:\d+: YAML does not parse/m);
    expect(result.stdout).toMatch(/^skip\s+url/m);
  });
});
