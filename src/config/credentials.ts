import { chmod, mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import envPaths from "env-paths";
import writeFileAtomic from "write-file-atomic";
import { siteKey } from "../api/login-url.js";
import { UserError } from "../errors.js";

/** A token saved by `coursesync login`, keyed by site URL. */
export interface StoredToken {
  token: string;
  email?: string;
  saved_at: string;
}

interface StoreFile {
  tokens: Record<string, StoredToken>;
}

/**
 * The folder of the token store: COURSESYNC_CONFIG_DIR when set, else the user's config
 * directory for coursesync (XDG on Linux). Never inside a tree.
 */
export function configDir(env: Readonly<Record<string, string | undefined>>): string {
  const override = env.COURSESYNC_CONFIG_DIR;
  if (override) return path.resolve(override);
  return envPaths("coursesync", { suffix: "" }).config;
}

/** Tokens stored per site in `credentials.json`, mode 0600, in the user's config directory. */
export class CredentialStore {
  readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, "credentials.json");
  }

  private async read(): Promise<StoreFile> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { tokens: {} };
      throw new UserError(`cannot read the token store ${this.file}: ${(error as Error).message}`);
    }
    try {
      const parsed = JSON.parse(text) as Partial<StoreFile>;
      return { tokens: parsed.tokens && typeof parsed.tokens === "object" ? parsed.tokens : {} };
    } catch {
      throw new UserError(`the token store ${this.file} is not valid JSON`, {
        hint: "Delete it and run `coursesync login` again.",
      });
    }
  }

  private async write(store: StoreFile): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const sorted = Object.fromEntries(
      Object.keys(store.tokens)
        .sort()
        .map((site) => [site, store.tokens[site]]),
    );
    await writeFileAtomic(this.file, `${JSON.stringify({ tokens: sorted }, null, 2)}\n`, { mode: 0o600 });
    // write-file-atomic keeps an existing file's mode; make sure it is private either way.
    await chmod(this.file, 0o600);
  }

  /** The stored token for a site, if any. */
  async get(siteUrl: string): Promise<StoredToken | undefined> {
    return (await this.read()).tokens[siteKey(siteUrl)];
  }

  /** Store (or replace) the token for a site. */
  async set(siteUrl: string, token: StoredToken): Promise<void> {
    const store = await this.read();
    store.tokens[siteKey(siteUrl)] = token;
    await this.write(store);
  }

  /** Forget the token for a site; returns whether there was one. */
  async delete(siteUrl: string): Promise<boolean> {
    const store = await this.read();
    const key = siteKey(siteUrl);
    if (!(key in store.tokens)) return false;
    delete store.tokens[key];
    if (Object.keys(store.tokens).length === 0) await rm(this.file, { force: true });
    else await this.write(store);
    return true;
  }
}
