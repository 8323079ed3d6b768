import type { Command } from "commander";
import type { CliRun } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/main.js";

/** Split a shell command line into words: spaces separate, single quotes quote (as the recipes write). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed quote in ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === "\\" && line[i + 1] === "'") {
      word = `${word ?? ""}'`;
      i++;
    } else if (c === " ") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** What the real command line makes of `argv`: the command reached, its options and the globals. */
export async function parsed(argv: readonly string[]) {
  let seen:
    | { command: string; options: Record<string, unknown>; globals: Record<string, unknown> }
    | undefined;
  const io = {} as CliRun;
  const program = await buildProgram(io);
  program.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  const record = (command: Command, names: string[]) => {
    for (const sub of command.commands) {
      const name = [...names, sub.name()];
      sub.action((...args: unknown[]) => {
        const self = args[args.length - 1] as Command;
        seen = { command: name.join(" "), options: self.opts(), globals: self.optsWithGlobals() };
      });
      record(sub, name);
    }
  };
  record(program, []);
  await program.parseAsync([...argv], { from: "user" });
  if (!seen) throw new Error(`no command ran for ${argv.join(" ")}`);
  return seen;
}
