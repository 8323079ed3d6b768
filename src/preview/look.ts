import { readFile } from "node:fs/promises";
import path from "node:path";
import type { PreviewConfig } from "../config/config.js";
import type { ChapterLook } from "./html.js";

// How chapters look as on the site: coursesync.yaml's `preview.stylesheet` (a file of the tree,
// served here, or a URL) and `preview.site_url` (where relative links and images resolve), and
// the Content-Security-Policy that lets exactly those in.

/** Where the preview serves a stylesheet that is a file of the tree. */
export const SITE_STYLESHEET = "/assets/site.css";

/** An http(s) URL's origin, or undefined for anything else. */
function webOrigin(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The look of chapters for a page served at `origin` (`http://host:port`, as the request named it). */
export function chapterLook(preview: PreviewConfig, origin: string): ChapterLook {
  const { stylesheet, siteUrl } = preview;
  const sheet =
    stylesheet === undefined ? undefined : webOrigin(stylesheet) ? stylesheet : `${origin}${SITE_STYLESHEET}`;
  return { ...(sheet ? { stylesheet: sheet } : {}), ...(siteUrl ? { base: siteUrl } : {}) };
}

/**
 * The preview's Content-Security-Policy: no inline script, no request but to this server (and
 * to the site's stylesheet and address when coursesync.yaml names them). Chapter HTML runs in
 * a sandboxed frame on top of it (see `chapterFrame`).
 */
export function contentSecurityPolicy(preview: PreviewConfig = {}): string {
  const style = ["'self'", "'unsafe-inline'", webOrigin(preview.stylesheet)].filter(Boolean).join(" ");
  const base = webOrigin(preview.siteUrl) ?? "'none'";
  return `default-src 'none'; script-src 'self'; style-src ${style}; img-src * data:; media-src * data:; frame-src 'self'; connect-src 'self'; base-uri ${base}; form-action 'none'; frame-ancestors 'none'`;
}

/** The tree's stylesheet file named by `preview.stylesheet`, or why it cannot be served. */
export async function treeStylesheet(
  root: string,
  preview: PreviewConfig,
): Promise<{ css: string } | { missing: string }> {
  const { stylesheet } = preview;
  if (stylesheet === undefined || webOrigin(stylesheet)) {
    return { missing: "coursesync.yaml names no stylesheet file of the tree (preview.stylesheet)" };
  }
  try {
    return { css: await readFile(path.join(root, stylesheet), "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    return { missing: `preview.stylesheet ${stylesheet}: cannot be read (${code})` };
  }
}
