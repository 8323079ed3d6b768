import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { LOGIN } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

async function setup() {
  const emulator = await start({ seedDir: null });
  const dir = await testdir();
  const configDir = path.join(dir, "user-config");
  const tree = path.join(dir, "tree");
  const env = { COURSESYNC_CONFIG_DIR: configDir };
  return { emulator, dir, tree, configDir, env };
}

describe("init", () => {
  it("writes coursesync.yaml, .gitignore and .gitattributes, and refuses to run twice", async () => {
    const { emulator, dir, tree, env } = await setup();
    const first = await runCli(["init", "tree", "--url", emulator.baseUrl], { cwd: dir, env });
    expect(first.code).toBe(0);
    const config = await readFile(path.join(tree, "coursesync.yaml"), "utf8");
    expect(config).toContain(`url: ${emulator.baseUrl}`);
    expect(config).toContain("site: production");
    expect(await readFile(path.join(tree, ".gitignore"), "utf8")).toContain("!.coursesync/*.json");
    expect(await readFile(path.join(tree, ".gitattributes"), "utf8")).toContain("courses/** -text");
    const again = await runCli(["init", "tree", "--url", emulator.baseUrl], { cwd: dir, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
  });

  it("keeps an existing .gitignore and appends its block once", async () => {
    const dir = await testdir({ ".gitignore": "node_modules/" });
    const result = await runCli(["init", "--url", "https://academy.example.com/api/v1", "--site", "prod"], {
      cwd: dir,
    });
    expect(result.code).toBe(0);
    const ignore = await readFile(path.join(dir, ".gitignore"), "utf8");
    expect(ignore.startsWith("node_modules/\n\n# coursesync")).toBe(true);
    expect(await readFile(path.join(dir, "coursesync.yaml"), "utf8")).toContain("site: prod\n");
  });

  it.each([
    [["init", "--url", "academy.example.com"], /not a URL/],
    [["init", "--url", "https://academy.example.com/api"], /does not end in \/api\/v1/],
    [["init", "--url", "ftp://academy.example.com/api/v1"], /must use http or https/],
    [["init"], /init needs --url/],
    [["frobnicate"], /unknown command/],
    [["init", "--colour"], /unknown option/],
  ])("rejects %j with exit 2 and says what is expected", async (args, message) => {
    const dir = await testdir();
    const result = await runCli(args, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe("login and logout", () => {
  it("logs in from the environment and stores the token 0600 outside the tree", async () => {
    const { emulator, dir, tree, configDir, env } = await setup();
    await runCli(["init", "tree", "--url", emulator.baseUrl], { cwd: dir, env });
    const result = await runCli(["login"], { cwd: tree, env: { ...env, ...LOGIN } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("Logged in");
    const file = path.join(configDir, "credentials.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, "utf8")) as { tokens: Record<string, { token: string }> };
    const token = stored.tokens[emulator.baseUrl]?.token;
    expect(token).toBeTruthy();
    expect(emulator.state.checkToken(token!)).toBeTruthy();
    expect(result.stderr + result.stdout).not.toContain("coursesync\n");
    const logout = await runCli(["logout"], { cwd: tree, env });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain("Logged out");
    expect(JSON.parse(await readFile(file, "utf8").catch(() => '{"tokens":{}}')).tokens).toEqual({});
  });

  it("login --print-token prints the token alone on stdout, stores nothing, and the token works", async () => {
    const { emulator, dir, configDir, env } = await setup();
    const result = await runCli(["login", "--print-token", "--url", emulator.baseUrl, "-v"], {
      cwd: dir,
      env: { ...env, ...LOGIN },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^[^\s]+\n$/);
    const token = result.stdout.trim();
    expect(emulator.state.checkToken(token)).toBeTruthy();
    // -v logs the login request on stderr, with neither the password nor the token.
    expect(result.stderr).toMatch(/POST \S*\/api\/login/);
    expect(result.stderr).not.toContain(token);
    expect(result.stderr).not.toContain(LOGIN.COURSESYNC_PASSWORD);
    expect(result.stderr).toContain("not stored");
    await expect(stat(path.join(configDir, "credentials.json"))).rejects.toThrow(/ENOENT/);
  });

  it("asks on a terminal, hiding nothing but the password from the prompts", async () => {
    const { emulator, dir, env } = await setup();
    const asked: string[] = [];
    const result = await runCli(["login", "--url", emulator.baseUrl], {
      cwd: dir,
      env,
      tty: true,
      prompts: {
        input: async (message) => {
          asked.push(`input:${message}`);
          return "demo@example.com";
        },
        password: async (message) => {
          asked.push(`password:${message}`);
          return "coursesync";
        },
      },
    });
    expect(result.code).toBe(0);
    expect(asked).toEqual([`input:E-mail for ${emulator.baseUrl}`, "password:Password"]);
  });

  it("fails with the server's message and never prints the password", async () => {
    const { emulator, dir, env } = await setup();
    const result = await runCli(["login", "--url", emulator.baseUrl], {
      cwd: dir,
      env: { ...env, COURSESYNC_EMAIL: "demo@example.com", COURSESYNC_PASSWORD: "hunter2-wrong" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Invalid email or password/);
    expect(result.stderr + result.stdout).not.toContain("hunter2-wrong");
  });

  it("without a terminal or credentials, says which variables to set", async () => {
    const { emulator, dir, tree, env } = await setup();
    const result = await runCli(["login", "--url", emulator.baseUrl], { cwd: dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/COURSESYNC_EMAIL and COURSESYNC_PASSWORD/);
    await runCli(["init", "tree", "--url", emulator.baseUrl, "--no-check"], { cwd: dir, env });
    const pull = await runCli(["pull"], { cwd: tree, env });
    expect(pull.code).toBe(1);
    expect(pull.stderr).toMatch(
      /no credentials for .*\n.*COURSESYNC_TOKEN.*COURSESYNC_EMAIL and COURSESYNC_PASSWORD/,
    );
    expect(emulator.state.requests).toHaveLength(0);
  });

  it("refuses a COURSESYNC_TOKEN pasted with its line break, before any request, without echoing it", async () => {
    const { emulator, dir, tree, env } = await setup();
    await runCli(["init", "tree", "--url", emulator.baseUrl, "--no-check"], { cwd: dir, env });
    const pull = await runCli(["pull"], {
      cwd: tree,
      env: { ...env, COURSESYNC_TOKEN: "tok_secret_value\n" },
    });
    expect(pull.code).toBe(2);
    expect(pull.stderr).toContain("COURSESYNC_TOKEN holds a space, line break or control character");
    expect(pull.stderr + pull.stdout).not.toContain("tok_secret_value");
    expect(emulator.state.requests).toHaveLength(0);
  });

  it("names an unreachable host without secrets and exits 1", async () => {
    const { emulator, dir, env } = await setup();
    const url = emulator.baseUrl;
    await emulator.close();
    const result = await runCli(["login", "--url", url], {
      cwd: dir,
      env: { ...env, COURSESYNC_EMAIL: "demo@example.com", COURSESYNC_PASSWORD: "s3cret-pw" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(new URL(url).host);
    expect(result.stderr).not.toContain("s3cret-pw");
  });
});

describe("a broken coursesync.yaml", () => {
  it("stops every command with the file, the line and exit 2", async () => {
    const dir = await testdir({ "coursesync.yaml": "sites:\n  production:\n    url: [oops\n" });
    await writeFile(path.join(dir, "x"), "");
    const result = await runCli(["pull"], { cwd: dir, env: LOGIN });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/coursesync\.yaml:\d+: YAML does not parse/);
  });
});
