import { ApiClient } from "../api/client.js";
import { CREDENTIALS_HINT } from "../api/errors.js";
import { type Config, type ResolvedSite, resolveSite } from "../config/config.js";
import { CredentialStore, configDir } from "../config/credentials.js";
import { InterruptedError, UserError, usageError } from "../errors.js";
import type { SyncTarget } from "../sync/model/target.js";
import { guardIdsSite } from "../sync/state/ids-owner.js";
import type { CliRun, GlobalOptions } from "./io.js";
import { promptLogin } from "./login-prompt.js";
import { Output } from "./output.js";

import type { TreeContext } from "./tree-root.js";

/** Credentials for one site, in DESIGN order: token env, stored token, e-mail + password env. */
export interface ResolvedCredentials {
  token?: string;
  email?: string;
  password?: string;
  source: "COURSESYNC_TOKEN" | "stored token" | "COURSESYNC_EMAIL/COURSESYNC_PASSWORD" | "prompt";
}

/** Read e-mail and password from the environment; both or neither. */
export function envLogin(run: CliRun): { email: string; password: string } | undefined {
  const email = run.env.COURSESYNC_EMAIL || undefined;
  const password = run.env.COURSESYNC_PASSWORD || undefined;
  if (email && password) return { email, password };
  if (email || password) {
    throw new UserError(`${email ? "COURSESYNC_PASSWORD" : "COURSESYNC_EMAIL"} is not set`, {
      hint: "Set both COURSESYNC_EMAIL and COURSESYNC_PASSWORD, or neither.",
    });
  }
  return undefined;
}

/** Find credentials for a site; on a terminal, ask when there are none. */
export async function resolveCredentials(
  run: CliRun,
  site: ResolvedSite,
  store: CredentialStore,
): Promise<ResolvedCredentials> {
  const fromEnv = envLogin(run);
  const token = run.env.COURSESYNC_TOKEN;
  // A header cannot carry a line break or control character (a token pasted with its newline).
  if (token && /[\u0000-\u001f\u007f\s]/.test(token)) {
    throw usageError(
      "COURSESYNC_TOKEN holds a space, line break or control character, which no token has",
      "Set it to the token alone, for example: export COURSESYNC_TOKEN=\"$(cat token.txt | tr -d '[:space:]')\"",
    );
  }
  if (token) return { token, ...fromEnv, source: "COURSESYNC_TOKEN" };
  const stored = await store.get(site.url);
  if (stored) return { token: stored.token, ...fromEnv, source: "stored token" };
  if (fromEnv) return { ...fromEnv, source: "COURSESYNC_EMAIL/COURSESYNC_PASSWORD" };
  if (run.stdinIsTTY) {
    // Logged in at once, so a mistyped password is asked again; the token is kept as `login` keeps it.
    const out = new Output(run);
    const { email, password, token } = await promptLogin(run, site.url, { warn: (line) => out.warn(line) });
    await store.set(site.url, { token, email, saved_at: new Date(run.now()).toISOString() });
    return { token, email, password, source: "prompt" };
  }
  throw new UserError(`no credentials for ${site.url}`, { hint: CREDENTIALS_HINT });
}

/** Everything a networked command needs: the site, an API client, and output. */
export interface Connection {
  site: ResolvedSite;
  client: ApiClient;
  store: CredentialStore;
}

/**
 * What pull, push and watch are told of the tree, the site they sync, and how to write. The
 * body codec (the Markdown converter) loads here, not with the command line: a pull asks for
 * its first pages while it loads.
 */
export async function syncTarget(run: CliRun, tree: TreeContext, site: ResolvedSite): Promise<SyncTarget> {
  const { bodyCodec } = await import("../tree/codecs.js");
  return {
    fs: run.fs,
    root: tree.root,
    site: site.name,
    siteUrl: site.url,
    idsSite: tree.config.ids,
    ignore: tree.config.ignore,
    bodies: bodyCodec(tree.config.body),
    limits: tree.config.limits,
  };
}

/** Resolve the site and credentials and make the one API client of this run. */
export async function connect(
  run: CliRun,
  globals: GlobalOptions,
  config: Config | undefined,
): Promise<Connection> {
  const site = resolveSite(config, globals);
  // Before any request: a tree whose snapshots disagree with `ids:` is read by no site.
  if (config) await guardIdsSite(config.root, Object.keys(config.sites), config.ids);
  const store = new CredentialStore(configDir(run.env));
  const credentials = await resolveCredentials(run, site, store);
  const out = new Output(run, globals.quiet);
  const client = new ApiClient({
    baseUrl: site.url,
    credentials,
    concurrency: config?.concurrency,
    requestsPerSecond: config?.requestsPerSecond,
    retries: run.apiRetries,
    sleep: run.sleep,
    now: run.now,
    log: globals.verbose ? (line) => out.info(line) : undefined,
    // A refused token is replaced by the one stored now, when `coursesync login` renewed it.
    storedToken: async () => (await store.get(site.url))?.token,
    // A token got from a prompt, or a renewed stored one, is kept as `login` would keep it;
    // logins from environment variables (CI) leave nothing on disk.
    onToken:
      credentials.source === "prompt" || credentials.source === "stored token"
        ? (token) =>
            store.set(site.url, {
              token,
              email: credentials.email,
              saved_at: new Date(run.now()).toISOString(),
            })
        : undefined,
  });
  return { site, client, store };
}

/**
 * Once the run is asked to stop (Ctrl-C, SIGTERM), the client starts no more requests: those in
 * flight finish, and the command fails with `message` and `hint` (exit 130 or 143).
 */
export function stopRequestsOnSignal(run: CliRun, client: ApiClient, message: string, hint: string): void {
  void run.interrupted.then((signal) => client.interrupt(new InterruptedError(signal, message, hint)));
}
