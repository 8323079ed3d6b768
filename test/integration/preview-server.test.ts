import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CSP, startPreview } from "../../src/preview/server.js";
import { bodyCodec } from "../../src/tree/codecs.js";
import { useEmulators } from "../helpers/emulator.js";
import { frameDocument, get, usePreviews } from "../helpers/preview.js";
import { ok, pulledSite, webAndGoSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
const preview = usePreviews();
afterEach(cleanupTestdirs);

const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";

/** The states of the index's courses and chapters, in page order, as `path state`. */
function indexStates(page: string): string[] {
  return [...page.matchAll(/data-path="([^"]+)" data-state="([a-z]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
}

describe("preview server", () => {
  it("lists the courses in the site's order with their chapters in ordinal order, all unchanged after a pull", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const p = await preview({ root: s.root });
    expect(p.url).toBe(`http://127.0.0.1:${p.port}/`);
    const index = await get(p.url);
    expect(index.status).toBe(200);
    expect(index.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(indexStates(index.body)).toEqual([
      "courses/web unchanged",
      "courses/web/01-intro.md unchanged",
      "courses/web/02-tags.md unchanged",
      "courses/go unchanged",
      "courses/go/01-tour.md unchanged",
    ]);
    expect(index.body).toContain('<p class="excerpt">HTML</p>');
    expect(index.body).toContain('<p id="summary">Nothing pending: the tree matches the last sync.</p>');
    expect(index.body).toContain("Status: published");
    expect(index.body).toContain('<a href="/chapters/web/01-intro.md">Intro</a>');
    // Landmarks and a heading for the page and for each course.
    for (const part of ["<main", "<header", "<nav", "<footer", "<h1>Courses</h1>", '<h2 id="h-web">'])
      expect(index.body).toContain(part);
    expect(s.log()).toEqual([]);
  });

  it("shows each file's state as status reports it: modified, new, invalid with its line, conflict markers", async () => {
    const s = await pulledSite(start, webAndGoSite());
    await s.replace(INTRO, "<p>b</p>", "<p>B</p>");
    await s.replace("courses/go/course.yaml", "title: Go", "title: Golang");
    await s.write("courses/web/03-new.md", "---\ntitle: New\nordinal: 3\nformat: html\n---\n<p>new</p>\n");
    await s.write(
      "courses/go/02-broken.md",
      "---\ntitle: Broken\nordinal: two\nformat: html\n---\n<p>x</p>\n",
    );
    await s.replace(
      TAGS,
      "<p>tags</p>",
      "<<<<<<< mine\n<p>my tags</p>\n=======\n<p>their tags</p>\n>>>>>>> site\n",
    );
    const p = await preview({ root: s.root });
    const index = await get(p.url);
    expect(indexStates(index.body)).toEqual([
      "courses/web unchanged",
      "courses/web/01-intro.md modified",
      "courses/web/02-tags.md conflict",
      "courses/web/03-new.md new",
      "courses/go modified",
      "courses/go/01-tour.md unchanged",
      "courses/go/02-broken.md invalid",
    ]);
    expect(index.body).toContain("Golang");
    expect(index.body).toContain('<p id="summary">Pending: 1 conflict, 1 invalid, 2 modified, 1 new.</p>');

    const broken = await get(p.url, { path: "/chapters/go/02-broken.md" });
    expect(broken.status).toBe(200);
    expect(broken.body).toContain("ordinal must be a whole number, not &quot;two&quot;");
    expect(broken.body).toContain('data-line="3"');
    expect(broken.body).toMatch(
      /<span class="bad" id="L3" data-kind="bad"><span class="ln">3<\/span> ordinal: two<\/span>/,
    );
    expect(frameDocument(broken.body)).toBeUndefined();

    const tags = await get(p.url, { path: "/chapters/web/02-tags.md" });
    expect(tags.body).toContain("conflict markers: keep what you want, remove the markers, then push");
    const markers = [...tags.body.matchAll(/data-kind="marker"><span class="ln">\d+<\/span> ([^<]*)</g)].map(
      (m) => m[1],
    );
    expect(markers).toEqual([
      "&lt;&lt;&lt;&lt;&lt;&lt;&lt; mine",
      "=======",
      "&gt;&gt;&gt;&gt;&gt;&gt;&gt; site",
    ]);
  });

  it("renders a chapter from the exact HTML the next push sends, and the site gets that HTML", async () => {
    const s = await pulledSite(start, { ...webAndGoSite(), body: "markdown" });
    const text = await s.read(INTRO);
    const body = "Hello **world** & <em>friends</em>\n\n- one\n- two\n";
    await s.write(INTRO, `${text.slice(0, text.indexOf("---", 4) + 4)}${body}`);
    const p = await preview({ root: s.root });
    const page = await get(p.url, { path: "/chapters/web/01-intro.md" });
    expect(page.status).toBe(200);
    const sent = bodyCodec("markdown").toHtml(body, "markdown", INTRO);
    expect(frameDocument(page.body)).toContain(`<body>${sent}</body>`);

    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stderr + pushed.stdout).toBe(0);
    expect(s.emulator.state.dump().chapters.find((c) => c.id === 1)?.content).toBe(sent);
  });

  it("shows an unchanged chapter as the HTML the site holds", async () => {
    const s = await pulledSite(start, { ...webAndGoSite(), body: "markdown" });
    const p = await preview({ root: s.root });
    const page = await get(p.url, { path: "/chapters/web/01-intro.md" });
    expect(frameDocument(page.body)).toContain("<body><p>a</p>\n<p>b</p>\n<p>c</p></body>");
  });

  it("keeps a script of chapter HTML inside the sandboxed frame's srcdoc, under a strict CSP", async () => {
    const s = await pulledSite(start, webAndGoSite());
    await s.replace(INTRO, "<p>a</p>", '<p>a</p><script>alert("x")</script><img src=x onerror="alert(1)">');
    const p = await preview({ root: s.root });
    const page = await get(p.url, { path: "/chapters/web/01-intro.md" });
    expect(page.headers["content-security-policy"]).toBe(CSP);
    expect(CSP).toContain("default-src 'none'");
    expect(CSP).toContain("script-src 'self'");
    expect(page.body).not.toContain("<script>alert");
    expect(page.body).not.toContain("<img src=x");
    expect(page.body).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    // Sandboxed: no script, an origin of its own; its links open in a new tab.
    expect(page.body).toMatch(
      /<iframe class="chapter" id="chapter-frame" sandbox="allow-popups allow-popups-to-escape-sandbox" /,
    );
    expect(page.body).not.toContain("allow-scripts");
    expect(page.body).not.toContain("allow-same-origin");
    expect(frameDocument(page.body)).toContain('<script>alert("x")</script>');
    // The page's only script is the file the server serves.
    expect([...page.body.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script src="/assets/preview.js" defer>',
    ]);
    const script = await get(p.url, { path: "/assets/preview.js" });
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.body).toContain('new EventSource("/events")');
  });

  it("shows a course's values and its chapters", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const p = await preview({ root: s.root });
    const page = await get(p.url, { path: "/courses/web" });
    expect(page.status).toBe(200);
    expect(page.body).toContain("<dt>title</dt><dd>Web</dd>");
    expect(page.body).toContain("<dt>excerpt</dt><dd>HTML</dd>");
    expect(page.body).toContain("<dt>status</dt><dd>published</dd>");
    expect(indexStates(page.body)).toEqual([
      "courses/web/01-intro.md unchanged",
      "courses/web/02-tags.md unchanged",
    ]);
  });

  it("shows a chapter's changes since the last sync word by word", async () => {
    const s = await pulledSite(start, webAndGoSite());
    await s.replace(INTRO, "<p>b</p>", "<p>bee here</p>");
    const p = await preview({ root: s.root });
    const diff = await get(p.url, { path: "/chapters/web/01-intro.md/diff" });
    expect(diff.status).toBe(200);
    expect(diff.body).toMatch(
      /<div class="diff" id="word-diff">[\s\S]*<del>b<\/del><ins>bee here<\/ins>[\s\S]*<\/div>/,
    );
    const quiet = await get(p.url, { path: "/chapters/go/01-tour.md/diff" });
    expect(quiet.body).toContain('<p id="no-diff">No change since the last sync.</p>');
  });

  it("answers a fragment with the live part alone, and a missing page with 404", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const p = await preview({ root: s.root });
    const part = await get(p.url, { path: "/courses/go?fragment=live" });
    expect(part.body).toMatch(/^<div id="live" data-watch="courses\/go"><h1>Go/);
    const missing = await get(p.url, { path: "/chapters/web/09-gone.md" });
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("names no course or chapter file of the tree");
  });

  it("answers a page of the index it does not have with 404, naming the pages it has", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const p = await preview({ root: s.root });
    expect((await get(p.url, { path: "/?page=1" })).body).toContain('<h2 id="h-web">');
    for (const page of ["2", "0", "x"]) {
      const missing = await get(p.url, { path: `/?page=${page}` });
      expect(missing.status).toBe(404);
      expect(missing.body).toContain(`?page=${page} names no page of the index: it has one page.`);
    }
  });

  it("refuses a foreign Host (DNS rebinding) and answers localhost", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const p = await preview({ root: s.root });
    const foreign = await get(p.url, { host: `evil.example:${p.port}` });
    expect(foreign.status).toBe(421);
    expect(foreign.body).toBe(`This preview answers only to 127.0.0.1:${p.port}.\n`);
    expect((await get(p.url, { host: "127.0.0.1:1" })).status).toBe(421);
    expect((await get(p.url, { host: `localhost:${p.port}` })).status).toBe(200);
    expect((await get(p.url, { path: "/events", host: "evil.example" })).status).toBe(421);
  });

  it("answers anything but GET and HEAD with 405: nothing writes", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const p = await preview({ root: s.root });
    const before = await s.tree();
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const answer = await get(p.url, { method, path: "/chapters/web/01-intro.md" });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe("GET, HEAD");
    }
    for (const path of ["/", "/events", "/assets/preview.js"]) {
      const head = await get(p.url, { method: "HEAD", path });
      expect(head.status).toBe(200);
      expect(head.body).toBe("");
    }
    for (const path of ["/", "/courses/web", "/chapters/web/01-intro.md", "/chapters/web/01-intro.md/diff"])
      expect((await get(p.url, { path })).status).toBe(200);
    expect(await s.tree()).toEqual(before);
    expect(s.log()).toEqual([]);
  });

  it("says a port in use is in use, and refuses a non-loopback address unless allowed", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const address = taken.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      await expect(startPreview({ root: s.root, port })).rejects.toThrow(
        `port ${port} on 127.0.0.1 is in use`,
      );
    } finally {
      taken.close();
    }
    await expect(startPreview({ root: s.root, port: 0, host: "0.0.0.0" })).rejects.toThrow(
      "0.0.0.0 is not a loopback address",
    );
  });

  it("says it cannot compare with the site when started without a way to read it", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const p = await preview({ root: s.root });
    const page = await get(p.url, { path: "/chapters/web/01-intro.md/diff?against=site" });
    expect(page.status).toBe(502);
    expect(page.body).toContain(
      "Could not read the site: this preview was started without a way to read the site",
    );
    expect(s.log()).toEqual([]);
  });

  it("shows a conflict a pull left beside the file, naming the site's version", async () => {
    const s = await pulledSite(start, webAndGoSite());
    await s.replace(TAGS, "title: Tags", "title: Tags (mine)");
    ok(s.emulator.state.edit("chapters", 2, { title: "Tags (theirs)" }));
    expect((await s.cli("pull")).code).toBe(3);
    const p = await preview({ root: s.root });
    expect(indexStates((await get(p.url)).body)).toContain("courses/web/02-tags.md conflict");
    const page = await get(p.url, { path: "/chapters/web/02-tags.md" });
    expect(page.body).toContain("the site changed it too: merge by hand and `coursesync push --force`");
    expect(page.body).toContain("The site's version: <code>courses/web/02-tags.remote.md</code>");
    // The file still parses: its HTML is shown, as the next push --force would send it.
    expect(frameDocument(page.body)).toContain("<body><p>tags</p></body>");
  });
});
