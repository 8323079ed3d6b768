import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docFiles } from "../helpers/docs.js";

const PROJECT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The anchors GitHub gives a Markdown file's headings (code blocks left out). */
function anchorsOf(text: string): string[] {
  const anchors: string[] = [];
  let fence = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) fence = !fence;
    else if (!fence && /^#{1,6} /.test(line)) {
      const heading = line.replace(/^#+ /, "").trim().toLowerCase();
      anchors.push(heading.replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-"));
    }
  }
  return anchors;
}

/** Every link and image target of a Markdown text that is not a web address. */
function localTargets(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

describe("the README and the pages of docs/", () => {
  it("link only to files that exist and to headings those files have", async () => {
    const broken: string[] = [];
    for (const file of await docFiles()) {
      const text = await readFile(path.join(PROJECT, file), "utf8");
      for (const target of localTargets(text)) {
        const [where, anchor] = target.split("#") as [string, string | undefined];
        const linked =
          where === "" ? path.join(PROJECT, file) : path.join(PROJECT, path.dirname(file), where);
        if (!existsSync(linked)) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor !== undefined && !anchorsOf(await readFile(linked, "utf8")).includes(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README links to every page of docs/", async () => {
    const readme = await readFile(path.join(PROJECT, "README.md"), "utf8");
    const linked = new Set(localTargets(readme).map((target) => target.split("#")[0]));
    const pages = (await docFiles()).filter((file) => file !== "README.md");
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});
