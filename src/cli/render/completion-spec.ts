import type { Command, Option } from "commander";

/**
 * What a word completes to: the tree's site names, its course folders (then any file), folders,
 * a fixed list of words, or nothing the shell can guess.
 */
export type Completes = "sites" | "courses" | "dirs" | "free" | readonly string[];

/** One flag of a command, with every name it goes by. */
export interface FlagSpec {
  /** `-n`, `--dry-run`: the short name first when there is one. */
  names: string[];
  description: string;
  /** What its value completes to; undefined for a flag that takes no value. */
  value?: Completes;
}

/** One command, as the completion scripts need it. */
export interface CommandSpec {
  /** The words that reach it: "" for coursesync itself, "pull", "site add". */
  path: string;
  /** Its subcommands, each with its description. */
  subcommands: { name: string; description: string }[];
  /** Its own flags, the global ones and --help. */
  flags: FlagSpec[];
  /** What its arguments complete to, when it takes any. */
  args?: Completes;
}

/** Option values that name something the scripts can list (by the option's attribute name). */
const VALUES: Record<string, Completes> = { site: "sites", dir: "dirs", seed: "dirs" };

/** Site commands whose argument is a site already in coursesync.yaml. */
const SITE_ARGUMENTS = new Set(["site remove", "site default", "site set-url"]);

const HELP_FLAG: FlagSpec = { names: ["-h", "--help"], description: "display help for command" };

function flagOf(option: Option): FlagSpec {
  const names = [option.short, option.long].filter((name): name is string => name !== undefined);
  const takesValue = option.required || option.optional;
  const value = option.argChoices ?? VALUES[option.attributeName()] ?? "free";
  return { names, description: option.description, ...(takesValue ? { value } : {}) };
}

function argsOf(command: Command, path: string): Completes | undefined {
  const first = command.registeredArguments[0];
  if (!first) return undefined;
  if (first.argChoices) return first.argChoices;
  if (SITE_ARGUMENTS.has(path)) return "sites";
  if (first.name() === "paths") return "courses";
  if (first.name() === "dir") return "dirs";
  return "free";
}

/** Every command of the program with its flags and arguments: what the scripts are made from. */
export function completionSpec(program: Command): CommandSpec[] {
  const globals = program.options.filter((option) => !option.hidden).map(flagOf);
  const specs: CommandSpec[] = [];
  const visit = (command: Command, path: string) => {
    const own = command === program ? [] : command.options.filter((option) => !option.hidden).map(flagOf);
    const args = argsOf(command, path);
    specs.push({
      path,
      subcommands: command.commands.map((sub) => ({ name: sub.name(), description: sub.description() })),
      flags: [...own, ...globals, HELP_FLAG],
      ...(args ? { args } : {}),
    });
    for (const sub of command.commands) visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, "");
  return specs;
}

/** The flags of a command that take a value (the word after one is not a command). */
export function valuedFlags(spec: CommandSpec): string[] {
  return spec.flags.filter((flag) => flag.value !== undefined).flatMap((flag) => flag.names);
}
