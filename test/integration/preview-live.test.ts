import { writeFileSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ChangeEvent, LiveHub } from "../../src/preview/live.js";
import { useEmulators } from "../helpers/emulator.js";
import {
  type EventStream,
  frameDocument,
  get,
  openEvents,
  shownAfter,
  usePreviews,
} from "../helpers/preview.js";
import { pulledSite, webAndGoSite } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
const preview = usePreviews();
const streams: EventStream[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await cleanupTestdirs();
});

const INTRO = "courses/web/01-intro.md";
const PAGE = "/chapters/web/01-intro.md";

async function live() {
  const s = await pulledSite(start, webAndGoSite());
  const p = await preview({ root: s.root });
  const stream = await openEvents(p.url);
  streams.push(stream);
  return { s, p, stream };
}

describe("preview, live", () => {
  it("sends an event naming a saved chapter, and its page part then shows the new HTML", async () => {
    const { s, p, stream } = await live();
    await s.replace(INTRO, "<p>b</p>", "<p>saved</p>");
    const part = await shownAfter(stream, p.url, INTRO, PAGE, (html) => html.includes("saved"));
    expect(part).toMatch(/^<div id="live" data-watch="courses\/web\/01-intro.md">/);
    expect(part).toContain('data-state="modified"');
    expect(frameDocument(part)).toContain("<p>a</p>\n<p>saved</p>\n<p>c</p>");
  });

  it("shows a file that stops parsing with its error in place, and the chapter again once fixed", async () => {
    const { s, p, stream } = await live();
    await s.replace(INTRO, "ordinal: 1", "ordinal: one");
    // The save is not atomic: a look between its truncate and its write sees another problem
    // (no front matter) for a moment; the page settles on the file as saved.
    const broken = await shownAfter(stream, p.url, INTRO, PAGE, (html) =>
      html.includes("ordinal must be a whole number"),
    );
    expect(broken).toContain("ordinal must be a whole number, not &quot;one&quot;");
    expect(broken).toContain(
      '<span class="bad" id="L4" data-kind="bad"><span class="ln">4</span> ordinal: one</span>',
    );
    expect(frameDocument(broken)).toBeUndefined();

    await s.replace(INTRO, "ordinal: one", "ordinal: 1");
    const fixed = await shownAfter(stream, p.url, INTRO, PAGE, (html) => !html.includes("invalid"));
    expect(fixed).toContain('data-state="unchanged"');
    expect(frameDocument(fixed)).toContain("<p>a</p>\n<p>b</p>\n<p>c</p>");
  });

  it("names new and deleted files, and the index follows", async () => {
    const { s, p, stream } = await live();
    await s.write("courses/go/02-more.md", "---\ntitle: More\nordinal: 2\nformat: html\n---\n<p>more</p>\n");
    const added = await shownAfter(stream, p.url, "courses/go/02-more.md", "/", (html) =>
      html.includes('data-path="courses/go/02-more.md" data-state="new"'),
    );
    expect(added).toContain('<a href="/chapters/go/02-more.md">More</a>');
    await rm(s.file("courses/go/01-tour.md"));
    const gone = await shownAfter(stream, p.url, "courses/go/01-tour.md", "/", (html) =>
      html.includes('data-path="courses/go/01-tour.md" data-state="deleted"'),
    );
    expect(gone).not.toContain('href="/chapters/go/01-tour.md"');
    expect((await get(p.url, { path: "/chapters/go/01-tour.md" })).status).toBe(404);
  });

  it("after saves in one course folder, a move to another and a save back, shows what a fresh start shows", async () => {
    const { s, p, stream } = await live();
    await s.replace(INTRO, "<p>b</p>", "<p>saved</p>");
    await shownAfter(stream, p.url, INTRO, "/", (html) =>
      html.includes(`data-path="${INTRO}" data-state="modified"`),
    );
    await s.replace("courses/go/01-tour.md", "title: Tour", "title: The tour");
    const go = await shownAfter(stream, p.url, "courses/go/01-tour.md", "/", (html) =>
      html.includes('data-path="courses/go/01-tour.md" data-state="modified"'),
    );
    // The other course's states are kept: only the saved file's folder was read again.
    expect(go).toContain(`data-path="${INTRO}" data-state="modified"`);
    await rename(s.file("courses/web/02-tags.md"), s.file("courses/go/02-tags.md"));
    const moved = await shownAfter(stream, p.url, "courses/go/02-tags.md", "/", (html) =>
      html.includes('data-path="courses/go/02-tags.md" data-state="moved"'),
    );
    expect(moved).not.toContain('data-path="courses/web/02-tags.md"');
    const fresh = await preview({ root: s.root });
    expect((await get(p.url, { path: "/?fragment=live" })).body).toBe(
      (await get(fresh.url, { path: "/?fragment=live" })).body,
    );
    const page = "/chapters/go/02-tags.md/diff?fragment=live";
    expect((await get(p.url, { path: page })).body).toBe((await get(fresh.url, { path: page })).body);
  });

  it("follows the snapshot: after a push, the pushed chapter is unchanged again", async () => {
    const { s, p, stream } = await live();
    await s.replace(INTRO, "<p>b</p>", "<p>pushed</p>");
    await shownAfter(stream, p.url, INTRO, PAGE, (html) => html.includes('data-state="modified"'));
    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    const after = await shownAfter(stream, p.url, "courses", PAGE, (html) =>
      html.includes('data-state="unchanged"'),
    );
    expect(frameDocument(after)).toContain("<p>pushed</p>");
  });

  it("tells a second save made before the first one's second look at that look", async () => {
    const root = await testdir({ "courses/web/01-intro.md": "one\n" });
    await mkdir(path.join(root, ".coursesync", "production"), { recursive: true });
    const file = path.join(root, "courses/web/01-intro.md");
    const told: string[] = [];
    let firstTold: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      firstTold = resolve;
    });
    const looks: Array<() => void> = [];
    const hub = new LiveHub(
      (event: ChangeEvent) => {
        told.push(event.path);
        // The second save lands before the first one's second look.
        if (told.length === 1) writeFileSync(file, "three, longer\n");
        firstTold();
      },
      (fn) => {
        looks.push(fn);
        return () => {};
      },
    );
    await hub.watch(root, path.join(root, ".coursesync", "production"), []);
    try {
      await writeFile(file, "two\n");
      await first;
      const before = told.length;
      looks[0]?.();
      expect(told.length).toBe(before + 1);
      expect(told.at(-1)).toBe(INTRO);
      // Nothing moved since: the next look tells nothing.
      looks.at(-1)?.();
      expect(told.length).toBe(before + 1);
    } finally {
      await hub.close();
    }
  });
});
