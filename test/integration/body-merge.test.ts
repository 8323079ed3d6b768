import { afterEach, describe, expect, it } from "vitest";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { edit, pulledSite, recordPatches } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

// As rich-text editors save it: one line, so the site's HTML never lines up with the HTML the
// local Markdown renders to (a merge on HTML could only conflict).
const HTML =
  "<h1>Getting started</h1><p>Install the tools first. Then open a terminal.</p><p>Some middle text.</p><p>Last paragraph here.</p>";
const FILE = "courses/web/01-intro.md";

/** A Markdown chapter, pulled; the local author retitles the heading, the site edits the last paragraph. */
async function setup() {
  const s = await pulledSite(start, {
    body: "markdown",
    options: { now: manualClock().now },
    courses: [{ title: "Web" }],
    chapters: [{ course_id: 1, title: "Intro", ordinal: 1, content: HTML }],
  });
  expect(await s.read(FILE)).toContain("# Getting started\n");
  await s.replace(FILE, "# Getting started", "# Getting started quickly");
  edit(s.emulator, "chapters", 1, {
    content: HTML.replace("Last paragraph here.", "Last paragraph, edited on the site."),
  });
  return s;
}

describe("Markdown bodies edited on both sides merge on Markdown", () => {
  it("pull merges an edit here at the top with one on the site at the bottom; push then sends the merge", async () => {
    const s = await setup();
    const pull = await s.cli("pull");
    expect(pull.code, pull.stdout + pull.stderr).toBe(0);
    const text = await s.read(FILE);
    expect(text).toContain("# Getting started quickly\n");
    expect(text).toContain("Last paragraph, edited on the site.");
    expect(pull.stdout).not.toMatch(/conflict/);

    const patches = recordPatches(s.emulator);
    expect((await s.cli("push", "--yes")).code).toBe(0);
    expect(patches).toHaveLength(1);
    const sent = (patches[0]!.body as { chapter: { content: string } }).chapter.content;
    expect(sent).toContain("<h1>Getting started quickly</h1>");
    expect(sent).toContain("<p>Last paragraph, edited on the site.</p>");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("push merges the same way when the site changed the body since the last sync", async () => {
    const s = await setup();
    const patches = recordPatches(s.emulator);
    const push = await s.cli("push", "--yes");
    expect(push.code, push.stdout + push.stderr).toBe(0);
    const sent = (patches[0]!.body as { chapter: { content: string } }).chapter.content;
    expect(sent).toContain("<h1>Getting started quickly</h1>");
    expect(sent).toContain("<p>Last paragraph, edited on the site.</p>");
    const text = await s.read(FILE);
    expect(text).toContain("# Getting started quickly\n");
    expect(text).toContain("Last paragraph, edited on the site.");
  });

  it("two edits in different sentences of one paragraph merge by words", async () => {
    const s = await setup();
    await s.replace(FILE, "# Getting started quickly", "# Getting started");
    await s.replace(FILE, "Install the tools first.", "Install the latest tools first.");
    edit(s.emulator, "chapters", 1, { content: HTML.replace("Then open a terminal.", "Then open a shell.") });
    const pull = await s.cli("pull");
    expect(pull.code, pull.stdout).toBe(0);
    expect(await s.read(FILE)).toContain("Install the latest tools first. Then open a shell.");
  });

  it("edits to the same words are a conflict shown in the file with markers; resolving it and pushing sends that", async () => {
    const s = await setup();
    await s.replace(FILE, "Last paragraph here.", "Last paragraph, mine.");
    const pull = await s.cli("pull");
    expect(pull.code).toBe(3);
    expect(pull.stdout).toContain("both sides are in the file between conflict markers");
    const text = await s.read(FILE);
    // The heading edited here came in cleanly; only the overlapping paragraph is marked.
    expect(text).toContain("# Getting started quickly\n");
    expect(text).toContain(
      "<<<<<<< local\nLast paragraph, mine.\n=======\nLast paragraph, edited on the site.\n>>>>>>> site\n",
    );
    expect(await s.tree()).not.toHaveProperty(["courses/web/01-intro.remote.md"]);

    const status = await s.cli("status");
    expect(status.stdout).toMatch(
      /conflict +courses\/web\/01-intro\.md {2}\(line \d+: conflict markers: keep what you want, remove the markers, then push\)/,
    );
    expect(status.stdout).not.toMatch(/(invalid|modified|deleted) +courses\/web\/01-intro\.md/);

    // Push refuses the markers; the author resolves them in any editor, and pushes.
    const refused = await s.cli("push", "--yes");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/01-intro\.md:\d+: holds conflict markers/);
    await s.write(
      FILE,
      text.replace(/<<<<<<< local\n.*\n=======\n.*\n>>>>>>> site\n/, "Last paragraph, both of ours.\n"),
    );
    const patches = recordPatches(s.emulator);
    const push = await s.cli("push", "--yes");
    expect(push.code, push.stdout + push.stderr).toBe(0);
    const sent = (patches[0]!.body as { chapter: { content: string } }).chapter.content;
    expect(sent).toContain("<h1>Getting started quickly</h1>");
    expect(sent).toContain("<p>Last paragraph, both of ours.</p>");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("diff --remote shows the file against the site's current version", async () => {
    const s = await setup();
    const diff = await s.cli("diff", "--remote", FILE);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain("chapter 1: differs");
    expect(diff.stdout).toContain(`--- site/${FILE}`);
    expect(diff.stdout).toContain(`+++ b/${FILE}`);
    expect(diff.stdout).toContain("-# Getting started\n+# Getting started quickly");
    expect(diff.stdout).toContain("-Last paragraph, edited on the site.\n+Last paragraph here.");
    // Only reads: the list pages.
    expect(s.emulator.state.requests.filter((r) => r.method !== "GET" && r.path !== "/api/login")).toEqual(
      [],
    );
    const same = await s.cli("diff", "--remote", "courses/web/course.yaml");
    expect(same.stdout).toContain("No difference: the tree matches the site.");
  });

  it("diff --remote takes --name-only, --stat and --exit-code", async () => {
    const s = await setup();
    expect(await s.cli("diff", "--remote", "--name-only", "--exit-code", FILE)).toEqual({
      code: 1,
      stdout: `${FILE}\n`,
      stderr: "",
    });
    const stat = await s.cli("diff", "--remote", "--stat", FILE);
    expect(stat.code).toBe(0);
    expect(stat.stdout).toMatch(
      new RegExp(
        `^ ${FILE} \\| \\d+ \\+*-*\n 1 file changed, \\d+ insertions?\\(\\+\\), \\d+ deletions?\\(-\\)\n$`,
      ),
    );
    const same = await s.cli("diff", "--remote", "--stat", "--exit-code", "courses/web/course.yaml");
    expect(same).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});
