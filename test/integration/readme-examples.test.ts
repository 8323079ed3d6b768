import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { docExample as example } from "../helpers/docs.js";
import { useEmulators } from "../helpers/emulator.js";
import { initTree, pullNewTree } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const PROJECT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("the examples of the README and docs/ are what the commands really print and write", () => {
  it("chapter-file: the first lines of a chapter file as pull writes it from the sample site", async () => {
    const emulator = await start({ seedDir: path.join(PROJECT, "sample-site") });
    const { root } = await pullNewTree(emulator);
    const shown = await example("chapter-file");
    expect(shown.at(-1)).toBe("...");
    const file = path.join(
      root,
      "courses/web-development-foundations/01-what-a-browser-does-with-your-html.md",
    );
    const real = (await readFile(file, "utf8")).split("\n");
    expect(shown.slice(0, -1)).toEqual(real.slice(0, shown.length - 1));
  });

  it("check: the problems of the example's files, word for word", async () => {
    const emulator = await start();
    const { root, env } = await initTree(emulator);
    const folder = path.join(root, "courses", "html-basics");
    await mkdir(folder, { recursive: true });
    const files: Record<string, string> = {
      "course.yaml":
        "id: 7\ntitle: HTML basics\nstatus: live\nexcerpt: Tags, attributes and forms.\nfree: true\nquestions_enabled: false\nscheduled_at: 2026-03-01 09:00\npublished_at: null\nauthor: Ada\n",
      "03-what-a-browser-does.md":
        "---\nid: 71\ntitle: What a browser does\nordinal: 5\n---\nA browser reads HTML.\n",
      "04-tags.md": "---\nid: 71\ntitle: Tags\nordinal: 4\n---\nTags.\n",
      "05-forms.markdown": "---\ntitle: Forms\nordinal: 5\n---\nForms.\n",
    };
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(folder, name), text);
    const shown = await example("check");
    expect(shown[0]).toBe("$ coursesync check");
    const result = await runCli(["check"], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split("\n")).toEqual(shown.slice(1));
  });

  it("library: the example is docs/examples/library.mjs word for word (the package test runs that file)", async () => {
    const file = await readFile(path.join(PROJECT, "docs", "examples", "library.mjs"), "utf8");
    expect([...(await example("library")), ""].join("\n")).toBe(file);
  });
});
