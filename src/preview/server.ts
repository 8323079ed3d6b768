import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import { redactUrl } from "../api/login-url.js";
import { type Config, loadConfig, resolveSite } from "../config/config.js";
import { UserError, usageError } from "../errors.js";
import type { SiteSnapshot } from "../sync/state/site-snapshot.js";
import { SiteState } from "../sync/state/workspace.js";
import { COURSES_DIR } from "../tree/layout.js";
import { PREVIEW_SCRIPT } from "./assets/script.js";
import { type ChapterLook, layout, livePart, type Page } from "./html.js";
import { LiveHub } from "./live.js";
import { indexCache, type LiveModel, liveModel, whileWatching } from "./live-model.js";
import { chapterLook, contentSecurityPolicy, SITE_STYLESHEET, treeStylesheet } from "./look.js";
import { chapterDiff, chapterHtml, fileText, type PreviewModel, readModel, sourceFor } from "./model.js";
import {
  chapterPage,
  coursePage,
  diffPage,
  indexPage,
  indexPages,
  missingPage,
  siteDiffPage,
} from "./pages.js";
import { type SiteReader, siteChapterDiff } from "./site-diff.js";

/** How the preview is served. */
export interface PreviewOptions {
  /** The tree's root (the folder holding coursesync.yaml). */
  root: string;
  /** Its config; read from the root when not given. */
  config?: Config | undefined;
  /** The site whose snapshot states are measured against. @default coursesync.yaml's `site` */
  site?: string | undefined;
  /** The site's API root, over coursesync.yaml's (`--url`). */
  url?: string | undefined;
  /** Only these tree paths (course folders, chapter files) are shown. @default the whole tree */
  paths?: readonly string[] | undefined;
  /** The port; 0 takes any free one. */
  port: number;
  /** The address to bind. @default 127.0.0.1 */
  host?: string | undefined;
  /** Allow an address other than loopback (the user gave `--host`). @default false */
  allowRemote?: boolean | undefined;
  /**
   * Connects to the site, for a comparison with its current version: called on the first such
   * request only (nothing reads the site before), its reader kept until the preview closes.
   * @default none: the comparison page says it cannot read the site
   */
  connect?: (() => Promise<SiteReader & { close(): void }>) | undefined;
  /** The site and its snapshot as already loaded: the first read does not load them again. */
  loaded?: SiteSnapshot | undefined;
}

/** A running preview. */
export interface RunningPreview {
  /** `http://<host>:<port>/` */
  url: string;
  port: number;
  /** Stop watching, end the event streams and close the server. */
  close(): Promise<void>;
}

/** The preview's Content-Security-Policy when coursesync.yaml has no `preview:` (see look.ts). */
export const CSP = contentSecurityPolicy();

const PAGE_HEADERS = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** Whether an address is this machine's loopback. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A host as it stands in a URL (IPv6 in brackets). */
function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Whether a request's `Host` names the address served: a page of another name resolved to this
 * address (DNS rebinding) must not read the tree. On a wildcard address, any IP literal.
 */
export function hostAllowed(header: string | undefined, host: string, port: number): boolean {
  if (header === undefined) return false;
  const given = header.toLowerCase();
  const allowed = new Set([`${urlHost(host).toLowerCase()}:${port}`]);
  if (isLoopback(host)) allowed.add(`localhost:${port}`);
  if (allowed.has(given)) return true;
  if (host !== "0.0.0.0" && host !== "::") return false;
  const at = given.lastIndexOf(":");
  if (at < 0 || given.slice(at + 1) !== String(port)) return false;
  const name = given.slice(0, at).replace(/^\[(.*)\]$/, "$1");
  return isIP(name) !== 0 || name === "localhost";
}

function plain(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...PAGE_HEADERS, ...headers });
  response.end(`${text}\n`);
}

/** Start the preview of the tree at `options.root`; resolves once it listens and watches. */
export async function startPreview(options: PreviewOptions): Promise<RunningPreview> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopback(host) && !options.allowRemote) {
    throw usageError(
      `the preview serves 127.0.0.1 only unless told otherwise, and ${host} is not a loopback address`,
      "Pass --host <address> to serve it there: anyone who can reach that address can read the tree.",
    );
  }
  const config = options.config ?? (await loadConfig(options.root));
  const read = () => readModel({ ...options, config, loaded: undefined });
  const changes: { to?: LiveModel; early: boolean } = { early: false };
  const hub = new LiveHub((event) => {
    if (changes.to) changes.to.changed(event.path);
    else changes.early = true;
  });
  // Read once now: a tree that cannot be previewed (never synced) is said before serving. Its
  // folders are watched meanwhile; a change during the first read has the tree read again.
  const snapshotDir = SiteState.open(options.root, resolveSite(config, options).name).paths.snapshot;
  // The snapshot the caller loaded serves the first read; later reads load it afresh.
  const reading = readModel({ ...options, config });
  const first = await whileWatching(hub.watch(options.root, snapshotDir, config.ignore), reading, hub);
  const live = liveModel(first, read);
  changes.to = live;
  if (changes.early) live.changed(COURSES_DIR);
  const server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) => {
      if (!response.headersSent) plain(response, 500, failure(error));
      else response.end();
    });
  });
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const port = listening(server);
    if (!hostAllowed(request.headers.host, host, port)) {
      return plain(response, 421, `This preview answers only to ${urlHost(host)}:${port}.`);
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return plain(response, 405, "The preview only reads: GET and HEAD.", { allow: "GET, HEAD" });
    }
    const url = new URL(request.url ?? "/", "http://preview.invalid");
    if (url.pathname === "/events") {
      if (request.method === "GET") return hub.open(response);
      response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", ...PAGE_HEADERS });
      return void response.end();
    }
    const headers = { ...PAGE_HEADERS, "content-security-policy": contentSecurityPolicy(config.preview) };
    if (await serveAsset(url.pathname, request, response, { root: options.root, config, headers })) return;
    const html = await render(url, await live.current(), `http://${request.headers.host}`);
    response.writeHead(html.status, { "content-type": "text/html; charset=utf-8", ...headers });
    response.end(request.method === "HEAD" ? undefined : html.text);
  };
  const render = indexCache(async (url: URL, shown: PreviewModel, origin: string) => {
    const { status, page } = await route(url, shown, site, chapterLook(config.preview, origin));
    const fragment = url.searchParams.get("fragment") === "live";
    return { status, text: fragment ? livePart(page.live) : layout(page, first.site) };
  });
  const site = siteConnection(options.connect);
  const port = await listen(server, options.port, host).catch(async (error: unknown) => {
    await hub.close();
    throw error;
  });
  return {
    url: `http://${urlHost(host)}:${port}/`,
    port,
    close: async () => {
      await hub.close();
      await site.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answer a request for the page script or the tree's stylesheet; false for any other path. */
async function serveAsset(
  pathname: string,
  request: IncomingMessage,
  response: ServerResponse,
  served: { root: string; config: Config; headers: Record<string, string> },
): Promise<boolean> {
  const send = (type: string, body: string) => {
    response.writeHead(200, { "content-type": `${type}; charset=utf-8`, ...served.headers });
    response.end(request.method === "HEAD" ? undefined : body);
  };
  if (pathname === "/assets/preview.js") send("text/javascript", PREVIEW_SCRIPT);
  else if (pathname === SITE_STYLESHEET) {
    const sheet = await treeStylesheet(served.root, served.config.preview);
    if ("missing" in sheet) plain(response, 404, sheet.missing);
    else send("text/css", sheet.css);
  } else return false;
  return true;
}

function failure(error: unknown): string {
  if (error instanceof UserError) return `${error.message}${error.hint ? `\n${error.hint}` : ""}`;
  return `internal error: ${error instanceof Error ? error.message : String(error)}`;
}

function listening(server: Server): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

/** Listen on host:port; a port taken or an address not here is said plainly. */
function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") {
        reject(
          new UserError(`port ${port} on ${host} is in use`, {
            hint: "Pass --port 0 to take any free port, or another --port <n>.",
          }),
        );
      } else if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") {
        reject(
          usageError(`--host ${host}: no such address on this machine`, "Give an address of this machine."),
        );
      } else if (error.code === "EACCES") {
        reject(usageError(`port ${port} needs privileges to bind`, "Pass a port above 1023, or --port 0."));
      } else reject(error);
    });
    server.listen(port, host, () => resolve(listening(server)));
  });
}

/** The site's reader, connected on first use; a failed connection is tried again when next asked. */
interface SiteConnection {
  reader(): Promise<SiteReader>;
  close(): Promise<void>;
}

function siteConnection(connect: PreviewOptions["connect"]): SiteConnection {
  let pending: Promise<SiteReader & { close(): void }> | undefined;
  return {
    reader: () => {
      if (!connect) {
        return Promise.reject(new UserError("this preview was started without a way to read the site"));
      }
      pending ??= connect();
      pending.catch(() => {
        pending = undefined;
      });
      return pending;
    },
    close: async () => {
      const reader = await pending?.catch(() => undefined);
      reader?.close();
    },
  };
}

/** The page a URL names, with its status code. */
async function route(
  url: URL,
  model: PreviewModel,
  site: SiteConnection,
  look: ChapterLook,
): Promise<{ status: number; page: Page }> {
  const { pathname } = url;
  const parts = pathname.split("/").slice(1).map(decodeSegment);
  const [top, courseName, chapterName, extra, ...rest] = parts;
  if (pathname === "/") return index(model, url.searchParams.get("page"));
  const course = model.courses.find((c) => c.name === courseName);
  if (top === "courses" && course && chapterName === undefined)
    return { status: 200, page: coursePage(course) };
  const chapter = course?.chapters.find((c) => c.name === chapterName && !c.deleted);
  if (top === "chapters" && course && chapter && rest.length === 0) {
    if (extra === undefined) {
      const shown = await chapterHtml(sourceFor(model, chapter.file), chapter.file);
      const text = chapter.problems.length > 0 ? await fileText(model.root, chapter.file) : undefined;
      return { status: 200, page: chapterPage(course, chapter, shown, text, look) };
    }
    if (extra === "diff" && url.searchParams.get("against") === "site") {
      try {
        const result = await siteChapterDiff(
          sourceFor(model, chapter.file),
          chapter.file,
          await site.reader(),
        );
        return { status: 200, page: siteDiffPage(course, chapter, result) };
      } catch (error) {
        const none = `Could not read the site: ${redactUrl(failure(error))}`;
        return { status: 502, page: siteDiffPage(course, chapter, { none }) };
      }
    }
    if (extra === "diff") {
      return {
        status: 200,
        page: diffPage(course, chapter, await chapterDiff(sourceFor(model, chapter.file), chapter.file)),
      };
    }
  }
  const watch =
    courseName === undefined ? "courses" : `courses/${courseName}${chapterName ? `/${chapterName}` : ""}`;
  return {
    status: 404,
    page: missingPage(`Nothing here: ${pathname} names no course or chapter file of the tree.`, watch),
  };
}

/** A page of the index; a page it does not have is said, with the pages it has. */
function index(model: PreviewModel, asked: string | null): { status: number; page: Page } {
  const pages = indexPages(model);
  const number = asked === null ? 1 : /^[1-9]\d*$/.test(asked) ? Number(asked) : 0;
  if (number >= 1 && number <= pages) return { status: 200, page: indexPage(model, number) };
  const what = `?page=${asked ?? ""} names no page of the index: it has ${pages === 1 ? "one page" : `pages 1 to ${pages}`}.`;
  return { status: 404, page: missingPage(`Nothing here: ${what}`, COURSES_DIR) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
