import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { edit, pulledSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";
import { fakeTime } from "../helpers/time.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A pulled tree of "Web" (course 1: Intro 1, Tags 2), HTML bodies; Intro retitled here, Tags on the site. */
async function setup() {
  const s = await pulledSite(start, {
    body: "html",
    options: { now: manualClock().now },
    courses: [{ title: "Web" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
    ],
  });
  await s.replace(INTRO, "title: Intro", "title: Intro, mine");
  await s.replace(TAGS, "title: Tags", "title: Tags, mine");
  edit(s.emulator, "chapters", 2, { title: "Tags, theirs" });
  s.emulator.state.clearRequests();
  return s;
}

const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";
const CONFLICT = `! conflict ${TAGS}  (chapter 2; [title]; changed here and on the site since the last sync: title)`;
const HELD_IN_PLAN = `! update chapter 2      ${TAGS}  changed here and on the site since the last sync: title`;

describe("push checks its plan against the site before it asks", () => {
  it("on a terminal: the plan shows the conflicting record held; the rest is asked for and sent (exit 3)", async () => {
    const s = await setup();
    const asked: string[] = [];
    const result = await runCli(["push"], {
      cwd: s.root,
      env: s.env,
      tty: true,
      prompts: {
        confirm: async (message) => {
          asked.push(message);
          return true;
        },
      },
    });
    expect(result.code).toBe(3);
    expect(asked).toEqual([expect.stringMatching(/^Apply 1 write to /)]);
    expect(result.stdout).toContain(CONFLICT);
    expect(result.stdout).toMatch(
      /~ update chapter 1\s+courses\/web\/01-intro\.md {2}title: "Intro" -> "Intro, mine"\n/,
    );
    expect(result.stdout).toContain(HELD_IN_PLAN);
    expect(result.stdout).toContain(
      "Pushed what is not in conflict (1 updated); held, not sent: 1 record in conflict with the site.",
    );
    expect(result.stdout).toContain(`  held ${TAGS} (chapter 2): run \`coursesync pull\``);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/1"]);
    expect(s.emulator.state.get("chapters", 2)?.title).toBe("Tags, theirs");
    expect(await s.read(TAGS)).toContain("title: Tags, mine\n");
  });

  it("without a terminal or --yes the plan names the held record and asks for --yes; with --yes the rest is sent", async () => {
    const s = await setup();
    const refused = await s.cli("push");
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain(CONFLICT);
    expect(refused.stdout).toContain(HELD_IN_PLAN);
    expect(refused.stdout).toContain("Run again with --yes");
    expect(s.writes()).toEqual([]);
    const sent = await s.cli("push", "--yes");
    expect(sent.code).toBe(3);
    expect(sent.stdout).toContain(CONFLICT);
    expect(s.writes()).toEqual(["PATCH /api/v1/chapters/1"]);
  });

  it("--dry-run is the checked plan: it shows what would be sent and what held, and exits as the push would (3)", async () => {
    const s = await setup();
    const result = await s.cli("push", "--dry-run");
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(CONFLICT);
    expect(result.stdout).toContain("would send 1 write: 0 to create, 1 to update, 0 to delete");
    expect(result.stdout).toMatch(/~ update chapter 1\s+courses\/web\/01-intro\.md/);
    expect(result.stdout).toContain(HELD_IN_PLAN);
    expect(result.stdout).toContain("A push would hold, not send: 1 record in conflict with the site.");
    expect(s.writes()).toEqual([]);
  });

  it("--dry-run that cannot reach the site prints the plan and says it was not checked", async () => {
    const s = await setup();
    await s.emulator.close();
    // Nothing answers from the first request on: the client fails at once, with no backoff.
    const time = fakeTime();
    const result = await runCli(["push", "--dry-run"], {
      cwd: s.root,
      env: s.env,
      sleep: time.sleep,
      now: time.now,
    });
    expect(time.waits).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("would send 2 writes");
    expect(result.stderr).toMatch(/warning: the plan was not checked against the site: /);
  });

  it("--force shows the site's value each update overwrites, and then overwrites it", async () => {
    const s = await setup();
    const result = await s.cli("push", "--force", "--yes");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`title: "Tags" -> "Tags, mine" (overwrites the site's "Tags, theirs")`);
    expect(result.stdout).toMatch(
      /~ update chapter 1\s+courses\/web\/01-intro\.md {2}title: "Intro" -> "Intro, mine"\n/,
    );
    expect(s.emulator.state.get("chapters", 2)?.title).toBe("Tags, mine");
  });
});
