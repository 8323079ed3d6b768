import { afterEach, describe, expect, it } from "vitest";
import { useEmulators } from "../helpers/emulator.js";
import { pulledSite, recordWrites } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const WEB = "courses/web/course.yaml";
const GO = "courses/go/course.yaml";
const INTRO = "courses/web/01-intro.md";

/** A pulled tree: "Web" (1) with Intro (1), "Go" (2); the site's own values as given. */
async function setup(web: Record<string, unknown> = {}, intro: Record<string, unknown> = {}) {
  return pulledSite(start, {
    courses: [{ title: "Web", excerpt: "HTML", ...web }, { title: "Go" }],
    chapters: [{ course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>", ...intro }],
  });
}

describe("values the site cannot take are refused before any request", () => {
  it("a bad date in one course.yaml holds back a valid edit elsewhere: nothing is sent", async () => {
    const s = await setup();
    await s.replace(GO, "title: Go", "title: Go, the language");
    await s.replace(WEB, "scheduled_at: null", "scheduled_at: not-a-date");

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `coursesync: 1 invalid file; nothing was sent:\n  ${WEB}:7: scheduled_at "not-a-date" is not a date and time in the form the site uses: write it like 2026-03-01T09:00:00+01:00`,
    );
    expect(result.stdout).toBe("");
    expect(s.emulator.state.requests).toEqual([]);
    expect(s.emulator.state.get("courses", 2)?.title).toBe("Go");

    // Written in the form asked for, both go, the date byte for byte.
    await s.replace(WEB, "scheduled_at: not-a-date", "scheduled_at: 2026-03-01T09:00:00.5-05:00");
    const again = await s.cli("push", "--yes");
    expect(again.code, again.stderr).toBe(0);
    expect(s.writes()).toEqual(["PATCH /api/v1/courses/1", "PATCH /api/v1/courses/2"]);
    expect(s.emulator.state.get("courses", 1)?.scheduled_at).toBe("2026-03-01T09:00:00.5-05:00");
  });

  it("never refuses what the site itself sent: an odd date and control characters stay as they are", async () => {
    const s = await setup(
      { title: "Web\u0001", scheduled_at: "2026-03-01 09:00" },
      { content: "<p>a\u0000b</p>" },
    );
    expect(await s.read(WEB)).toContain("scheduled_at: 2026-03-01 09:00\n");
    const writes = recordWrites(s.emulator);
    // Other fields of the same files are edited; the site's odd values are left untouched.
    await s.replace(WEB, "excerpt: HTML", "excerpt: HTML and CSS");
    await s.replace(INTRO, "title: Intro", "title: Intro, again");

    const result = await s.cli("push", "--yes");
    expect(result.code, result.stderr).toBe(0);
    expect(writes).toEqual([
      { call: "PATCH courses/1", body: { course: { excerpt: "HTML and CSS" } } },
      { call: "PATCH chapters/1", body: { chapter: { title: "Intro, again" } } },
    ]);
    expect(s.emulator.state.get("courses", 1)).toMatchObject({
      title: "Web\u0001",
      scheduled_at: "2026-03-01 09:00",
    });
    expect(s.emulator.state.get("chapters", 1)?.content).toBe("<p>a\u0000b</p>");
    expect(await s.read(WEB)).toContain("scheduled_at: 2026-03-01 09:00\n");
  });

  it("sends an emptied date as null: not set", async () => {
    const s = await setup({ scheduled_at: "2026-04-01T08:00:00+02:00" });
    const writes = recordWrites(s.emulator);
    await s.replace(WEB, "scheduled_at: 2026-04-01T08:00:00+02:00", 'scheduled_at: ""');
    const result = await s.cli("push", "--yes");
    expect(result.code, result.stderr).toBe(0);
    expect(writes).toEqual([{ call: "PATCH courses/1", body: { course: { scheduled_at: null } } }]);
    expect(s.emulator.state.get("courses", 1)?.scheduled_at).toBeNull();
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("lists the values push would refuse in status, offline, each with its line", async () => {
    const s = await setup();
    await s.replace(WEB, "scheduled_at: null", "scheduled_at: 2026-02-30T09:00:00Z");
    await s.replace(WEB, "title: Web", 'title: "Web\\0"');
    const status = await s.cli("status");
    expect(status.stdout).toContain(
      `  invalid   courses/web/course.yaml  (line 2: title holds the control character U+0000 (NUL), which the site cannot store as text)\n`,
    );
    expect(status.stdout).toContain(
      `  invalid   courses/web/course.yaml  (line 7: scheduled_at "2026-02-30T09:00:00Z" is not a day of the calendar: write it like 2026-03-01T09:00:00+01:00)\n`,
    );
    expect(status.stdout).toContain("; 1 invalid file must be fixed before a push.");
    expect(s.emulator.state.requests).toEqual([]);
  });
});

describe("size limits", () => {
  it("refuses what is over the limits set in coursesync.yaml, and sends it once they are raised", async () => {
    const s = await setup();
    await s.replace(
      "coursesync.yaml",
      "ignore: []\n",
      "ignore: []\nlimits:\n  title_chars: 10\n  body_bytes: 100\n",
    );
    await s.replace(INTRO, "title: Intro", "title: Introduction");
    await s.replace(INTRO, "intro\n", `${"x".repeat(100)}\n`);

    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${INTRO}:3: title is 12 characters long, over the limit of 10`);
    expect(result.stderr).toContain("raise limits.title_chars in coursesync.yaml");
    expect(result.stderr).toMatch(
      new RegExp(`${INTRO}:\\d+: the body is 10\\d bytes as HTML, over the limit of 100`),
    );
    expect(s.emulator.state.requests).toEqual([]);

    await s.replace("coursesync.yaml", "title_chars: 10", "title_chars: 12");
    await s.replace("coursesync.yaml", "body_bytes: 100", "body_bytes: 200");
    const again = await s.cli("push", "--yes");
    expect(again.code, again.stderr).toBe(0);
    expect(s.emulator.state.get("chapters", 1)?.title).toBe("Introduction");
  });

  it("stops on a limit that is not a whole number, naming coursesync.yaml and the line (exit 2)", async () => {
    const s = await setup();
    await s.replace("coursesync.yaml", "ignore: []\n", "ignore: []\nlimits:\n  body_bytes: 5 MB\n");
    const result = await s.cli("push", "--yes");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /coursesync\.yaml:\d+: limits\.body_bytes must be a whole number of 1 or more, not "5 MB"/,
    );
    expect(s.emulator.state.requests).toEqual([]);
  });
});
