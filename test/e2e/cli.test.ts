import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import type { CliRun } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/main.js";
import { parseChapterFile } from "../../src/tree/chapter-file.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { equivalentHtml } from "../../src/tree/markdown/index.js";
import { type CliEnv, cliEnv } from "../helpers/site.js";
import { BIN, runBin, startBinEmulator } from "../helpers/subprocess.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const GLOBAL_OPTIONS = [
  "-C, --dir <path>",
  "--site <name>",
  "--url <api-base-url>",
  "-v, --verbose",
  "-q, --quiet",
  "--no-progress",
];

const SAMPLE = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "sample-site");

/** A tree the built CLI made for the site at this URL, and the environment to run it in. */
async function binTree(url: string): Promise<{ tree: string; env: CliEnv }> {
  const dir = await testdir();
  const env = cliEnv(dir);
  expect((await runBin(["init", "school", "--url", url], { cwd: dir, env })).code).toBe(0);
  return { tree: path.join(dir, "school"), env };
}

describe("the built CLI", () => {
  it("prints help and its version, and rejects an unknown command with exit 2", async () => {
    const dir = await testdir();
    const help = await runBin(["--help"], { cwd: dir });
    expect(help.code).toBe(0);
    for (const command of ["init", "login", "logout", "pull", "emulator"])
      expect(help.stdout).toContain(command);
    const version = await runBin(["--version"], { cwd: dir });
    const pkg = JSON.parse(await readFile(path.join(SAMPLE, "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(version.stdout.trim()).toBe(pkg.version);
    // What npm links as the command: the bundled one these tests run, a script for node.
    const bin = (pkg as unknown as { bin: Record<string, string> }).bin.coursesync!;
    expect(path.resolve(SAMPLE, "..", bin)).toBe(BIN);
    expect(await readFile(BIN, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    const bad = await runBin(["pul"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown command 'pul'/);
    expect(bad.stderr).toMatch(/Did you mean pull\?/);
  });

  it("ends every command's --help with examples and lists the global options there", async () => {
    const dir = await testdir();
    const commands = (command: Command, above: string[]): string[][] =>
      command.commands.flatMap((sub) => [[...above, sub.name()], ...commands(sub, [...above, sub.name()])]);
    const all = commands(await buildProgram({} as CliRun), []);
    expect(all.length).toBeGreaterThan(15);
    const helps = await Promise.all(all.map((words) => runBin([...words, "--help"], { cwd: dir })));
    for (const [i, help] of helps.entries()) {
      const name = `${all[i]!.join(" ")} --help`;
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toMatch(/\nExamples:\n {2}# .+\n {2}coursesync .+\n[\s\S]*$/);
      const globals = help.stdout.slice(help.stdout.indexOf("Global Options:"));
      for (const option of GLOBAL_OPTIONS) expect(globals, name).toContain(option);
    }
  }, 120_000);

  it("runs the main job against its own emulator: init, login, pull, and a pull that writes nothing", async () => {
    const emulator = await startBinEmulator();
    try {
      const { tree, env } = await binTree(emulator.url);
      expect((await runBin(["login"], { cwd: tree, env })).code).toBe(0);
      const pull = await runBin(["pull", "--json"], {
        cwd: tree,
        env: { COURSESYNC_CONFIG_DIR: env.COURSESYNC_CONFIG_DIR },
      });
      expect(pull.code).toBe(0);
      const summary = JSON.parse(pull.stdout) as { counts: { created: number }; files_written: number };
      expect(summary.counts.created).toBe(16);
      // Chapters come as Markdown where that is proven lossless: each says the sample's HTML.
      const pulled = await readTree(path.join(tree, "courses"));
      const sample = await readTree(path.join(SAMPLE, "courses"));
      expect(Object.keys(pulled)).toEqual(Object.keys(sample));
      const markdown = Object.entries(pulled).filter(
        ([name, text]) => name.endsWith(".md") && !/^format:/m.test(text),
      );
      expect(markdown.length).toBeGreaterThan(0);
      for (const [name, text] of Object.entries(pulled)) {
        if (!name.endsWith(".md")) {
          expect(text).toBe(sample[name]);
          continue;
        }
        const mine = parseChapterFile(text, name);
        const theirs = parseChapterFile(sample[name]!, name);
        expect(equivalentHtml(markdownCodec.toHtml(mine.body, mine.format, name), theirs.body), name).toBe(
          true,
        );
      }
      const again = await runBin(["pull"], { cwd: tree, env });
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/wrote 0 files \(already up to date\)/);
      expect(again.stdout + again.stderr).not.toContain("coursesync\n");

      // With body: html, the same pull gives the sample site back byte for byte, sending nothing.
      const config = path.join(tree, "coursesync.yaml");
      await writeFile(config, (await readFile(config, "utf8")).replace("body: markdown", "body: html"));
      const html = await runBin(["pull"], { cwd: tree, env });
      expect(html.code).toBe(0);
      expect(await readTree(path.join(tree, "courses"))).toEqual(sample);
    } finally {
      await emulator.stop();
    }
  });

  it("pulls without loading HTTP/2 support or the locale data, which got loads as it starts but no request of ours uses", async () => {
    const emulator = await startBinEmulator();
    try {
      const { tree, env } = await binTree(emulator.url);
      expect((await runBin(["login"], { cwd: tree, env })).code).toBe(0);
      // Told by node itself as the command exits: the modules it loaded; and how many Intl
      // objects were made (the first loads the locale data).
      const loaded = path.join(path.dirname(tree), "loaded.json");
      const preload = path.join(path.dirname(tree), "loaded.mjs");
      await writeFile(
        preload,
        [
          'import { writeFileSync } from "node:fs";',
          "const made = [];",
          'for (const name of ["Collator", "DateTimeFormat", "ListFormat", "NumberFormat", "PluralRules", "Segmenter"]) {',
          "  const Made = Intl[name];",
          "  Intl[name] = class extends Made { constructor(...args) { super(...args); made.push(name); } };",
          "}",
          `process.on("exit", () => writeFileSync(${JSON.stringify(loaded)}, JSON.stringify({ modules: process.moduleLoadList, made })));`,
          "",
        ].join("\n"),
      );
      const pull = await runBin(["pull"], {
        cwd: tree,
        env: { ...env, NODE_OPTIONS: `--import=${preload}` },
      });
      expect(pull.code).toBe(0);
      const { modules, made } = JSON.parse(await readFile(loaded, "utf8")) as {
        modules: string[];
        made: string[];
      };
      expect(modules).toContain("NativeModule http");
      expect(modules).not.toContain("NativeModule http2");
      expect(made).toEqual([]);
    } finally {
      await emulator.stop();
    }
  });

  it("writes a first pull's files on its threads while the listing arrives, as bundled", async () => {
    // A thread's script that the bundle broke would not stop the pull: its files would be
    // written after the listing, and -v says so (see the integration test of that line).
    const emulator = await startBinEmulator();
    try {
      const { tree, env } = await binTree(emulator.url);
      const pull = await runBin(["pull", "-v"], { cwd: tree, env });
      expect(pull.code, pull.stderr).toBe(0);
      expect(pull.stdout).toMatch(/16 created; wrote 16 files/);
      expect(pull.stderr).not.toMatch(/^staging:/m);
    } finally {
      await emulator.stop();
    }
  });

  it("stops the emulator cleanly on SIGINT", async () => {
    const emulator = await startBinEmulator(["--empty"]);
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    await emulator.stop();
    expect(emulator.child.exitCode).toBe(0);
  });
});
