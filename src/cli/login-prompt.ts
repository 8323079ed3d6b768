import { LoginRefusedError } from "../api/auth.js";
import { ApiClient } from "../api/client.js";
import { UserError } from "../errors.js";
import { counted } from "../util/words.js";
import type { CliRun } from "./io.js";

/** How many passwords a person may type before a login on the terminal gives up. */
const LOGIN_TRIES = 3;

/** A login done on the terminal: what was typed, and the token the site gave. */
export interface PromptedLogin {
  email: string;
  password: string;
  token: string;
}

/**
 * Ask the e-mail, then the password (nothing of it echoed, not even its length), and log in.
 * A password the site refuses is asked again, LOGIN_TRIES times in all, then the run fails
 * saying so. Any other failure (the URL, the network) fails at once: typing again cannot help.
 */
export async function promptLogin(
  run: CliRun,
  siteUrl: string,
  options: { log?: (line: string) => void; warn: (line: string) => void },
): Promise<PromptedLogin> {
  const email = await run.prompts.input(`E-mail for ${siteUrl}`);
  for (let attempt = 1; ; attempt += 1) {
    const password = await run.prompts.password("Password");
    try {
      return { email, password, token: await logIn(run, siteUrl, { email, password }, options.log) };
    } catch (error) {
      if (!(error instanceof LoginRefusedError)) throw error;
      const said = error.serverMessage || `${error.status} ${error.statusText}`.trim();
      if (attempt >= LOGIN_TRIES) {
        throw new UserError(`${siteUrl} refused the e-mail and password ${LOGIN_TRIES} times (${said})`, {
          hint: `Check the e-mail (${email}) and the password, then run \`coursesync login\` again; a forgotten password is reset on the site itself.`,
        });
      }
      options.warn(`${said}: try again (${counted(LOGIN_TRIES - attempt, "try", "tries")} left).`);
    }
  }
}

/** Log in once with an e-mail and password; returns the token. */
export async function logIn(
  run: CliRun,
  siteUrl: string,
  credentials: { email: string; password: string },
  log?: (line: string) => void,
): Promise<string> {
  const client = new ApiClient({ baseUrl: siteUrl, credentials, sleep: run.sleep, now: run.now, log });
  try {
    return await client.login();
  } finally {
    client.close();
  }
}
