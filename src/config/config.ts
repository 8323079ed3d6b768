import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseBaseUrl } from "../api/login-url.js";
import { ExitCode, UserError, usageError } from "../errors.js";
import { CONFIG_FIELDS, DEFAULT_LIMITS, LIMIT_KEYS, type Limits } from "../tree/schema.js";
import { FileProblem, type ParsedYaml, parseYamlDocument } from "../tree/yaml-text.js";

/** The name of the file that marks a coursesync tree. */
export const CONFIG_FILE = "coursesync.yaml";

/** One site a tree can sync with. */
export interface SiteConfig {
  /** The versioned API root, ending in /api/v1. */
  url: string;
}

/** coursesync.yaml, validated, with defaults filled in. */
export interface Config {
  /** Absolute path of the tree's root folder (where coursesync.yaml is). */
  root: string;
  /** The default site's name: the one commands talk to without --site. */
  site: string;
  /**
   * The site whose ids the files carry (`ids:`; the default site when unset). Changing the
   * default site never changes it: moving the ids is `coursesync site move-ids`.
   */
  ids: string;
  /** Whether coursesync.yaml names the ids' site itself (`ids:`), rather than by default. */
  idsSet: boolean;
  sites: Record<string, SiteConfig>;
  /** How chapter bodies are kept: Markdown (default) or the site's HTML verbatim. */
  body: "markdown" | "html";
  /** Requests in flight at once; default 4. */
  concurrency: number;
  /** Optional cap on requests started per second; unset = only 429s slow us down. */
  requestsPerSecond: number | undefined;
  /** gitignore-style patterns of files push and status leave alone. */
  ignore: string[];
  /** Sizes push refuses to send (`limits:`), each defaulted. */
  limits: Limits;
  /** How `coursesync preview` shows chapters (`preview:`). */
  preview: PreviewConfig;
}

/** `preview:` in coursesync.yaml. */
export interface PreviewConfig {
  /** A stylesheet for chapter content: a path relative to the tree's root, or an http(s) URL. */
  stylesheet?: string | undefined;
  /** The site's own address: relative links and images in chapter HTML resolve against it. */
  siteUrl?: string | undefined;
}

const KNOWN_KEYS = Object.keys(CONFIG_FIELDS);
const { body: BODY, concurrency: CONCURRENCY, requests_per_second: RATE } = CONFIG_FIELDS;
/** A site's name: it names files under .coursesync/, so it holds no path separator or dot-dot. */
export const SITE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Whether a site name is allowed: SITE_NAME, and not a folder of .coursesync/ (in any case). */
export function validSiteName(name: string): boolean {
  return SITE_NAME.test(name) && !["cache", "schemas"].includes(name.toLowerCase());
}

/** The nearest folder at or above `start` that holds coursesync.yaml, or undefined. */
export function findRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, CONFIG_FILE))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function problem(file: string, line: number | undefined, message: string, hint?: string): UserError {
  return new UserError(`${file}${line === undefined ? "" : `:${line}`}: ${message}`, {
    hint,
    exitCode: ExitCode.usage,
  });
}

/** Validate the text of coursesync.yaml. Errors name the file and line and end with exit 2. */
export function parseConfig(text: string, root: string, displayPath = CONFIG_FILE): Config {
  const { raw, lineOf } = readMapping(text, displayPath);
  const { sites, site, ids } = parseSites(raw, lineOf, displayPath);
  const { body, concurrency, rps, ignore } = parseSettings(raw, lineOf, displayPath);
  return {
    root,
    site,
    ids,
    idsSet: raw.ids !== undefined,
    sites,
    body,
    concurrency,
    requestsPerSecond: rps,
    ignore,
    limits: parseLimits(raw.limits, lineOf, displayPath),
    preview: parsePreview(raw.preview, lineOf, displayPath),
  };
}

/** An http or https URL, or undefined. */
function webUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `preview:`: `stylesheet` (a tree file or an http(s) URL) and `site_url` (http(s)), each optional. */
function parsePreview(raw: unknown, lineOf: ParsedYaml["lineOf"], displayPath: string): PreviewConfig {
  if (raw === undefined || raw === null) return {};
  const example =
    "Example:\npreview:\n  stylesheet: styles/site.css\n  site_url: https://courses.example.com";
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw problem(displayPath, lineOf(["preview"]), "preview must be a mapping", example);
  }
  const entries = raw as Record<string, unknown>;
  for (const key of Object.keys(entries)) {
    if (key !== "stylesheet" && key !== "site_url") {
      throw problem(displayPath, lineOf(["preview", key]), `unknown preview key "${key}"`, example);
    }
  }
  const { stylesheet, site_url: siteUrl } = entries;
  const inTree = (file: string) => !path.isAbsolute(file) && !path.normalize(file).startsWith("..");
  if (
    stylesheet !== undefined &&
    (typeof stylesheet !== "string" ||
      stylesheet.trim() === "" ||
      !(webUrl(stylesheet) || inTree(stylesheet)))
  ) {
    throw problem(
      displayPath,
      lineOf(["preview", "stylesheet"]),
      "preview.stylesheet must be a file of the tree or an http(s) URL",
      example,
    );
  }
  if (siteUrl !== undefined && (typeof siteUrl !== "string" || !webUrl(siteUrl))) {
    throw problem(
      displayPath,
      lineOf(["preview", "site_url"]),
      `preview.site_url must be an http or https address, not ${JSON.stringify(siteUrl)}`,
      example,
    );
  }
  return {
    ...(stylesheet === undefined ? {} : { stylesheet: stylesheet as string }),
    ...(siteUrl === undefined ? {} : { siteUrl: siteUrl as string }),
  };
}

/** The file's YAML: a mapping of known keys. */
function readMapping(
  text: string,
  displayPath: string,
): { raw: Record<string, unknown>; lineOf: ParsedYaml["lineOf"] } {
  let parsed: ReturnType<typeof parseYamlDocument>;
  try {
    parsed = parseYamlDocument(text, displayPath);
  } catch (error) {
    if (error instanceof FileProblem) throw problem(displayPath, error.line, error.problem, error.hint);
    throw error;
  }
  const { value, lineOf } = parsed;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw problem(
      displayPath,
      1,
      "expected a mapping with at least `sites`",
      "Run `coursesync init` to write one.",
    );
  }
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.includes(key)) {
      throw problem(
        displayPath,
        lineOf([key]),
        `unknown key "${key}"`,
        `Known keys: ${KNOWN_KEYS.join(", ")}.`,
      );
    }
  }
  return { raw, lineOf };
}

/** `sites:`, the default `site:` and the ids' site (`ids:`). */
function parseSites(
  raw: Record<string, unknown>,
  lineOf: ParsedYaml["lineOf"],
  displayPath: string,
): { sites: Record<string, SiteConfig>; site: string; ids: string } {
  const sitesRaw = raw.sites;
  if (sitesRaw === null || typeof sitesRaw !== "object" || Array.isArray(sitesRaw)) {
    throw problem(
      displayPath,
      lineOf(["sites"]) ?? 1,
      "`sites` must map site names to { url: ... }",
      "Example:\nsites:\n  production:\n    url: https://academy.example.com/api/v1",
    );
  }
  const sites: Record<string, SiteConfig> = {};
  for (const [name, site] of Object.entries(sitesRaw as Record<string, unknown>)) {
    sites[name] = parseSite(name, site, lineOf, displayPath);
  }
  const names = Object.keys(sites);
  if (names.length === 0) throw problem(displayPath, lineOf(["sites"]), "`sites` names no site");
  const site = raw.site ?? (names.length === 1 ? names[0] : undefined);
  if (typeof site !== "string" || !(site in sites)) {
    throw problem(
      displayPath,
      lineOf(["site"]) ?? 1,
      site === undefined
        ? "several sites and no default `site`"
        : `default site "${String(site)}" is not under sites`,
      `Set \`site:\` to one of ${names.join(", ")}.`,
    );
  }
  const ids = raw.ids ?? site;
  if (typeof ids !== "string" || !(ids in sites)) {
    throw problem(
      displayPath,
      lineOf(["ids"]) ?? 1,
      `\`ids\` names the site whose ids the files carry; "${String(ids)}" is not under sites`,
      `Set \`ids:\` to the site the tree was pulled from (one of ${names.join(", ")}), or remove the line if that is the default site.`,
    );
  }
  return { sites, site, ids };
}

/** One entry of `sites:`: a valid name and its url. */
function parseSite(
  name: string,
  site: unknown,
  lineOf: ParsedYaml["lineOf"],
  displayPath: string,
): SiteConfig {
  if (!validSiteName(name)) {
    throw problem(
      displayPath,
      lineOf(["sites", name]),
      `site name "${name}" may hold only letters, digits, . _ - (and is not cache or schemas)`,
    );
  }
  const url = (site as { url?: unknown } | null)?.url;
  if (typeof url !== "string") {
    throw problem(displayPath, lineOf(["sites", name]), `site "${name}" needs a url`);
  }
  try {
    return { url: parseBaseUrl(url, `sites.${name}.url`).toString() };
  } catch (error) {
    if (error instanceof UserError)
      throw problem(displayPath, lineOf(["sites", name, "url"]), error.message, error.hint);
    throw error;
  }
}

/** `body:`, `concurrency:`, `requests_per_second:` and `ignore:`, defaulted. */
function parseSettings(
  raw: Record<string, unknown>,
  lineOf: ParsedYaml["lineOf"],
  displayPath: string,
): { body: Config["body"]; concurrency: number; rps: number | undefined; ignore: string[] } {
  const body = raw.body ?? "markdown";
  if (body !== "markdown" && body !== "html") {
    throw problem(
      displayPath,
      lineOf(["body"]),
      `body must be ${BODY.values.join(" or ")}, not ${JSON.stringify(body)}`,
    );
  }
  const concurrency = raw.concurrency ?? 4;
  if (
    !Number.isInteger(concurrency) ||
    (concurrency as number) < CONCURRENCY.min ||
    (concurrency as number) > CONCURRENCY.max
  ) {
    throw problem(
      displayPath,
      lineOf(["concurrency"]),
      `concurrency must be a whole number from ${CONCURRENCY.min} to ${CONCURRENCY.max}`,
    );
  }
  const rps = raw.requests_per_second ?? undefined;
  if (
    rps !== undefined &&
    rps !== null &&
    !(typeof rps === "number" && Number.isFinite(rps) && rps >= RATE.min && rps <= RATE.max)
  ) {
    throw problem(
      displayPath,
      lineOf(["requests_per_second"]),
      `requests_per_second must be a number from ${RATE.min} to ${RATE.max}, not ${typeof rps === "number" ? String(rps) : JSON.stringify(rps)}`,
    );
  }
  const ignore = raw.ignore ?? [];
  if (!Array.isArray(ignore) || ignore.some((p) => typeof p !== "string")) {
    throw problem(displayPath, lineOf(["ignore"]), "ignore must be a list of patterns");
  }
  return {
    body,
    concurrency: concurrency as number,
    rps: rps === null ? undefined : (rps as number | undefined),
    ignore: ignore as string[],
  };
}

/** `limits:`: a mapping of known keys to whole numbers of 1 or more; the rest default. */
function parseLimits(raw: unknown, lineOf: ParsedYaml["lineOf"], displayPath: string): Limits {
  const limits = { ...DEFAULT_LIMITS };
  if (raw === undefined || raw === null) return limits;
  const example = `Example:\nlimits:\n  ${LIMIT_KEYS.map((key) => `${key}: ${DEFAULT_LIMITS[key]}`).join("\n  ")}`;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw problem(displayPath, lineOf(["limits"]), "limits must map limit names to numbers", example);
  }
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(key)) {
      throw problem(
        displayPath,
        lineOf(["limits", key]),
        `unknown limit "${key}"`,
        `Known limits: ${LIMIT_KEYS.join(", ")}.`,
      );
    }
    if (!(Number.isSafeInteger(value) && (value as number) >= 1)) {
      throw problem(
        displayPath,
        lineOf(["limits", key]),
        `limits.${key} must be a whole number of 1 or more, not ${JSON.stringify(value)}`,
      );
    }
    limits[key as keyof Limits] = value as number;
  }
  return limits;
}

/** Read and validate the coursesync.yaml of a tree root. */
export async function loadConfig(root: string): Promise<Config> {
  const file = path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw usageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return parseConfig(text, root, file);
}

/** The site a command talks to: its name and API root, after --site and --url. */
export interface ResolvedSite {
  name: string;
  url: string;
}

/** Pick the site from --site/--url and the config; --url alone works without a config. */
export function resolveSite(
  config: Config | undefined,
  options: { site?: string | undefined; url?: string | undefined },
): ResolvedSite {
  if (options.site !== undefined && !validSiteName(options.site)) {
    throw usageError(
      `--site "${options.site}": a site name holds only letters, digits, . _ - (and starts with a letter or digit; not cache or schemas)`,
      config ? `Known sites: ${Object.keys(config.sites).join(", ")}.` : "Give a name such as production.",
    );
  }
  if (options.url !== undefined) {
    const url = parseBaseUrl(options.url).toString();
    return { name: options.site ?? config?.site ?? "default", url };
  }
  if (!config) {
    throw usageError(
      `no ${CONFIG_FILE} here or in any folder above`,
      "Run `coursesync init --url <api-base-url>` first, pass -C <dir>, or give --url.",
    );
  }
  const name = options.site ?? config.site;
  const site = config.sites[name];
  if (!site) {
    throw usageError(
      `site "${name}" is not in ${CONFIG_FILE}`,
      `Known sites: ${Object.keys(config.sites).join(", ")}.`,
    );
  }
  return { name, url: site.url };
}
