import type { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import type { CliRun } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/main.js";
import { parsed, shellWords } from "../helpers/argv.js";
import { runCli } from "../helpers/cli.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** Every command of the program as the words that reach it: [], ["pull"], ["site", "add"], ... */
function commandPaths(command: Command, above: string[] = []): string[][] {
  return [above, ...command.commands.flatMap((sub) => commandPaths(sub, [...above, sub.name()]))];
}

/** The examples that end a help text: each a comment line, then the command line. */
function examplesOf(help: string): { does: string; line: string }[] {
  const at = help.lastIndexOf("\nExamples:\n");
  expect(at, help).toBeGreaterThan(0);
  const lines = help
    .slice(at + "\nExamples:\n".length)
    .trimEnd()
    .split("\n");
  expect(lines.length % 2).toBe(0);
  const examples = [];
  for (let i = 0; i < lines.length; i += 2) {
    expect(lines[i]).toMatch(/^ {2}# \S/);
    expect(lines[i + 1]).toMatch(/^ {2}coursesync /);
    examples.push({ does: lines[i]!.slice(4), line: lines[i + 1]!.slice(2) });
  }
  return examples;
}

/** The argv a shell line gives coursesync: its words up to a pipe or redirection, less the name. */
function argvOf(line: string): string[] {
  const words = shellWords(line);
  const end = words.findIndex((word) => ["|", ">", ">>", "&&", ";"].includes(word));
  return words.slice(1, end < 0 ? undefined : end);
}

const paths = commandPaths(await buildProgram({} as CliRun));

describe("--help examples", () => {
  it("covers every command", () => {
    expect(paths.map((words) => words.join(" "))).toEqual(
      expect.arrayContaining(["", "init", "pull", "push", "site add", "ci backup", "watch", "status"]),
    );
  });

  it.each(paths.map((words) => [words.join(" ") || "(coursesync)", words] as const))(
    "%s: its help ends with 2 to 4 examples that the real command line parses",
    async (_name, words) => {
      const dir = await testdir();
      const help = await runCli([...words, "--help"], { cwd: dir });
      expect(help.code).toBe(0);
      const examples = examplesOf(help.stdout);
      expect(examples.length).toBeGreaterThanOrEqual(2);
      expect(examples.length).toBeLessThanOrEqual(4);
      for (const example of examples) {
        const argv = argvOf(example.line);
        await expect(parsed(argv), example.line).resolves.toMatchObject({ command: expect.any(String) });
      }
      // The first example of a command shows that command itself.
      if (words.length > 0) expect(argvOf(examples[0]!.line).slice(0, words.length)).toEqual(words);
    },
  );

  it("shows the global options in a command's help, --url in init's", async () => {
    const dir = await testdir();
    const help = await runCli(["init", "--help"], { cwd: dir });
    expect(help.stdout).toMatch(/Global Options:\n[\s\S]*-C, --dir <path>[\s\S]*--url <api-base-url>/);
    expect(help.stdout).toContain("Usage: coursesync init [dir] --url <api-base-url> [--site <name>]");
  });

  it("a globbed or quoted example keeps its words", async () => {
    const seen = await parsed(argvOf("coursesync ci github --branch trunk --cron '0 3 * * *' --force"));
    expect(seen).toMatchObject({ command: "ci github", options: { cron: "0 3 * * *", force: true } });
  });
});
