import { UserError } from "../errors.js";
import { wrongUrlHint } from "./advice.js";
import { CREDENTIALS_HINT, LoginRefusedError } from "./errors.js";
import { loginUrlFor, redactUrl, siteKey } from "./login-url.js";
import { apiError, apiErrorInit, authToken, type Exchange, isOk, wrongUrlError } from "./responses.js";
import { scrubSecrets } from "./secrets.js";
import type { ClientStats, RequestSpec, Session } from "./transport.js";

export { LoginRefusedError } from "./errors.js";

/** How the client proves who it is. A token wins; e-mail and password log in when needed. */
export interface Credentials {
  token?: string;
  email?: string;
  password?: string;
  /**
   * Where the token came from ("COURSESYNC_TOKEN", "stored token"), so a refused token is
   * met with what to do about that one.
   */
  source?: string;
}

/** What `Auth` needs, all given by the client that owns it. */
export interface AuthOptions {
  /** The versioned API root, normalised: the login address is derived from it. */
  baseUrl: URL;
  credentials: Credentials;
  /** Called with each new token after a login, and awaited (see ApiClientOptions.onToken). */
  onToken: ((token: string) => void | Promise<void>) | undefined;
  /** Counters, shared with the client: each login adds one to `logins`. */
  stats: ClientStats;
  /** Sends the login request through the client's transport: the gate and the retries apply. */
  send: (spec: RequestSpec) => Promise<Exchange>;
  /**
   * The token stored for the site now (see ApiClientOptions.storedToken), read again each time
   * the site refuses the one held. @default none: a refused token is replaced by a login only
   */
  storedToken: (() => Promise<string | undefined>) | undefined;
}

/**
 * The Bearer token of one site: the one given, or one from logging in with e-mail and password
 * when there is none or the site refuses it. Concurrent requests share one login. Knows every
 * secret, so it is what scrubs them from logs and errors.
 */
export class Auth implements Session {
  readonly #o: AuthOptions;
  readonly #credentials: Credentials;
  #token: string | undefined;
  /** The token of the last login, until the site first accepts it. */
  #fresh: string | undefined;
  #loginInFlight: Promise<string> | undefined;
  /** Every token the site refused in this run: none of them is taken up again. */
  readonly #refused = new Set<string>();
  /** The read of the stored token under way: requests refused at once share it. */
  #reading: Promise<string | undefined> | undefined;

  constructor(options: AuthOptions) {
    this.#o = options;
    this.#credentials = { ...options.credentials };
    this.#token = nonEmpty(options.credentials.token);
  }

  /**
   * Log in with the e-mail and password: POST to the login address with both as query
   * parameters (API.md 5). Stores the token for later requests, hands it to `onToken`, and
   * returns it. A refused login is a UserError (exit 1) with the server's words, never the
   * password.
   */
  async login(): Promise<string> {
    const email = nonEmpty(this.#credentials.email);
    const password = nonEmpty(this.#credentials.password);
    if (email === undefined || password === undefined) {
      throw new UserError(`No e-mail and password to log in to ${siteKey(this.#o.baseUrl)}`, {
        hint: CREDENTIALS_HINT,
      });
    }
    const url = loginUrlFor(this.#o.baseUrl);
    url.searchParams.set("email", email);
    url.searchParams.set("password", password);
    const exchange = await this.#o.send({ method: "POST", target: url, auth: false, repeatable: true });
    if (!isOk(exchange.status)) {
      const wrong = wrongUrlError(exchange, "POST", (text) => this.scrub(text));
      if (wrong !== undefined) throw wrong;
      const scrub = (text: string) => this.scrub(text);
      const path = exchange.url.pathname;
      if ([400, 401, 403, 404, 422].includes(exchange.status)) {
        throw new LoginRefusedError(
          apiErrorInit(exchange, "POST", scrub, {
            path,
            hint: "Check the e-mail and password (COURSESYNC_EMAIL and COURSESYNC_PASSWORD), or run `coursesync login` again.",
          }),
        );
      }
      throw apiError(exchange, "POST", scrub, { path });
    }
    const token = authToken(exchange.body);
    if (token === undefined) {
      throw new UserError(
        `POST ${redactUrl(exchange.url.href)} answered ${exchange.status} without an auth_token: this does not look like the site's login`,
        { hint: wrongUrlHint(siteKey(this.#o.baseUrl)) },
      );
    }
    this.#token = token;
    this.#fresh = token;
    this.#o.stats.logins += 1;
    await this.#o.onToken?.(token);
    return token;
  }

  /** The token to send; logs in first when there is none yet. */
  async token(): Promise<string> {
    if (this.#token !== undefined) return this.#token;
    if (this.canLogIn()) return this.#sharedLogin();
    throw new UserError(`No credentials for ${siteKey(this.#o.baseUrl)}`, { hint: CREDENTIALS_HINT });
  }

  /** What to do when the site refuses the token and no login can replace it. */
  refusedHint(fresh: boolean): string {
    if (fresh) return `The site refused a fresh login too. ${CREDENTIALS_HINT}`;
    const site = siteKey(this.#o.baseUrl);
    if (this.#credentials.source === "COURSESYNC_TOKEN") {
      return `The site at ${site} refused the token in COURSESYNC_TOKEN: renew it (\`coursesync login --print-token\`), or unset COURSESYNC_TOKEN to use the stored login.`;
    }
    if (this.#credentials.source === "stored token") {
      return `The site at ${site} refused the stored token: run \`coursesync login\` to log in again.`;
    }
    return CREDENTIALS_HINT;
  }

  /** Whether there are an e-mail and a password to log in with. */
  canLogIn(): boolean {
    return (
      nonEmpty(this.#credentials.email) !== undefined && nonEmpty(this.#credentials.password) !== undefined
    );
  }

  /** The site answered a request sent with `token` with anything but a 401: the token works. */
  accepted(token: string | undefined): void {
    if (token !== undefined && token === this.#fresh) this.#fresh = undefined;
  }

  /**
   * Whether `token` comes from a login and the site has not accepted it yet: refused now, it
   * says the credentials (or the site) are wrong, not that a token expired.
   */
  isFresh(token: string | undefined): boolean {
    return token !== undefined && token === this.#fresh;
  }

  /**
   * After a 401 with `rejected`: whether there is another token to try without logging in,
   * either one another request already took up, or the one stored for the site now when it is
   * new (`coursesync login` ran in another terminal, or another run renewed it).
   */
  async replaced(rejected: string | undefined): Promise<boolean> {
    if (rejected !== undefined) this.#refused.add(rejected);
    const held = this.#token;
    if (held !== undefined && !this.#refused.has(held) && this.#loginInFlight === undefined) return true;
    this.#reading ??= (this.#o.storedToken?.() ?? Promise.resolve(undefined)).finally(() => {
      this.#reading = undefined;
    });
    const stored = nonEmpty(await this.#reading);
    if (stored === undefined || this.#refused.has(stored)) return false;
    this.#token = stored;
    return true;
  }

  /** After a 401 with `rejected`: log in, unless another request already replaced that token. */
  async logInAgain(rejected: string | undefined): Promise<void> {
    if (this.#loginInFlight === undefined && this.#token !== undefined && this.#token !== rejected) return;
    await this.#sharedLogin();
  }

  /** Remove the password and token wherever they appear, plain or URL-encoded. */
  scrub(text: string): string {
    return scrubSecrets(text, [
      this.#credentials.password,
      this.#credentials.token,
      this.#token,
      ...this.#refused,
    ]);
  }

  /** Concurrent callers share one login. */
  #sharedLogin(): Promise<string> {
    this.#loginInFlight ??= this.login().finally(() => {
      this.#loginInFlight = undefined;
    });
    return this.#loginInFlight;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
