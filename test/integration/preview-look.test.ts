import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CSP } from "../../src/preview/server.js";
import { useEmulators } from "../helpers/emulator.js";
import { frameDocument, get, usePreviews } from "../helpers/preview.js";
import { pulledSite, webAndGoSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
const preview = usePreviews();
afterEach(cleanupTestdirs);

const INTRO = "/chapters/web/01-intro.md";

describe("preview: chapters styled and linked as on the site (coursesync.yaml's preview:)", () => {
  it("serves a stylesheet of the tree to the chapter frame, and resolves relative links against site_url", async () => {
    const s = await pulledSite(start, webAndGoSite());
    await mkdir(path.join(s.root, "styles"));
    await writeFile(path.join(s.root, "styles/site.css"), "h2 { color: rebeccapurple; }\n");
    await appendFile(
      path.join(s.root, "coursesync.yaml"),
      "preview:\n  stylesheet: styles/site.css\n  site_url: https://school.example/courses/\n",
    );
    const p = await preview({ root: s.root });
    const page = await get(p.url, { path: INTRO });
    const frame = frameDocument(page.body) ?? "";
    expect(frame).toContain(`<link rel="stylesheet" href="http://127.0.0.1:${p.port}/assets/site.css">`);
    expect(frame).toContain('<base target="_blank" href="https://school.example/courses/">');
    // The policy lets the frame's <base> name the site, and nothing else changes.
    expect(page.headers["content-security-policy"]).toBe(
      CSP.replace("base-uri 'none'", "base-uri https://school.example"),
    );
    const css = await get(p.url, { path: "/assets/site.css" });
    expect(css.status).toBe(200);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(css.body).toBe("h2 { color: rebeccapurple; }\n");
  });

  it("links a stylesheet at a URL, let in by the policy; a stylesheet file that is missing is a 404 that names it", async () => {
    const s = await pulledSite(start, webAndGoSite());
    await appendFile(
      path.join(s.root, "coursesync.yaml"),
      "preview:\n  stylesheet: https://cdn.example/site.css\n",
    );
    const p = await preview({ root: s.root });
    const page = await get(p.url, { path: INTRO });
    expect(frameDocument(page.body)).toContain('<link rel="stylesheet" href="https://cdn.example/site.css">');
    expect(frameDocument(page.body)).toContain('<base target="_blank">');
    expect(page.headers["content-security-policy"]).toContain(
      "style-src 'self' 'unsafe-inline' https://cdn.example;",
    );
    expect((await get(p.url, { path: "/assets/site.css" })).status).toBe(404);

    const t = await pulledSite(start, webAndGoSite());
    await appendFile(path.join(t.root, "coursesync.yaml"), "preview:\n  stylesheet: styles/gone.css\n");
    const q = await preview({ root: t.root });
    const missing = await get(q.url, { path: "/assets/site.css" });
    expect(missing.status).toBe(404);
    expect(missing.body).toBe("preview.stylesheet styles/gone.css: cannot be read (ENOENT)\n");
  });

  it("without preview:, chapters get the plain default look", async () => {
    const s = await pulledSite(start, webAndGoSite());
    const p = await preview({ root: s.root });
    const page = await get(p.url, { path: INTRO });
    expect(page.headers["content-security-policy"]).toBe(CSP);
    expect(frameDocument(page.body)).not.toContain("<link");
    expect(frameDocument(page.body)).toContain('<base target="_blank">');
  });
});
