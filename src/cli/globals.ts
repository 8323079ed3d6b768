import type { Command } from "commander";
import type { GlobalOptions } from "./io.js";

/** The global options as a command sees them, wherever on the line they were given. */
export function globalsOf(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions;
}
