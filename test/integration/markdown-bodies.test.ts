import { readdirSync, readFileSync } from "node:fs";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import { pull } from "../../src/sync/pull/index.js";
import type { BodyCodec } from "../../src/tree/bodies.js";
import { parseChapterFile } from "../../src/tree/chapter-file.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { equivalentNodes, parseHtml } from "../../src/tree/markdown/gate.js";
import { useEmulators } from "../helpers/emulator.js";
import { pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const here = path.dirname(fileURLToPath(import.meta.url));
const spec = createRequire(import.meta.url)("commonmark-spec") as { tests: Array<{ html: string }> };
const fixtures = path.join(here, "..", "fixtures", "editor-html");
const corpora = {
  commonmark: [...new Set(spec.tests.map((t) => t.html.replace(/→/g, "\t")))],
  editors: readdirSync(fixtures)
    .filter((name) => name.endsWith(".html"))
    .sort()
    .map((name) => readFileSync(path.join(fixtures, name), "utf8")),
};

const PARAGRAPH = "Appended by an author, in Markdown.";

async function corpusSite(fragments: readonly string[]) {
  const site = await pulledSite(start, {
    options: { pageSize: 100 },
    courses: [{ title: "Corpus", status: 1 }],
    chapters: fragments.map((content, i) => ({
      course_id: 1,
      title: `Fragment ${i + 1}`,
      ordinal: i + 1,
      content,
    })),
  });
  const folder = path.join(site.root, "courses", "corpus");
  const files = readdirSync(folder)
    .filter((name) => name.endsWith(".md"))
    .sort();
  const byId = new Map<number, string>();
  for (const name of files) {
    const parsed = parseChapterFile(await readFile(path.join(folder, name), "utf8"), name);
    byId.set(parsed.id!, path.join(folder, name));
  }
  return { ...site, byId };
}

describe.each(Object.entries(corpora))("Markdown bodies on the %s corpus", (name, fragments) => {
  it("round-trips: pull then push sends nothing; edits send only themselves; a second pull changes nothing", async () => {
    const site = await corpusSite(fragments);
    const original = new Map(site.emulator.state.dump().chapters.map((c) => [c.id, c.content]));

    // Report the share stored as Markdown (a figure, not an assertion).
    const texts = await Promise.all([...site.byId.values()].map((file) => readFile(file, "utf8")));
    const markdown = texts.filter((text) => !/^format:/m.test(text)).length;
    console.log(`${name}: ${markdown}/${texts.length} chapters stored as Markdown`);

    // Pull then push sends nothing.
    const quiet = await site.cli("push", "--yes");
    expect(quiet.stdout).toContain("Nothing to push");
    expect(site.writes()).toEqual([]);

    // An edit of one chapter sends that chapter alone; every other keeps the site's bytes.
    const [firstId, firstFile] = [...site.byId].find(
      ([, file]) => !/^format:/m.test(readFileSync(file, "utf8")),
    )!;
    await appendFile(firstFile, "\nOne more line.\n");
    expect((await site.cli("push", "--yes")).code).toBe(0);
    expect(site.writes()).toEqual([`PATCH /api/v1/chapters/${firstId}`]);
    for (const chapter of site.emulator.state.dump().chapters) {
      if (chapter.id !== firstId)
        expect(chapter.content, `chapter ${chapter.id}`).toBe(original.get(chapter.id));
    }
    await writeFile(firstFile, readFileSync(firstFile, "utf8").replace("\nOne more line.\n", ""));
    expect((await site.cli("push", "--yes")).code).toBe(0);
    site.emulator.state.clearRequests();
    original.set(firstId, site.emulator.state.get("chapters", firstId)!.content);

    // Append a paragraph to every chapter stored as Markdown, then push.
    const edited: number[] = [];
    for (const [id, file] of site.byId) {
      const text = await readFile(file, "utf8");
      if (/^format:/m.test(text)) continue;
      await appendFile(file, `\n${PARAGRAPH}\n`);
      edited.push(id);
    }
    const pushed = await site.cli("push", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(site.writes().filter((w) => w.startsWith("PATCH"))).toHaveLength(edited.length);
    const after = new Map(site.emulator.state.dump().chapters.map((c) => [c.id, c.content]));
    for (const [id, html] of original) {
      if (edited.includes(id)) {
        // The original's parsed nodes (open elements closed), then the new paragraph after them.
        const expected = [...parseHtml(html).childNodes, ...parseHtml(`<p>${PARAGRAPH}</p>`).childNodes];
        expect(equivalentNodes(parseHtml(after.get(id)!).childNodes, expected), `chapter ${id}`).toBe(true);
      } else {
        // Unedited chapters keep the site's bytes exactly.
        expect(after.get(id), `chapter ${id}`).toBe(html);
      }
    }
    expect((await site.cli("status", "--exit-code")).code).toBe(0);

    // A second pull of what was pushed changes nothing: the same Markdown, byte for byte.
    const before = await site.tree();
    const again = await site.cli("pull", "--json");
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { files_written: number }).files_written).toBe(0);
    expect(await site.tree()).toEqual(before);
  });
});

describe("Markdown bodies", () => {
  const SIMPLE =
    '<h2>Intro</h2>\n<p>Some <strong>bold</strong> text and a <a href="https://x.test/">link</a>.</p>';

  it("an edit that renders to equivalent HTML sends no content; a title edit converts nothing", async () => {
    const site = await corpusSite([SIMPLE, "<p>Second</p>"]);
    const [first] = [...site.byId.values()];
    const text = await readFile(first!, "utf8");
    expect(text).toContain("## Intro\n\nSome **bold** text");
    // Same HTML, other Markdown spelling: *bold* emphasis markers swapped for __.
    await writeFile(
      first!,
      text.replace("**bold**", "__bold__").replace("title: Fragment 1", "title: First"),
    );
    const pushed = await site.cli("push", "--yes");
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/update chapter \d+ .* title: "Fragment 1" -> "First"$/m);
    expect(pushed.stdout).not.toContain("body changed");
    expect(site.emulator.state.dump().chapters[0]?.content).toBe(SIMPLE);
  });

  it("switching body: to html and pulling rewrites the bodies verbatim and sends nothing", async () => {
    const site = await corpusSite([SIMPLE, "<p>Second</p>"]);
    const config = path.join(site.root, "coursesync.yaml");
    await writeFile(config, (await readFile(config, "utf8")).replace("body: markdown", "body: html"));
    site.emulator.state.clearRequests();
    const switched = await site.cli("pull");
    expect(switched.code).toBe(0);
    expect(site.log().every((line) => line.startsWith("GET ") || line.startsWith("POST /api/login"))).toBe(
      true,
    );
    for (const file of site.byId.values()) {
      const parsed = parseChapterFile(await readFile(file, "utf8"), file);
      expect(parsed.format).toBe("html");
    }
    expect(parseChapterFile(await readFile([...site.byId.values()][0]!, "utf8"), "x").body).toBe(SIMPLE);
    expect((await site.cli("status", "--exit-code")).code).toBe(0);
    // And back.
    await writeFile(config, (await readFile(config, "utf8")).replace("body: html", "body: markdown"));
    expect((await site.cli("pull")).code).toBe(0);
    expect(await readFile([...site.byId.values()][0]!, "utf8")).toContain("## Intro");
  });

  it("a re-pull of an unchanged site converts nothing", async () => {
    const site = await corpusSite(corpora.editors.slice(0, 20));
    let conversions = 0;
    const counting: BodyCodec = {
      ...markdownCodec,
      fromHtml: (html) => {
        conversions++;
        return markdownCodec.fromHtml(html);
      },
    };
    const client = new ApiClient({
      baseUrl: site.emulator.baseUrl,
      credentials: { email: "demo@example.com", password: "coursesync" },
    });
    try {
      const result = await pull(
        { root: site.root, site: "production", siteUrl: site.emulator.baseUrl, ignore: [], bodies: counting },
        client,
      );
      expect(result.filesWritten).toBe(0);
      expect(conversions).toBe(0);
    } finally {
      client.close();
    }
  });
});
