import { spawnSync } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installed, TWO_SITES } from "../helpers/shells.js";
import { BIN, runBin } from "../helpers/subprocess.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** Lines a user may press Tab at, and what each must offer. */
const CASES: [line: string, offers: string[]][] = [
  ["coursesync pu", ["pull", "push"]],
  ["coursesync pull --dr", ["--dry-run"]],
  ["coursesync pull courses/", ["courses/intro-python", "courses/web-dev"]],
  ["coursesync push --site ", ["production", "staging"]],
  ["coursesync -C . site remove ", ["production", "staging"]],
  ["coursesync ci pu", ["publish"]],
  ["coursesync completion ", ["bash", "fish", "zsh"]],
];

/** A tree with two sites and two courses, and a folder with a `coursesync` that runs the built CLI. */
async function setUp() {
  const root = await testdir({
    "coursesync.yaml": TWO_SITES,
    "courses/intro-python/course.yaml": "title: Intro\n",
    "courses/web-dev/course.yaml": "title: Web\n",
  });
  const bin = await testdir();
  await writeFile(path.join(bin, "coursesync"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  await chmod(path.join(bin, "coursesync"), 0o755);
  const env = { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, HOME: root };
  return { root, env };
}

/** Write the script of a shell into a file of its own. */
async function scriptFile(shell: string, root: string): Promise<string> {
  const result = await runBin(["completion", shell], { cwd: root });
  expect(result.code).toBe(0);
  const file = path.join(await testdir(), `completion.${shell}`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, result.stdout);
  return file;
}

/** What a shell offers for each line, as sorted words (a folder's name without its slash). */
function offered(shell: string, driver: string, cwd: string, env: Record<string, string>): string[][] {
  const result = spawnSync(shell, ["-c", driver], { cwd, env, encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return result.stdout
    .trimEnd()
    .split("\n")
    .map((line) =>
      [
        ...new Set(
          line
            .split("\t")
            .filter(Boolean)
            .map((word) => word.replace(/\/$/, "")),
        ),
      ].sort(),
    );
}

const expected = CASES.map(([, offers]) => [...offers].sort());

describe("shell completion of the built CLI, in a tree", () => {
  it("bash offers commands, flags, the tree's sites and its course folders", async () => {
    const { root, env } = await setUp();
    const file = await scriptFile("bash", root);
    const driver = [
      `source '${file}'`,
      ...CASES.map(([line]) => {
        const words = line.split(" ");
        return `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _coursesync; (IFS=$'\\t'; echo "\${COMPREPLY[*]}")`;
      }),
    ].join("\n");
    expect(offered("bash", driver, root, env)).toEqual(expected);
  });

  it("fish and zsh offer the same, where they are installed", async () => {
    const { root, env } = await setUp();
    const fish = await scriptFile("fish", root);
    const zsh = await scriptFile("zsh", root);
    if (!installed("fish") || !installed("zsh")) {
      // Where a shell is missing, its script at least asks the tree for the same names.
      for (const file of [fish, zsh]) expect(await readFile(file, "utf8")).toMatch(/--list "?\$/);
    }
    if (installed("fish")) {
      const file = fish;
      const driver = [
        `source '${file}'`,
        ...CASES.map(([line]) => `complete -C'${line}' | string replace -r '\\t.*' '' | string join \\t`),
      ].join("\n");
      expect(offered("fish", driver, root, env)).toEqual(expected);
    }
    if (installed("zsh")) {
      const file = zsh;
      // The completion system's builtins, stood in for: each prints what it would offer.
      const driver = [
        "compdef() { :; }",
        `source '${file}'`,
        `_describe() { local entry; for entry in "\${(@P)4}"; do print -n -- "\${entry%%:*}\\t"; done }`,
        `compadd() { if [[ $1 == -a ]]; then print -n -- "\${(@pj:\\t:P)2}\\t"; fi }`,
        "_files() { :; }",
        "_directories() { :; }",
        ...CASES.map(([line]) => {
          const words = line.split(" ");
          return `words=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; _coursesync; print`;
        }),
      ].join("\n");
      // zsh filters by the typed prefix itself: keep what starts with the last word.
      const filtered = offered("zsh", driver, root, env).map((offers, i) =>
        offers.filter((offer) => offer.startsWith(CASES[i]![0].split(" ").at(-1)!)),
      );
      expect(filtered).toEqual(expected);
    }
  });
});
