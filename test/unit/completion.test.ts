import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completionList, completionNames } from "../../src/cli/commands/completion.js";
import type { CliRun } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/main.js";
import { completionSpec } from "../../src/cli/render/completion-spec.js";
import { runCli } from "../helpers/cli.js";
import { installed, TWO_SITES } from "../helpers/shells.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** A tree with two sites and two course folders (one not yet holding a course.yaml). */
async function tree(): Promise<string> {
  const root = await testdir({
    "coursesync.yaml": TWO_SITES,
    "courses/intro-python/course.yaml": "title: Intro\n",
    "courses/web-dev/01-start.md": "---\ntitle: Start\n---\n",
    "courses/.hidden/course.yaml": "title: no\n",
    "courses/notes.txt": "not a folder\n",
  });
  await mkdir(path.join(root, "courses", "new-course"));
  return root;
}

/** The shell's verdict on a script's syntax (`-n`: read it, run nothing). */
async function syntaxCheck(
  shell: string,
  script: string,
): Promise<{ status: number | null; stderr: string }> {
  const file = path.join(await testdir(), `coursesync.${shell}`);
  await writeFile(file, script);
  const result = spawnSync(shell, ["-n", file], { encoding: "utf8" });
  return { status: result.status, stderr: result.stderr };
}

async function script(shell: string): Promise<string> {
  const result = await runCli(["completion", shell], { cwd: await testdir() });
  expect(result.code).toBe(0);
  expect(result.stderr).toBe("");
  return result.stdout;
}

describe("coursesync completion", () => {
  it("prints a bash script that bash reads without error", async () => {
    const bash = await script("bash");
    expect(await syntaxCheck("bash", bash)).toEqual({ status: 0, stderr: "" });
    expect(bash).toContain("complete -o filenames -F _coursesync coursesync");
  });

  it("prints a zsh script: zsh reads it when installed; a #compdef function either way", async () => {
    const zsh = await script("zsh");
    expect(zsh.startsWith("#compdef coursesync\n")).toBe(true);
    expect(zsh).toContain("compdef _coursesync coursesync");
    expect(zsh).toMatch(/^_coursesync\(\) \{$/m);
    if (installed("zsh")) expect(await syntaxCheck("zsh", zsh)).toEqual({ status: 0, stderr: "" });
    else expect(zsh.match(/\{$/gm)?.length).toBe(zsh.match(/^\}$/gm)?.length);
  });

  it("prints a fish script: fish reads it when installed; complete lines either way", async () => {
    const fish = await script("fish");
    expect(fish).toMatch(/^complete -c coursesync -f$/m);
    expect(fish).toMatch(/^function __coursesync_command$/m);
    if (installed("fish")) expect(await syntaxCheck("fish", fish)).toEqual({ status: 0, stderr: "" });
    else {
      const lines = fish.split("\n").filter((line) => line && !line.startsWith("#"));
      const opened = lines.filter((line) => /^\s*(function|for|if|switch)\b/.test(line)).length;
      expect(lines.filter((line) => /^\s*end$/.test(line)).length).toBe(opened);
    }
  });

  it("names every command and every flag of the program, in each shell", async () => {
    const specs = completionSpec(await buildProgram({} as CliRun));
    const scripts = { bash: await script("bash"), zsh: await script("zsh"), fish: await script("fish") };
    const pull = specs.find((spec) => spec.path === "pull")!;
    expect(pull.flags.flatMap((flag) => flag.names)).toEqual(
      expect.arrayContaining(["-n", "--dry-run", "--events", "--max-delete", "--site", "-C", "--help"]),
    );
    expect(pull.args).toBe("courses");
    expect(specs.find((spec) => spec.path === "site remove")!.args).toBe("sites");
    expect(specs.find((spec) => spec.path === "completion")!.args).toEqual(["bash", "zsh", "fish"]);
    // The helper the scripts call is hidden from people and from the completions.
    expect(specs.find((spec) => spec.path === "completion")!.flags.flatMap((f) => f.names)).not.toContain(
      "--list",
    );
    for (const spec of specs) {
      for (const sub of spec.subcommands) {
        expect(scripts.bash).toMatch(new RegExp(`subs='[^']*\\b${sub.name}\\b`));
        expect(scripts.zsh).toContain(`'${sub.name}:`);
        expect(scripts.fish).toContain(`-a '${sub.name}'`);
      }
      for (const name of spec.flags.flatMap((flag) => flag.names)) {
        expect(scripts.zsh).toContain(`'${name}:`);
        expect(scripts.fish).toContain(name.startsWith("--") ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`);
      }
      expect(scripts.bash).toContain(`'${spec.path}')\n      subs=`);
      expect(scripts.bash).toContain(`flags='${spec.flags.flatMap((flag) => flag.names).join(" ")}'`);
    }
  });

  it("refuses a missing or unknown shell with exit 2", async () => {
    const dir = await testdir();
    const none = await runCli(["completion"], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("completion needs a shell: bash, zsh or fish");
    const tcsh = await runCli(["completion", "tcsh"], { cwd: dir });
    expect(tcsh.code).toBe(2);
    expect(tcsh.stderr).toMatch(
      /'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish/,
    );
  });
});

describe("the names a completion asks for", () => {
  it("lists the tree's sites and its course folders, relative to the working folder", async () => {
    const root = await tree();
    expect(await completionNames("sites", root)).toEqual(["production", "staging"]);
    expect(await completionNames("courses", root)).toEqual([
      "courses/intro-python",
      "courses/new-course",
      "courses/web-dev",
    ]);
    expect(await completionNames("courses", path.join(root, "courses", "web-dev"))).toEqual([
      ".",
      "../intro-python",
      "../new-course",
    ]);
    expect(await completionNames("sites", path.join(root, "courses"))).toEqual(["production", "staging"]);
  });

  it("prints them through the hidden --list helper, one a line", async () => {
    const root = await tree();
    const sites = await runCli(["completion", "--list", "sites"], { cwd: root });
    expect(sites).toEqual({ code: 0, stdout: "production\nstaging\n", stderr: "" });
    const courses = await runCli(["completion", "--list", "courses"], { cwd: root });
    expect(courses.stdout).toBe("courses/intro-python\ncourses/new-course\ncourses/web-dev\n");
    expect(completionList(["completion", "--list", "sites"])).toBe("sites");
    expect(completionList(["completion", "--list", "secrets"])).toBeUndefined();
    expect(completionList(["pull", "--list", "sites"])).toBeUndefined();
  });

  it("is silent outside a tree, with a broken coursesync.yaml, or without a courses folder", async () => {
    const outside = await testdir();
    expect(await completionNames("sites", outside)).toEqual([]);
    expect(await completionNames("courses", outside)).toEqual([]);
    const broken = await testdir({ "coursesync.yaml": "site: [unclosed\n" });
    expect(await completionNames("sites", broken)).toEqual([]);
    expect(await completionNames("courses", broken)).toEqual([]);
    const result = await runCli(["completion", "--list", "sites"], { cwd: broken });
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
    await writeFile(path.join(broken, "coursesync.yaml"), TWO_SITES);
    expect(await completionNames("sites", broken)).toEqual(["production", "staging"]);
  });
});
