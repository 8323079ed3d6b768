import type { Command } from "commander";
import { resolveSite } from "../../config/config.js";
import { CredentialStore, configDir } from "../../config/credentials.js";
import { UserError } from "../../errors.js";
import { COMMAND_LIST } from "../command-list.js";
import { envLogin } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { logIn, promptLogin } from "../login-prompt.js";
import { Output } from "../output.js";
import { maybeOpenTree } from "../tree-root.js";

const LOGIN_EXAMPLES: Example[] = [
  { does: "asks for e-mail and password, stores a token outside the tree", line: "coursesync login" },
  { does: "log in to another site of coursesync.yaml", line: "coursesync login --site staging" },
  {
    does: "make the COURSESYNC_TOKEN secret of the CI recipes (GitHub CLI)",
    line: "coursesync login --print-token | gh secret set COURSESYNC_TOKEN",
  },
];

const LOGOUT_EXAMPLES: Example[] = [
  { does: "forget the token of the default site", line: "coursesync logout" },
  { does: "of another site", line: "coursesync logout --site staging" },
];

/**
 * `coursesync login [--site <name>] [--print-token]`: log in and store the token outside the
 * tree; with --print-token, print it on stdout instead (for a CI secret) and store nothing.
 */
export function registerLogin(program: Command, run: CliRun): void {
  program
    .command("login")
    .description(COMMAND_LIST.login.description)
    .option(
      "--print-token",
      "print the token alone on stdout (for a CI secret such as COURSESYNC_TOKEN) and store nothing",
    )
    .addHelpText("after", examplesText(LOGIN_EXAMPLES))
    .action(async (options: { printToken?: boolean }, command: Command) => {
      const globals = globalsOf(command);
      const out = new Output(run, globals.quiet);
      const tree = await maybeOpenTree(run, globals);
      const site = resolveSite(tree?.config, globals);
      const log = globals.verbose ? (line: string) => out.info(line) : undefined;
      const fromEnv = envLogin(run);
      if (!fromEnv && !run.stdinIsTTY) {
        throw new UserError(`no terminal to ask for the e-mail and password of ${site.url}`, {
          hint: "Set COURSESYNC_EMAIL and COURSESYNC_PASSWORD, or COURSESYNC_TOKEN to skip the login.",
        });
      }
      const { email, token } = fromEnv
        ? { email: fromEnv.email, token: await logIn(run, site.url, fromEnv, log) }
        : await promptLogin(run, site.url, { log, warn: (line) => out.warn(line) });
      if (options.printToken) {
        // Only the token goes to stdout, so `coursesync login --print-token | gh secret set ...` works.
        run.stdout.write(`${token}\n`);
        out.info(
          `Logged in to ${site.url} as ${email}; the token is printed above, not stored. ` +
            "How long it stays valid the API does not say: when jobs fail with 401, print a new one.",
        );
        return;
      }
      const store = new CredentialStore(configDir(run.env));
      await store.set(site.url, { token, email, saved_at: new Date(run.now()).toISOString() });
      out.info(`Logged in to ${site.url} as ${email}. Token stored in ${store.file}.`);
    });
}

/** `coursesync logout [--site <name>]`: forget the stored token of a site. */
export function registerLogout(program: Command, run: CliRun): void {
  program
    .command("logout")
    .description(COMMAND_LIST.logout.description)
    .addHelpText("after", examplesText(LOGOUT_EXAMPLES))
    .action(async (_options: unknown, command: Command) => {
      const globals = globalsOf(command);
      const out = new Output(run, globals.quiet);
      const tree = await maybeOpenTree(run, globals);
      const site = resolveSite(tree?.config, globals);
      const store = new CredentialStore(configDir(run.env));
      const removed = await store.delete(site.url);
      out.info(removed ? `Logged out of ${site.url}.` : `No stored token for ${site.url}; nothing to do.`);
    });
}
