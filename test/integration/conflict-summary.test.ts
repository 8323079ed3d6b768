import { afterEach, describe, expect, it } from "vitest";
import { useEmulators } from "../helpers/emulator.js";
import { edit, type PulledSite, pulledSite, webSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";
const EXTRA = "courses/web/03-extra.md";

/** The small web site (Intro, Tags) with a third chapter, Extra, pulled. */
function site(): Promise<PulledSite> {
  const web = webSite();
  const extra = { course_id: 1, title: "Extra", ordinal: 3, content: "<p>extra</p>" };
  return pulledSite(start, { ...web, chapters: [...(web.chapters ?? []), extra] });
}

/** The same line of Intro's body edited on both sides: pull writes markers into the file. */
async function markersConflict(s: PulledSite) {
  await s.replace(INTRO, "<p>one</p>", "<p>one, mine</p>");
  edit(s.emulator, "chapters", 1, { content: "<p>one, theirs</p>" });
}

/** Tags' title edited on both sides: pull writes the site's version beside the file. */
async function besideConflict(s: PulledSite) {
  await s.replace(TAGS, "title: Tags", "title: Tags (mine)");
  edit(s.emulator, "chapters", 2, { title: "Tags (theirs)" });
}

/** The lines of pull's output that sum up its conflicts. */
function summaryLines(stdout: string): string[] {
  return stdout.split("\n").filter((line) => /^\d+ conflicts?: /.test(line));
}

describe("pull's conflict summary says what the run did", () => {
  it("markers in the file: resolve them and push, without --force", async () => {
    const s = await site();
    await markersConflict(s);
    const pull = await s.cli("pull");
    expect(pull.code, pull.stderr).toBe(3);
    expect(await s.read(INTRO)).toContain(
      "<<<<<<< local\n<p>one, mine</p>\n=======\n<p>one, theirs</p>\n>>>>>>> site\n",
    );
    expect(await s.tree()).not.toHaveProperty(["courses/web/01-intro.remote.md"]);
    expect(summaryLines(pull.stdout)).toEqual([
      `1 conflict: both sides are in the file between conflict markers (${INTRO}). Keep what you want, remove the markers, then \`coursesync push\` (no --force: the merge already holds the site's side).`,
    ]);
    expect(pull.stdout).not.toContain("push --force");
    expect(pull.stdout).not.toContain("beside");
  });

  it("the site's version beside the file: merge by hand, then push --force or pull --theirs", async () => {
    const s = await site();
    await besideConflict(s);
    const pull = await s.cli("pull");
    expect(pull.code, pull.stderr).toBe(3);
    expect(await s.read("courses/web/02-tags.remote.md")).toContain("title: Tags (theirs)\n");
    expect(summaryLines(pull.stdout)).toEqual([
      "1 conflict: your file was left as it is and the site's version written beside it (courses/web/02-tags.remote.md). Merge by hand from the .remote file into yours, then `coursesync push --force`; or take the site's side with `coursesync pull --theirs`.",
    ]);
    expect(pull.stdout).not.toContain("conflict markers");
  });

  it("a mix: one line for each way a conflict was shown, and --json carries each conflict's", async () => {
    const s = await site();
    await markersConflict(s);
    await besideConflict(s);
    // Edited here, deleted on the site: nothing is written for it.
    await s.replace(EXTRA, "<p>extra</p>", "<p>extra, mine</p>");
    expect(s.emulator.state.remove("chapters", 3)).toBe(true);

    const dry = await s.cli("pull", "--dry-run");
    expect(dry.code).toBe(3);
    expect(summaryLines(dry.stdout)).toEqual([
      expect.stringMatching(/^1 conflict: both sides would be in the file between conflict markers/),
      expect.stringMatching(
        /^1 conflict: your file was left as it is and the site's version would be written beside it/,
      ),
      expect.stringMatching(/^1 conflict: nothing would be written for it/),
    ]);

    const pull = await s.cli("pull");
    expect(pull.code, pull.stderr).toBe(3);
    const [markers, beside, none] = summaryLines(pull.stdout);
    expect(summaryLines(pull.stdout)).toHaveLength(3);
    expect(markers).toMatch(
      /^1 conflict: both sides are in the file between conflict markers \(courses\/web\/01-intro\.md\)/,
    );
    expect(markers).not.toContain("push --force");
    expect(beside).toMatch(
      /^1 conflict: your file was left as it is and the site's version written beside it \(courses\/web\/02-tags\.remote\.md\)\. .*`coursesync push --force`/,
    );
    expect(none).toBe(
      `1 conflict: nothing was written for it (${EXTRA}). Keep your side with \`coursesync push --force\`, or take the site's with \`coursesync pull --theirs\`.`,
    );
    expect(await s.read(EXTRA)).toContain("<p>extra, mine</p>");
    expect(await s.tree()).not.toHaveProperty(["courses/web/03-extra.remote.md"]);

    // The markers stay until resolved; the title conflict is shown again; --json says which is which.
    const json = await s.cli("pull", "--json");
    const doc = JSON.parse(json.stdout) as {
      conflicts: Array<{ path: string; resolution: string; copy?: string }>;
    };
    expect(doc.conflicts.map((c) => [c.path, c.resolution, c.copy])).toEqual([
      [TAGS, "beside", "courses/web/02-tags.remote.md"],
      [EXTRA, "none", undefined],
    ]);
    const status = JSON.parse((await s.cli("status", "--json")).stdout) as {
      entries: Array<{ state: string; path: string; resolution?: string }>;
    };
    const shown = status.entries.filter((e) => e.state === "conflict").map((e) => [e.path, e.resolution]);
    expect(shown).toEqual(
      expect.arrayContaining([
        [INTRO, "markers"],
        [TAGS, "beside"],
      ]),
    );
  });
});
