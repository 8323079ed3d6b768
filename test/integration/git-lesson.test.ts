import { afterEach, describe, expect, it } from "vitest";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { edit, type PulledSite, pulledSite, recordPatches } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const FILE = "courses/git/01-merging.md";
/** What git leaves in a file it could not merge, as a lesson about git shows it. */
const SHOWN =
  "&lt;&lt;&lt;&lt;&lt;&lt;&lt; HEAD\nours\n=======\ntheirs\n&gt;&gt;&gt;&gt;&gt;&gt;&gt; feature\n";
const LESSON = `<p>Git marks what it could not merge.</p>\n<pre><code>${SHOWN}</code></pre>\n<p>Keep what you want.</p>`;

async function lesson(body: "markdown" | "html"): Promise<PulledSite> {
  return pulledSite(start, {
    body,
    options: { now: manualClock().now },
    courses: [{ title: "Git" }],
    chapters: [{ course_id: 1, title: "Merging", ordinal: 1, content: LESSON }],
  });
}

/** A pulled lesson must pass check and status as it is, and push an edit like any chapter. */
async function expectPushable(s: PulledSite, prose: string) {
  const check = await s.cli("check", "--json");
  expect(check.code, check.stdout).toBe(0);
  expect(JSON.parse(check.stdout)).toMatchObject({ problems: [] });
  expect((await s.cli("status", "--exit-code")).code).toBe(0);

  await s.replace(FILE, prose, "Keep what you want, then commit.");
  const status = await s.cli("status");
  expect(status.stdout).toMatch(/modified +courses\/git\/01-merging\.md/);
  expect(status.stdout).not.toMatch(/conflict|invalid/);
  const patches = recordPatches(s.emulator);
  const push = await s.cli("push", "--yes");
  expect(push.code, push.stdout + push.stderr).toBe(0);
  expect(patches).toHaveLength(1);
  const sent = (patches[0]!.body as { chapter: { content: string } }).chapter.content;
  expect(sent).toContain("Keep what you want, then commit.");
  expect(sent).toContain(SHOWN);
  expect((await s.cli("status", "--exit-code")).code).toBe(0);
}

describe("a lesson about git whose code shows conflict markers", () => {
  it("pulls, checks, edits and pushes as Markdown", async () => {
    const s = await lesson("markdown");
    const text = await s.read(FILE);
    expect(text).toContain("```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feature\n```\n");
    await expectPushable(s, "Keep what you want.");
  });

  it("pulls, checks, edits and pushes as raw HTML", async () => {
    const s = await lesson("html");
    expect(await s.read(FILE)).toContain(`<pre><code>${SHOWN}</code></pre>`);
    await expectPushable(s, "Keep what you want.");
  });

  it("an edit of the code block on both sides is a conflict with markers around the whole block", async () => {
    const s = await lesson("markdown");
    await s.replace(FILE, "ours\n", "ours, edited here\n");
    edit(s.emulator, "chapters", 1, { content: LESSON.replace("ours\n", "ours, edited on the site\n") });
    const pull = await s.cli("pull");
    expect(pull.code, pull.stdout + pull.stderr).toBe(3);
    const text = await s.read(FILE);
    expect(text).toContain(
      [
        "<<<<<<< local",
        "```",
        "<<<<<<< HEAD",
        "ours, edited here",
        "=======",
        "theirs",
        ">>>>>>> feature",
        "```",
        "=======",
        "```",
        "<<<<<<< HEAD",
        "ours, edited on the site",
        "=======",
        "theirs",
        ">>>>>>> feature",
        "```",
        ">>>>>>> site",
      ].join("\n"),
    );
    expect((await s.cli("status")).stdout).toMatch(/conflict +courses\/git\/01-merging\.md/);
    const refused = await s.cli("push", "--yes");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/01-merging\.md:\d+: holds conflict markers/);
  });
});
