// The page frame of the preview: escaping, the layout every page shares, its stylesheet, and
// the sandboxed frame chapter HTML is shown in.

/** Text or an attribute value made safe to put in HTML. */
export function esc(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A path segment of a preview URL. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

/** The preview's own look: readable from 320 px up, no web fonts, no framework. */
const STYLE = `
:root{color-scheme:light dark;--fg:#1b1b1b;--bg:#fff;--muted:#5c5c5c;--line:#d6d6d6;--accent:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#161616;--muted:#a8a8a8;--line:#3a3a3a;--accent:#8ab4f8}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
a{color:var(--accent)}
a:focus-visible,button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px}
header,main,footer{max-width:60rem;margin:0 auto;padding:0.75rem 1rem}
header{border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:0.25rem 1rem;align-items:baseline}
header .site{color:var(--muted);font-size:0.9rem}
footer{color:var(--muted);font-size:0.85rem;border-top:1px solid var(--line)}
nav ol{list-style:none;padding:0;margin:0 0 0.5rem;display:flex;flex-wrap:wrap;gap:0.25rem}
nav li+li::before{content:"/";margin-right:0.25rem;color:var(--muted)}
h1{font-size:1.6rem;line-height:1.25;margin:0.5rem 0}
h2{font-size:1.25rem;margin:1.25rem 0 0.5rem}
.course{border:1px solid var(--line);border-radius:6px;padding:0.5rem 1rem;margin:1rem 0}
.excerpt{color:var(--muted)}
ol.chapters{padding-left:1.5rem}
ol.chapters li{margin:0.25rem 0}
.state{display:inline-block;font-size:0.75rem;padding:0 0.4rem;border-radius:3px;border:1px solid currentColor;margin-left:0.4rem;vertical-align:middle}
.state-modified,.state-moved,.state-renamed{color:#9a6700}
.state-new{color:#1a7f37}
.state-conflict,.state-invalid,.state-untracked{color:#cf222e}
.state-deleted{color:var(--muted)}
.state-unchanged{color:var(--muted);border-color:transparent}
.problem{border-left:4px solid #cf222e;padding:0.25rem 0.75rem;margin:0.5rem 0}
.message{color:var(--muted);font-size:0.9rem}
dl.values{display:grid;grid-template-columns:max-content 1fr;gap:0.25rem 1rem}
dl.values dt{font-weight:600}dl.values dd{margin:0}
iframe.chapter{width:100%;height:75vh;border:1px solid var(--line);border-radius:6px;resize:vertical;background:#fff}
pre.file{overflow-x:auto;border:1px solid var(--line);padding:0.5rem;font-size:0.85rem;line-height:1.4}
pre.file .ln{display:inline-block;min-width:3ch;color:var(--muted);user-select:none}
pre.file .bad{background:rgba(207,34,46,0.15)}
pre.file .marker{background:rgba(154,103,0,0.25);font-weight:700}
.diff{white-space:pre-wrap;border:1px solid var(--line);padding:0.5rem;font:0.9rem/1.5 ui-monospace,monospace}
.diff ins{background:rgba(26,127,55,0.2);text-decoration:none}
.diff del{background:rgba(207,34,46,0.2)}
a.button{display:inline-block;padding:0.25rem 0.75rem;border:1px solid var(--accent);border-radius:4px;text-decoration:none}
#live-status{min-height:1.5em;color:var(--muted);font-size:0.85rem}
`;

/** What chapter HTML is shown with inside its frame: a plain readable default. */
const CHAPTER_STYLE =
  "body{font:17px/1.6 system-ui,sans-serif;max-width:46rem;margin:1rem auto;padding:0 1rem;color:#1b1b1b;background:#fff;overflow-wrap:anywhere}img,video,iframe{max-width:100%;height:auto}pre{overflow-x:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:0.25rem 0.5rem}";

/** How chapter HTML looks as on the site (coursesync.yaml's `preview:`). */
export interface ChapterLook {
  /** The site's stylesheet, by absolute URL (a tree file is served by the preview). */
  stylesheet?: string | undefined;
  /** The site's address: relative links and images in chapter HTML resolve against it. */
  base?: string | undefined;
}

/**
 * Chapter HTML in a frame that cannot run script nor reach the preview's page: `sandbox`
 * without `allow-scripts` or `allow-same-origin`, its document given whole (and escaped) in
 * `srcdoc`. Its links open in a new tab (a popup that leaves the sandbox: the site's page, as
 * a reader would follow it); relative ones resolve against the site's address when given.
 */
export function chapterFrame(html: string, title: string, look: ChapterLook = {}): string {
  const base = `<base target="_blank"${look.base ? ` href="${esc(look.base)}"` : ""}>`;
  const sheet = look.stylesheet ? `<link rel="stylesheet" href="${esc(look.stylesheet)}">` : "";
  const doc = `<!doctype html><html><head><meta charset="utf-8">${base}<style>${CHAPTER_STYLE}</style>${sheet}</head><body>${html}</body></html>`;
  return `<iframe class="chapter" id="chapter-frame" sandbox="allow-popups allow-popups-to-escape-sandbox" title="${esc(title)}" srcdoc="${esc(doc)}"></iframe>`;
}

/** One page: its title, where it sits, and its live part (what a change of `watch` refreshes). */
export interface Page {
  title: string;
  /** Links above the heading, from the index down (the last one is this page). */
  trail: ReadonlyArray<{ label: string; href?: string }>;
  live: LivePart;
}

/** The part of a page a change in the tree refreshes: `watch` is the tree path it shows. */
export interface LivePart {
  watch: string;
  html: string;
}

/** The live part alone, as the page script fetches it to swap in. */
export function livePart(live: LivePart): string {
  return `<div id="live" data-watch="${esc(live.watch)}">${live.html}</div>`;
}

/** A whole page: landmarks, a skip link, the heading trail, the live part, and the page script. */
export function layout(page: Page, site: { name: string; url: string }): string {
  const trail = page.trail
    .map((step) =>
      step.href === undefined
        ? `<li><span aria-current="page">${esc(step.label)}</span></li>`
        : `<li><a href="${esc(step.href)}">${esc(step.label)}</a></li>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(page.title)} · coursesync preview</title>
<style>${STYLE}</style>
<script src="/assets/preview.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><strong><a href="/">coursesync preview</a></strong><span class="site">site "${esc(site.name)}" (${esc(site.url)}): nothing here is sent</span></header>
<main id="main" tabindex="-1">
<nav aria-label="Breadcrumb"><ol>${trail}</ol></nav>
${livePart(page.live)}
<p id="live-status" role="status" aria-live="polite"></p>
</main>
<footer>Each chapter is shown as the HTML the next <code>coursesync push</code> sends (or the site holds, when unchanged). Saved files show here as you save.</footer>
</body>
</html>
`;
}
