import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { cliEnv, pullNewTree } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const shipped = (name: string) =>
  readFile(path.join(import.meta.dirname, "..", "..", "schemas", name), "utf8");

describe("init wires the JSON Schemas up for editors", () => {
  it("writes the shipped schemas into the tree, committed, and points coursesync.yaml and VS Code at them", async () => {
    const emulator = await start({ seedDir: null });
    const { root } = await pullNewTree(emulator);
    for (const name of ["coursesync.schema.json", "course.schema.json", "chapter.schema.json"]) {
      expect(await readFile(path.join(root, ".coursesync/schemas", name), "utf8")).toBe(await shipped(name));
    }
    const config = await readFile(path.join(root, "coursesync.yaml"), "utf8");
    expect(config.split("\n")[0]).toBe(
      "# yaml-language-server: $schema=.coursesync/schemas/coursesync.schema.json",
    );
    expect(JSON.parse(await readFile(path.join(root, ".vscode/settings.json"), "utf8"))).toEqual({
      "yaml.schemas": { "./.coursesync/schemas/course.schema.json": "courses/*/course.yaml" },
    });
    // git takes the schemas and the snapshot folder, and leaves the cache and temp files out.
    await writeFile(path.join(root, ".coursesync/production/site.json.123.4.tmp"), "{");
    await writeFile(path.join(root, ".coursesync/production.pending"), "{}");
    execFileSync("git", ["init", "-q", root]);
    execFileSync("git", ["-C", root, "add", "-A"]);
    const files = execFileSync("git", ["-C", root, "ls-files"], { encoding: "utf8" }).split("\n");
    expect(files).toEqual(
      expect.arrayContaining([".coursesync/schemas/course.schema.json", ".coursesync/production/site.json"]),
    );
    expect(files.filter((file) => file.startsWith(".coursesync/cache"))).toEqual([]);
    expect(files.filter((file) => file.endsWith(".tmp") || file.endsWith(".pending"))).toEqual([]);
  });

  it("keeps VS Code settings the folder already has, and says what to add", async () => {
    const dir = await testdir();
    await mkdir(path.join(dir, ".vscode"));
    await writeFile(path.join(dir, ".vscode/settings.json"), '{ "editor.tabSize": 4 }\n');
    const result = await runCli(["init", "--url", "https://academy.example.com/api/v1"], {
      cwd: dir,
      env: cliEnv(dir),
    });
    expect(result.code).toBe(0);
    expect(await readFile(path.join(dir, ".vscode/settings.json"), "utf8")).toBe('{ "editor.tabSize": 4 }\n');
    expect(result.stderr).toContain('"./.coursesync/schemas/course.schema.json": "courses/*/course.yaml"');
  });
});
