import { readdir } from "node:fs/promises";
import path from "node:path";
import { Argument, type Command, Option } from "commander";
import { findRoot, loadConfig } from "../../config/config.js";
import { usageError } from "../../errors.js";
import { COURSES_DIR } from "../../tree/layout.js";
import { COMMAND_LIST } from "../command-list.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { completionScript, LISTS, type List, SHELLS, type Shell } from "../render/completion-scripts.js";
import { completionSpec } from "../render/completion-spec.js";

const EXAMPLES: Example[] = [
  {
    does: "bash: load it in every new shell",
    line: "coursesync completion bash > ~/.local/share/bash-completion/completions/coursesync",
  },
  {
    does: "zsh: into a folder on fpath (in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath))",
    line: "coursesync completion zsh > ~/.zfunc/_coursesync",
  },
  { does: "fish", line: "coursesync completion fish > ~/.config/fish/completions/coursesync.fish" },
];

/**
 * The names a completion script asks for while the user types: the sites of the tree in `cwd`
 * (or above it) and its course folders, relative to `cwd`. Nothing at all when there is no tree
 * or it cannot be read: a completion must never print an error into the user's line.
 */
export async function completionNames(what: List, cwd: string): Promise<string[]> {
  try {
    const root = findRoot(cwd);
    if (root === undefined) return [];
    if (what === "sites") return Object.keys((await loadConfig(root)).sites);
    const entries = await readdir(path.join(root, COURSES_DIR), { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => path.relative(cwd, path.join(root, COURSES_DIR, entry.name)) || ".")
      .map((name) => name.split(path.sep).join("/"))
      .sort();
  } catch {
    return [];
  }
}

/** The list asked for when argv is exactly what the scripts run: `completion --list <what>`. */
export function completionList(argv: readonly string[]): List | undefined {
  const what = argv[2] as List;
  return argv.length === 3 && argv[0] === "completion" && argv[1] === "--list" && LISTS.includes(what)
    ? what
    : undefined;
}

/** `coursesync completion bash|zsh|fish`: print a completion script made from the program itself. */
export function registerCompletion(program: Command, run: CliRun): void {
  program
    .command("completion")
    .description(COMMAND_LIST.completion.description)
    .addArgument(new Argument("[shell]", "the shell to complete for").choices(SHELLS))
    // What the scripts call back at completion time; not for people, so not in the help.
    .addOption(
      new Option("--list <what>", "print the tree's site names or course folders").choices(LISTS).hideHelp(),
    )
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (shell: Shell | undefined, flags: { list?: List }) => {
      if (flags.list !== undefined) {
        for (const name of await completionNames(flags.list, run.cwd)) run.stdout.write(`${name}\n`);
        return;
      }
      if (shell === undefined) {
        throw usageError(
          "completion needs a shell: bash, zsh or fish",
          "Example: coursesync completion bash",
        );
      }
      run.stdout.write(completionScript(shell, completionSpec(program)));
    });
}
