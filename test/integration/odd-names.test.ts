import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useEmulators } from "../helpers/emulator.js";
import { edit, pulledSite, webSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A pulled `webSite()`, Intro then edited here. */
async function setup() {
  const s = await pulledSite(start, webSite());
  await s.replace("courses/web/01-intro.md", "<p>one</p>", "<p>one, edited</p>");
  /** Write a file whose path below a folder of the tree holds these bytes (not UTF-8; `/` makes folders). */
  const writeOdd = async (folder: string, name: number[], text = "title: Notes\n") => {
    const full = Buffer.concat([Buffer.from(`${s.file(folder)}${path.sep}`), Buffer.from(name)]);
    const slash = full.lastIndexOf(path.sep);
    await mkdir(full.subarray(0, slash), { recursive: true });
    await writeFile(full, text);
    return full;
  };
  return { ...s, writeOdd };
}

// notes-<ff>t<fe>.md: bytes no UTF-8 text holds.
const NOTES = [0x6e, 0x6f, 0x74, 0x65, 0x73, 0x2d, 0xff, 0x74, 0xfe, 0x2e, 0x6d, 0x64];
const NOTES_SHOWN = "courses/web/notes-\\xfft\\xfe.md";

describe("a file name that is not UTF-8", () => {
  it("where a chapter file would be, is an invalid file: named, never read, deleted or sent", async () => {
    const s = await setup();
    const odd = await s.writeOdd("courses/web", NOTES, "---\ntitle: Notes\n---\n<p>mine</p>\n");
    const before = await s.tree();
    edit(s.emulator, "chapters", 2, { title: "Tags, renamed on the site" });

    const status = await s.cli("status");
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`invalid   ${NOTES_SHOWN}  (has a name that is not valid UTF-8`);
    expect(status.stdout).toContain("modified  courses/web/01-intro.md");

    const diff = await s.cli("diff");
    expect(diff.stderr).toBe("");
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("+<p>one, edited</p>");

    // Push sends nothing; pull leaves the file alone, pulls the rest, and exits 1.
    for (const args of [["push", "--yes"], ["pull"]]) {
      const result = await s.cli(...args);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        `${NOTES_SHOWN}: has a name that is not valid UTF-8 (its bad bytes shown as \\xNN), so coursesync cannot tell which record it holds`,
      );
      expect(result.stderr).toContain(`mv $'${NOTES_SHOWN}' <new name>`);
      expect(result.stderr).not.toContain("internal error");
    }
    expect(s.writes()).toEqual([]);
    const { "courses/web/02-tags.md": tags, ...rest } = before;
    const after = await s.tree();
    const web = ".coursesync/production/courses/1.json";
    expect(after).toEqual({
      ...rest,
      "courses/web/02-tags-renamed-on-the-site.md": tags!.replace(
        "title: Tags",
        "title: Tags, renamed on the site",
      ),
      [web]: expect.stringContaining("02-tags-renamed-on-the-site.md"),
      // The site changed: the snapshot records when its listing last saw it.
      ".coursesync/production/site.json": expect.stringContaining(
        '"listed": "2026-03-01T09:30:00.001+00:00"',
      ),
    });
    expect(await readFile(odd, "utf8")).toBe("---\ntitle: Notes\n---\n<p>mine</p>\n");

    // Ignored, it is out of the way: the pull and the push go through, and the file stays.
    await s.replace("coursesync.yaml", "ignore: []", "ignore: ['notes-*']");
    expect((await s.cli("pull")).code).toBe(0);
    const push = await s.cli("push", "--yes");
    expect(push.code, push.stderr).toBe(0);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/1"]);
    expect(existsSync(odd)).toBe(true);
  });

  it("where no record can be (a picture, a subfolder), is skipped with a warning and the run goes on", async () => {
    const s = await setup();
    const picture = await s.writeOdd("courses/web", [0x70, 0x69, 0x63, 0xe9, 0x2e, 0x70, 0x6e, 0x67], "png");
    const nested = await s.writeOdd("courses/web", [0x69, 0x6d, 0x67, 0xff, 0x2f, 0x61, 0x2e, 0x6d, 0x64]);
    const warnings = [
      "warning: courses/web/img\\xff has a name that is not valid UTF-8 (its bad bytes shown as \\xNN): skipped",
      "warning: courses/web/pic\\xe9.png has a name that is not valid UTF-8 (its bad bytes shown as \\xNN): skipped",
    ];
    edit(s.emulator, "chapters", 2, { title: "Tags, renamed on the site" });

    for (const args of [["status"], ["diff"], ["pull"], ["push", "--yes"]]) {
      const result = await s.cli(...args);
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(0);
      expect(result.stderr.trim().split("\n")).toEqual(warnings);
    }
    expect(await s.read("courses/web/02-tags-renamed-on-the-site.md")).toContain("title: Tags, renamed");
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/1"]);
    expect(await readFile(picture, "utf8")).toBe("png");
    expect(await readFile(nested, "utf8")).toBe("title: Notes\n");
  });
});
