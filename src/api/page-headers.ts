/** What a list page's headers say of the listing's pages: Link, total pages, total counts. */
import type { IncomingHttpHeaders } from "node:http";

/** Where the server's Link header points, as page numbers. */
export interface LinkPages {
  next?: number;
  last?: number;
}

/** Parse an RFC 8288 Link header for rel="next" and rel="last" page numbers. */
export function parseLinkHeader(value: string | string[] | undefined): LinkPages | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(", ") : value;
  const result: LinkPages = {};
  let sawLink = false;
  for (const match of text.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]*)*)/g)) {
    sawLink = true;
    const href = match[1] ?? "";
    const rel = /;\s*rel\s*=\s*"?([^";,]*)"?/i.exec(match[2] ?? "")?.[1];
    if (rel === undefined) continue;
    const page = pageParam(href);
    if (page === undefined) continue;
    for (const r of rel.toLowerCase().split(/\s+/)) {
      if (r === "next") result.next = page;
      if (r === "last") result.last = page;
    }
  }
  return sawLink ? result : undefined;
}

/** The `page` query parameter of a link, when it is a page number. */
function pageParam(href: string): number | undefined {
  let url: URL;
  try {
    url = new URL(href, "http://relative.invalid/");
  } catch {
    return undefined;
  }
  const raw = url.searchParams.get("page");
  if (raw === null || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/** The first of the named headers that holds a whole number. */
function headerNumber(headers: IncomingHttpHeaders, names: readonly string[]): number | undefined {
  for (const name of names) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value !== undefined && /^\s*\d+\s*$/.test(value)) return Number(value);
  }
  return undefined;
}

/**
 * The last page number the headers promise, if they say: Link rel="last", X-Total-Pages, or a
 * total count (X-Total-Count, X-Total, Total) divided by the page size (X-Per-Page, Per-Page,
 * or the length of page 1 when that is the page read).
 */
export function lastPageFromHeaders(
  headers: IncomingHttpHeaders,
  page: number,
  pageLength: number,
): number | undefined {
  const link = parseLinkHeader(headers.link);
  if (link?.last !== undefined) return Math.max(link.last, 1);
  const totalPages = headerNumber(headers, ["x-total-pages", "total-pages"]);
  if (totalPages !== undefined) return Math.max(totalPages, 1);
  const total = headerNumber(headers, ["x-total-count", "x-total", "total"]);
  if (total === undefined) return undefined;
  if (total === 0) return 1;
  const perPage = headerNumber(headers, ["x-per-page", "per-page"]) ?? (page === 1 ? pageLength : 0);
  if (perPage <= 0) return undefined;
  return Math.max(Math.ceil(total / perPage), 1);
}
