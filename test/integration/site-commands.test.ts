import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configText } from "../../src/cli/commands/init.js";
import { CredentialStore } from "../../src/config/credentials.js";
import { loadSnapshot, snapshotBase } from "../../src/sync/state/snapshot.js";
import { type RunOptions, runCli } from "../helpers/cli.js";
import { git, isolatedGit } from "../helpers/git.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const PROD = "https://academy.example.com/api/v1";
const STAGING = "https://staging.example.com/api/v1";
const COURSE = "id: 1\ntitle: Web\n";
const CHAPTER = "---\nid: 2\ntitle: Intro\nordinal: 1\n---\nHello\n";

/** A snapshot of one course and one chapter, made for `url`. */
function snapshotJson(url: string): string {
  const course = { path: "courses/web", hash: "a", record: { id: 1, title: "Web" } };
  const chapter = { path: "courses/web/01-intro.md", hash: "b", record: { id: 2, title: "Intro" } };
  return `${JSON.stringify({ version: 1, site: url, courses: { 1: course }, chapters: { 2: chapter } })}\n`;
}

/** A tree as init writes it for production, with both sites' files under .coursesync and a course. */
async function setup(options: { staging?: boolean } = {}) {
  const dir = await testdir();
  const root = path.join(dir, "tree");
  const env = { COURSESYNC_CONFIG_DIR: path.join(dir, "config") };
  const init = await runCli(["init", "tree", "--url", PROD], { cwd: dir, env });
  expect(init.code, init.stderr).toBe(0);
  const files: Record<string, string> = {
    "courses/web/course.yaml": COURSE,
    "courses/web/01-intro.md": CHAPTER,
    ".coursesync/production.json": snapshotJson(PROD),
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  const cli = (args: string[], extra: Partial<RunOptions> = {}) =>
    runCli(args, { cwd: root, env, ...extra, ...(extra.env ? { env: { ...env, ...extra.env } } : {}) });
  const config = () => readFile(path.join(root, "coursesync.yaml"), "utf8");
  if (options.staging) {
    const added = await cli(["site", "add", "staging", "--url", STAGING]);
    expect(added.code, added.stderr).toBe(0);
  }
  return { dir, root, env, cli, config };
}

/** Give the staging site a snapshot, a cache, a temp file a killed run left, and optionally a journal. */
async function stagingState(root: string, journal?: "unfinished" | "stale"): Promise<void> {
  const state = path.join(root, ".coursesync");
  await writeFile(path.join(state, "staging.json"), snapshotJson(STAGING));
  await writeFile(path.join(state, "staging.json.999999.0.tmp"), "{");
  await mkdir(path.join(state, "cache", "staging", "content"), { recursive: true });
  await writeFile(path.join(state, "cache", "staging", "content", "ab"), "tcached");
  if (journal) {
    const base =
      journal === "stale" ? "an older snapshot" : snapshotBase(await loadSnapshot(root, "staging"));
    const intent = { t: "intent", op: "create", kind: "course", key: "new", path: "courses/new", fields: {} };
    await writeFile(
      path.join(state, "staging.journal"),
      `${JSON.stringify({ t: "start", base })}\n${JSON.stringify(intent)}\n`,
    );
  }
}

describe("site add", () => {
  it("adds the site below the other, keeping every other byte of coursesync.yaml", async () => {
    const s = await setup();
    const before = await s.config();
    const result = await s.cli(["site", "add", "staging", "--url", `${STAGING}/`]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`Added site "staging" (${STAGING}) to coursesync.yaml.\n`);
    expect(await s.config()).toBe(
      before.replace(`    url: ${PROD}\n`, `    url: ${PROD}\n  staging:\n    url: ${STAGING}\n`),
    );
    expect(before).toBe(configText("production", PROD));
  });

  it("takes --url before the command too", async () => {
    const s = await setup();
    const result = await s.cli(["--url", STAGING, "site", "add", "staging"]);
    expect(result.code, result.stderr).toBe(0);
    expect(await s.config()).toContain(`  staging:\n    url: ${STAGING}\n`);
  });

  it("keeps a hand-edited file's comments byte for byte, and remove gives it back unchanged", async () => {
    const s = await setup();
    const hand = `# yaml-language-server: $schema=.coursesync/schemas/coursesync.schema.json
# Our school.
site: production     # where plain commands go

sites:
  production:   # the live one
    url: '${PROD}'
    # ask Ana before pushing here

# bodies as Markdown
body: markdown
concurrency: 4
ignore: []
`;
    await writeFile(path.join(s.root, "coursesync.yaml"), hand);
    expect((await s.cli(["site", "add", "staging", "--url", STAGING])).code).toBe(0);
    expect(await s.config()).toBe(
      hand.replace(
        "    # ask Ana before pushing here\n",
        `    # ask Ana before pushing here\n  staging:\n    url: ${STAGING}\n`,
      ),
    );
    expect((await s.cli(["site", "remove", "staging", "--yes"])).code).toBe(0);
    expect(await s.config()).toBe(hand);
  });

  it("refuses a name whose old snapshot was made for another URL", async () => {
    const s = await setup();
    await writeFile(
      path.join(s.root, ".coursesync", "staging.json"),
      snapshotJson("https://old.example.com/api/v1"),
    );
    const before = await s.config();
    const result = await s.cli(["site", "add", "staging", "--url", STAGING]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("made for https://old.example.com/api/v1");
    expect(result.stderr).toContain("never read as another's");
    expect(await s.config()).toBe(before);
  });
});

describe("site commands refuse bad input with exit 2, a message, and coursesync.yaml unchanged", () => {
  it.each([
    [["site", "add", "production", "--url", STAGING], /site "production" is already in coursesync\.yaml/],
    [["site", "add", "Staging", "--url", STAGING], /site "staging" is already in coursesync\.yaml/],
    [
      ["site", "add", "qa", "--url", "https://qa.example.com/api"],
      /does not end in \/api\/v1\n.*for example https:\/\/.*\/api\/v1/,
    ],
    [["site", "add", "qa", "--url", "qa.example.com"], /"qa\.example\.com" is not a URL/],
    [["site", "add", "qa"], /site add needs --url <api-base-url>\nExample: coursesync site add qa --url/],
    [["site", "add", "../qa", "--url", STAGING], /site name "\.\.\/qa": use letters, digits/],
    [
      ["site", "remove", "nosuch", "--yes"],
      /site "nosuch" is not in coursesync\.yaml\nKnown sites: production, staging\./,
    ],
    [
      ["site", "remove", "production", "--yes"],
      /"production" is the default site.*\n.*coursesync site default staging/,
    ],
    [
      ["site", "remove", "staging", "--yes", "--url", STAGING],
      /--url has no meaning for coursesync site remove/,
    ],
    [["site", "default", "nosuch"], /Known sites: production, staging\./],
    [["site", "set-url", "nosuch", STAGING], /Known sites: production, staging\./],
    [["site", "set-url", "staging", "https://x.example.com/v1"], /does not end in \/api\/v1/],
    [["site", "set-url", "staging"], /site set-url needs the new URL/],
    [["site", "list", "--site", "staging"], /takes the site's name as an argument, not --site/],
    [["site", "frobnicate"], /unknown command/],
  ])("%j", async (args, message) => {
    const s = await setup({ staging: true });
    const before = await s.config();
    const result = await s.cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await s.config()).toBe(before);
  });
});

describe("site list", () => {
  it("shows each site's URL, the default, its last sync, and whether a token is stored, never the token", async () => {
    const s = await setup({ staging: true });
    await new CredentialStore(s.env.COURSESYNC_CONFIG_DIR).set(PROD, {
      token: "stored-secret-token",
      saved_at: "2024-01-01T00:00:00Z",
    });
    const human = await s.cli(["site", "list"]);
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^production \(default\) {2}https:\/\/academy\.example\.com\/api\/v1 {2}last sync \d{4}-\d\d-\d\dT[\d:.]+Z \(1 course, 1 chapter\) {2}token stored$/,
    );
    expect(lines[1]).toBe(
      `${"staging".padEnd("production (default)".length)}  ${STAGING}  never synced  no token stored`,
    );

    const json = await s.cli(["site", "list", "--json"], { env: { COURSESYNC_TOKEN: "env-secret-token" } });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as { sites: Array<{ snapshot: { written_at: string } | null }> };
    expect(parsed).toEqual({
      command: "site list",
      default: "production",
      ids: "production",
      env_token: true,
      sites: [
        {
          name: "production",
          url: PROD,
          default: true,
          token_stored: true,
          snapshot: {
            file: ".coursesync/production.json",
            written_at: parsed.sites[0]?.snapshot?.written_at,
            url: PROD,
            courses: 1,
            chapters: 1,
          },
        },
        { name: "staging", url: STAGING, default: false, token_stored: false, snapshot: null },
      ],
    });
    expect(Number.isNaN(Date.parse(parsed.sites[0]?.snapshot?.written_at ?? ""))).toBe(false);
    const withEnv = await s.cli(["site", "list"], { env: { COURSESYNC_TOKEN: "env-secret-token" } });
    expect(withEnv.stdout).toContain("COURSESYNC_TOKEN is set");
    for (const output of [human, json, withEnv]) {
      expect(output.stdout + output.stderr).not.toMatch(/stored-secret-token|env-secret-token/);
    }
  });

  it("says when a snapshot cannot be read or was made for another URL", async () => {
    const s = await setup({ staging: true });
    await writeFile(path.join(s.root, ".coursesync", "staging.json"), "{ not json");
    await writeFile(path.join(s.root, ".coursesync", "production.json"), snapshotJson(STAGING));
    const result = await s.cli(["site", "list"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`snapshot made for ${STAGING}`);
    expect(result.stdout).toMatch(
      /staging .*snapshot unreadable: the snapshot .coursesync\/staging\.json does not parse/,
    );
  });
});

describe("site remove", () => {
  it("removes the site and its snapshot, cache and leftovers, keeping every file of the tree", async () => {
    const s = await setup({ staging: true });
    await stagingState(s.root, "stale");
    const before = await readTree(s.root, [".coursesync", "coursesync.yaml"]);
    const result = await s.cli(["site", "remove", "staging", "--yes"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`Removed site "staging" (${STAGING}) from coursesync.yaml.\n`);
    expect(result.stderr).toContain("the tree's files are unchanged");
    expect(await readTree(s.root, [".coursesync", "coursesync.yaml"])).toEqual(before);
    expect(
      Object.keys(await readTree(path.join(s.root, ".coursesync"))).filter((f) => !f.startsWith("schemas/")),
    ).toEqual(["production.json"]);
    expect(await s.config()).toBe(configText("production", PROD));
  });

  it("without a terminal and without --yes, asks for --yes (exit 3) and changes nothing", async () => {
    const s = await setup({ staging: true });
    await stagingState(s.root);
    const before = await readTree(s.root);
    const result = await s.cli(["site", "remove", "staging"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("needs confirmation, and there is no terminal");
    expect(result.stderr).toContain("coursesync site remove staging --yes");
    expect(await readTree(s.root)).toEqual(before);
  });

  it("asks on a terminal, and a no changes nothing (exit 3)", async () => {
    const s = await setup({ staging: true });
    await stagingState(s.root);
    const before = await readTree(s.root);
    const asked: string[] = [];
    const answer = (yes: boolean) => ({
      tty: true,
      prompts: {
        confirm: async (message: string) => {
          asked.push(message);
          return yes;
        },
      },
    });
    const no = await s.cli(["site", "remove", "staging"], answer(false));
    expect(no.code).toBe(3);
    expect(asked[0]).toContain(`Remove site "staging" (${STAGING})`);
    expect(await readTree(s.root)).toEqual(before);
    const yes = await s.cli(["site", "remove", "staging"], answer(true));
    expect(yes.code, yes.stderr).toBe(0);
    expect(existsSync(path.join(s.root, ".coursesync", "staging.json"))).toBe(false);
  });

  it("refuses while a push journal holds writes the snapshot lacks, unless --force", async () => {
    const s = await setup({ staging: true });
    await stagingState(s.root, "unfinished");
    const before = await readTree(s.root);
    const refused = await s.cli(["site", "remove", "staging", "--yes"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(".coursesync/staging.journal holds 1 write");
    expect(refused.stderr).toContain("coursesync push --site staging");
    expect(await readTree(s.root)).toEqual(before);
    const forced = await s.cli(["site", "remove", "staging", "--yes", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(path.join(s.root, ".coursesync", "staging.journal"))).toBe(false);
  });

  it("keeps the stored token and says how to forget it", async () => {
    const s = await setup({ staging: true });
    const store = new CredentialStore(s.env.COURSESYNC_CONFIG_DIR);
    await store.set(STAGING, { token: "staging-secret", saved_at: "2024-01-01T00:00:00Z" });
    const result = await s.cli(["site", "remove", "staging", "--yes"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`coursesync logout --url ${STAGING}`);
    expect(result.stdout + result.stderr).not.toContain("staging-secret");
    expect((await store.get(STAGING))?.token).toBe("staging-secret");
  });
});

describe("site default and set-url", () => {
  it("makes another site the default, keeping the files' ids the old default's, which then cannot be removed", async () => {
    const s = await setup({ staging: true });
    const before = await s.config();
    const result = await s.cli(["site", "default", "staging"]);
    expect(result.code, result.stderr).toBe(0);
    expect(await s.config()).toBe(before.replace("site: production\n", "site: staging\nids: production\n"));
    expect(result.stderr).toContain('The ids in the files stay those of "production"');
    const files = await readTree(s.root);
    const removed = await s.cli(["site", "remove", "production", "--yes"]);
    expect(removed.code).toBe(2);
    expect(removed.stderr).toContain("coursesync site move-ids staging");
    expect(await readTree(s.root)).toEqual(files);
  });

  it("removes the old default when it was never synced: the files' ids follow the default", async () => {
    const s = await setup({ staging: true });
    await rm(path.join(s.root, ".coursesync/production.json"));
    expect((await s.cli(["site", "default", "staging"])).code).toBe(0);
    const removed = await s.cli(["site", "remove", "production", "--yes"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse((await s.cli(["site", "list", "--json"])).stdout).sites).toHaveLength(1);
    expect(await s.config()).toMatch(/^ids: staging$/m);
  });

  it("refuses to point a synced site at a new URL unless --moved, which carries its snapshot over", async () => {
    const s = await setup({ staging: true });
    await stagingState(s.root);
    const moved = "https://new-staging.example.com/api/v1";
    const before = await readTree(s.root);
    const refused = await s.cli(["site", "set-url", "staging", moved]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`.coursesync/staging.json was made for ${STAGING}`);
    expect(refused.stderr).toContain("--moved");
    expect(await readTree(s.root)).toEqual(before);
    const done = await s.cli(["site", "set-url", "staging", moved, "--moved"]);
    expect(done.code, done.stderr).toBe(0);
    expect(await s.config()).toContain(`  staging:\n    url: ${moved}\n`);
    expect((await loadSnapshot(s.root, "staging"))?.site).toBe(moved);
  });

  it("changes the URL of a site never synced", async () => {
    const s = await setup({ staging: true });
    const moved = "https://new-staging.example.com/api/v1";
    const result = await s.cli(["site", "set-url", "staging", "--url", moved]);
    expect(result.code, result.stderr).toBe(0);
    expect(await s.config()).toContain(`  staging:\n    url: ${moved}\n`);
  });
});

describe("--site on every command", () => {
  it.each([
    ["pull"],
    ["pull", "--dry-run"],
    ["push", "--yes"],
    ["push", "--dry-run"],
    ["status"],
    ["diff"],
    ["diff", "--remote"],
    ["watch"],
    ["check"],
    ["login"],
    ["logout"],
  ])("%j --site nosuch: exit 2 naming the known sites", async (...args) => {
    const s = await setup({ staging: true });
    const result = await s.cli([...args, "--site", "nosuch"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('site "nosuch" is not in coursesync.yaml');
    expect(result.stderr).toContain("Known sites: production, staging.");
  });

  it.each([["github"], ["gitlab"], ["publish"], ["backup"]])(
    "ci %s --site nosuch in a git repository: exit 2 naming the known sites, nothing written",
    async (recipe) => {
      const s = await setup({ staging: true });
      const gitEnv = await isolatedGit(s.dir);
      await git(gitEnv, s.root, "init", "-q");
      const before = await readTree(s.root, [".git"]);
      const result = await s.cli(["ci", recipe, "--site", "nosuch"], { env: gitEnv });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('site "nosuch" is not in coursesync.yaml');
      expect(result.stderr).toContain("Known sites: production, staging.");
      expect(await readTree(s.root, [".git"])).toEqual(before);
    },
  );

  it("ci github refuses a site other than the default, which its jobs would not use", async () => {
    const s = await setup({ staging: true });
    const gitEnv = await isolatedGit(s.dir);
    await git(gitEnv, s.root, "init", "-q");
    const result = await s.cli(["ci", "github", "--site", "staging"], { env: gitEnv });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('publish to and back up the default site "production", not "staging"');
    expect(existsSync(path.join(s.root, ".github"))).toBe(false);
  });

  it("check reads the named site's snapshot, not the default's", async () => {
    const s = await setup({ staging: true });
    const staging = await s.cli(["check", "--site", "staging"]);
    expect(staging.stderr).toContain('No snapshot for site "staging"');
    const production = await s.cli(["check"]);
    expect(production.stderr).not.toContain("No snapshot");
  });
});
