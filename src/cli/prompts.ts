import confirm from "@inquirer/confirm";
import input from "@inquirer/input";
import password from "@inquirer/password";
import { InterruptedError } from "../errors.js";
import type { Prompts } from "./io.js";

/** Ctrl-C at a prompt ends the run quietly: "aborted", exit 130, no stack trace. */
export async function abortable<T>(question: Promise<T>): Promise<T> {
  try {
    return await question;
  } catch (error) {
    if (error instanceof Error && error.name === "ExitPromptError") {
      throw new InterruptedError("SIGINT", "aborted");
    }
    throw error;
  }
}

/** Prompts on the terminal, drawn on stderr so stdout stays for results. */
export function terminalPrompts(): Prompts {
  const context = { output: process.stderr };
  return {
    input: (message) => abortable(input({ message, required: true }, context)),
    // No `mask`: nothing of the password is drawn, not even one star a character.
    password: (message) => abortable(password({ message }, context)),
    confirm: (message) => abortable(confirm({ message, default: false }, context)),
  };
}
