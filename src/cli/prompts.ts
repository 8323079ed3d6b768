import confirm from "@inquirer/confirm";
import input from "@inquirer/input";
import password from "@inquirer/password";
import type { Prompts } from "./io.js";

/** Prompts on the terminal, drawn on stderr so stdout stays for results. */
export function terminalPrompts(): Prompts {
  const context = { output: process.stderr };
  return {
    input: (message) => input({ message, required: true }, context),
    password: (message) => password({ message, mask: true }, context),
    confirm: (message) => confirm({ message, default: false }, context),
  };
}
