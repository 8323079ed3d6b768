import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { initTree } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** Prompts that answer the e-mail, then each password in turn, and record what was asked. */
function typed(email: string, passwords: string[]) {
  const asked: string[] = [];
  const left = [...passwords];
  return {
    asked,
    prompts: {
      input: async (message: string) => {
        asked.push(`input:${message}`);
        return email;
      },
      password: async (message: string) => {
        asked.push(`password:${message}`);
        const next = left.shift();
        if (next === undefined) throw new Error("asked for more passwords than typed");
        return next;
      },
    },
  };
}

function logins(emulator: { state: { requests: Array<{ path: string }> } }): number {
  return emulator.state.requests.filter((r) => r.path === "/api/login").length;
}

/** `coursesync login` on a terminal against a new emulator, typing the passwords given. */
async function loginOnTerminal(passwords: string[]) {
  const emulator = await start({ seedDir: null });
  const dir = await testdir();
  const user = typed("demo@example.com", passwords);
  const result = await runCli(["login", "--url", emulator.baseUrl], {
    cwd: dir,
    env: { COURSESYNC_CONFIG_DIR: path.join(dir, "config") },
    tty: true,
    prompts: user.prompts,
  });
  return { emulator, dir, user, result };
}

describe("login on a terminal", () => {
  it("asks a refused password again, and logs in with the third", async () => {
    const { emulator, dir, user, result } = await loginOnTerminal([
      "wrong-one-1",
      "wrong-two-2",
      "coursesync",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(user.asked).toEqual([
      `input:E-mail for ${emulator.baseUrl}`,
      "password:Password",
      "password:Password",
      "password:Password",
    ]);
    expect(result.stderr).toContain("warning: Invalid email or password: try again (2 tries left).");
    expect(result.stderr).toContain("warning: Invalid email or password: try again (1 try left).");
    expect(result.stderr).toContain("Logged in to");
    expect(logins(emulator)).toBe(3);
    expect(await readFile(path.join(dir, "config", "credentials.json"), "utf8")).toContain(emulator.baseUrl);
    expect(result.stderr + result.stdout).not.toMatch(/wrong-one-1|wrong-two-2/);
  });

  it("gives up after three refused passwords with a clear message and exit 1", async () => {
    const { emulator, result } = await loginOnTerminal(["bad-pass-1", "bad-pass-2", "bad-pass-3"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `coursesync: ${emulator.baseUrl} refused the e-mail and password 3 times (Invalid email or password)`,
    );
    expect(result.stderr).toContain("Check the e-mail (demo@example.com) and the password");
    expect(logins(emulator)).toBe(3);
    expect(result.stderr + result.stdout).not.toMatch(/bad-pass-\d/);
  });

  it("a command that needs a login asks for it the same way, and keeps the token as login does", async () => {
    const emulator = await start({ seedDir: null });
    const tree = await initTree(emulator);
    const env = { COURSESYNC_CONFIG_DIR: tree.env.COURSESYNC_CONFIG_DIR };
    const user = typed("demo@example.com", ["typo-pass", "coursesync"]);
    const result = await runCli(["pull"], { cwd: tree.root, env, tty: true, prompts: user.prompts });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("try again (2 tries left)");
    const again = await runCli(["pull"], { cwd: tree.root, env });
    expect(again.code, again.stderr).toBe(0);
    expect(logins(emulator)).toBe(2);
  });

  it("a URL that is not the API is not asked again: typing cannot fix it", async () => {
    const dir = await testdir();
    const emulator = await start({ seedDir: null });
    const wrong = emulator.baseUrl.replace("/api/v1", "/nope/api/v1");
    const user = typed("demo@example.com", ["coursesync"]);
    const result = await runCli(["login", "--url", wrong], {
      cwd: dir,
      env: { COURSESYNC_CONFIG_DIR: path.join(dir, "config") },
      tty: true,
      prompts: user.prompts,
    });
    expect(result.code).toBe(1);
    expect(user.asked.filter((a) => a.startsWith("password"))).toHaveLength(1);
    expect(result.stderr).not.toContain("try again");
  });
});
