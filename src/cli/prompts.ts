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

/** Prompts on the terminal, drawn on stderr so stdout stays for results; loaded when first asked. */
export function terminalPrompts(): Prompts {
  const context = { output: process.stderr };
  return {
    input: async (message) => {
      const { default: input } = await import("@inquirer/input");
      return abortable(input({ message, required: true }, context));
    },
    // No `mask`: nothing of the password is drawn, not even one star a character.
    password: async (message) => {
      const { default: password } = await import("@inquirer/password");
      return abortable(password({ message }, context));
    },
    confirm: async (message) => {
      const { default: confirm } = await import("@inquirer/confirm");
      return abortable(confirm({ message, default: false }, context));
    },
  };
}
