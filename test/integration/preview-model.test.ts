import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { type PreviewModel, readModel } from "../../src/preview/model.js";
import { readChapterFile } from "../../src/tree/chapter-file.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** Titles YAML must quote, and ordinals that do not follow the file names. */
function trickySite() {
  return {
    body: "html" as const,
    options: { now: manualClock().now },
    courses: [{ title: "Web: the basics" }],
    chapters: [
      { course_id: 1, title: "Intro: start here", ordinal: 3, content: "<p>a</p>" },
      { course_id: 1, title: "42", ordinal: 1, content: "<p>b</p>" },
      { course_id: 1, title: "- dash #hash 'quote'", ordinal: 2, content: "<p>c</p>" },
      { course_id: 1, title: "true", ordinal: 10, content: "<p>d</p>" },
    ],
  };
}

/** Each chapter as the index lists it: file, id, title, ordinal, in page order. */
function listed(model: PreviewModel): string[] {
  return model.courses.flatMap((c) =>
    c.chapters.map((ch) => `${ch.file} ${ch.id} ${ch.title} ${ch.ordinal}`),
  );
}

/** The same, each file parsed afresh, sorted as the index sorts (ordinal, then file). */
async function parsedAfresh(root: string, model: PreviewModel): Promise<string[]> {
  const rows = [];
  for (const chapter of model.courses.flatMap((c) => c.chapters)) {
    const read = readChapterFile(await readFile(`${root}/${chapter.file}`, "utf8"), chapter.file).chapter!;
    const title = typeof read.title === "string" && read.title.trim() !== "" ? read.title : chapter.name;
    const ordinal = typeof read.ordinal === "number" ? read.ordinal : undefined;
    rows.push({ file: chapter.file, row: `${chapter.file} ${read.id} ${title} ${ordinal}`, ordinal });
  }
  const order = (o: number | undefined) => o ?? Number.POSITIVE_INFINITY;
  rows.sort((a, b) => order(a.ordinal) - order(b.ordinal) || (a.file < b.file ? -1 : 1));
  return rows.map((r) => r.row);
}

describe("preview model", () => {
  it("lists unchanged chapter files with the titles and ordinals a fresh parse finds, without parsing them", async () => {
    const s = await pulledSite(start, trickySite());
    const model = await readModel({ root: s.root, config: await loadConfig(s.root) });
    expect(listed(model)).toEqual(await parsedAfresh(s.root, model));
    expect(model.courses.map((c) => c.title)).toEqual(["Web: the basics"]);
    expect(model.courses[0]!.chapters).toHaveLength(4);
    for (const chapter of model.courses[0]!.chapters) {
      expect(chapter.state).toBe("unchanged");
      expect(chapter.invalid).toBe(false);
      expect(model.source.scanned.get(chapter.file)?.parsed).toBeUndefined();
    }
  });

  it("shows an edited title and ordinal as the file now says them", async () => {
    const s = await pulledSite(start, trickySite());
    const before = await readModel({ root: s.root, config: await loadConfig(s.root) });
    const intro = before.courses[0]!.chapters.find((c) => c.title === "Intro: start here")!;
    await s.replace(intro.file, "ordinal: 3", "ordinal: 0");
    await s.replace(intro.file, "start here", "start here, edited");
    const model = await readModel({ root: s.root, config: await loadConfig(s.root) });
    expect(listed(model)).toEqual(await parsedAfresh(s.root, model));
    const first = model.courses[0]!.chapters[0]!;
    expect(first).toMatchObject({ file: intro.file, title: "Intro: start here, edited", ordinal: 0 });
    expect(first.state).toBe("modified");
  });
});
