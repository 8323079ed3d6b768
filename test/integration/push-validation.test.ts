import { cp, mkdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/emulator/server.js";
import { runCli } from "../helpers/cli.js";
import { manualClock } from "../helpers/emulator.js";
import { pullNewTree, seedSite } from "../helpers/site.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

// One site and one pulled tree for the whole file; each case works on its own copy of the tree.
let emulator: RunningEmulator;
let template: string;
let env: Record<string, string>;

beforeAll(async () => {
  // "Web" (1) with Intro (1) and Tags (2); "Go" (2) with Tour (3).
  emulator = await startEmulator({ seedDir: null, now: manualClock().now });
  seedSite(emulator, {
    courses: [{ title: "Web", status: 1, excerpt: "HTML" }, { title: "Go" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>intro</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
    ],
  });
  ({ root: template, env } = await pullNewTree(emulator));
  // A valid edit that is pending in every case: an invalid file must hold it back too.
  const tour = path.join(template, "courses/go/01-tour.md");
  await writeFile(tour, (await readFile(tour, "utf8")).replace("title: Tour", "title: Tour of Go"));
});

afterAll(async () => {
  await emulator.close();
  await cleanupTestdirs();
});

afterEach(() => emulator.state.clearRequests());

const WEB = "courses/web/course.yaml";
const INTRO = "courses/web/01-intro.md";
const WEB_YAML =
  "id: 1\ntitle: Web\nstatus: published\nexcerpt: HTML\nfree: false\nquestions_enabled: false\nscheduled_at: null\npublished_at: null\n";
const INTRO_MD = "---\nid: 1\ntitle: Intro\nordinal: 1\nformat: html\n---\n<p>intro</p>\n";

/** A copy of the pulled tree with some files replaced (null removes one). */
async function treeWith(files: Record<string, string | Buffer | null>): Promise<string> {
  const root = path.join(await testdir(), "tree");
  await cp(template, root, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, ...rel.split("/"));
    if (text === null) await rm(file, { recursive: true });
    else {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
    }
  }
  return root;
}

const course = (from: string, to: string) => ({ [WEB]: WEB_YAML.replace(from, to) });
const intro = (from: string, to: string) => ({ [INTRO]: INTRO_MD.replace(from, to) });

/** [what is wrong, files, the lines the error must hold: file:line: message]. */
const CASES: Array<[string, Record<string, string | Buffer | null>, Array<string | RegExp>]> = [
  // course.yaml: syntax. An unclosed bracket or quote is named where the parser gives up, a
  // line or more below the one that opened it.
  [
    "course: an unclosed flow sequence",
    course("title: Web", "title: [Web"),
    [/course\.yaml:\d+: YAML does not parse/],
  ],
  [
    "course: a value holding ': ' unquoted",
    course("title: Web", "title: Web: the basics"),
    [`${WEB}:2: YAML does not parse`],
  ],
  [
    "course: a key given twice",
    course("free: false", "free: false\ntitle: Again"),
    [`${WEB}:6: the key "title" is set more than once`],
  ],
  [
    "course: a list instead of a mapping",
    { [WEB]: "- title\n- Web\n" },
    [`${WEB}:1: expected a mapping of keys to values`],
  ],
  [
    "course: a key that is not a string",
    course("free: false", "free: false\n12: twelve"),
    [`${WEB}:6: every key must be a plain string`],
  ],
  // course.yaml: keys and types
  [
    "course: an unknown key",
    course("free: false", "free: false\ncolour: red"),
    [`${WEB}:6: unknown key "colour"`],
  ],
  ["course: no title", course("title: Web\n", ""), [`${WEB}:1: title is missing or blank`]],
  ["course: a blank title", course("title: Web", 'title: "  "'), [`${WEB}:2: title is missing or blank`]],
  [
    "course: a number for a title",
    course("title: Web", "title: 42"),
    [`${WEB}:2: title must be text, not the number 42`, 'Quote it: title: "42"'],
  ],
  ["course: an empty file", { [WEB]: "" }, [`${WEB}:1: title is missing or blank`]],
  [
    "course: a number for status",
    course("status: published", "status: 1"),
    [`${WEB}:3: status must be draft or published, not 1`],
  ],
  [
    "course: an empty status",
    course("status: published", 'status: ""'),
    [`${WEB}:3: status must be draft or published, not ""`],
  ],
  [
    "course: a status the API cannot set",
    course("status: published", "status: archived"),
    [`${WEB}:3: status must be draft or published, not "archived"`],
  ],
  [
    "course: a number for excerpt",
    course("excerpt: HTML", "excerpt: 12"),
    [`${WEB}:4: excerpt must be text, not 12`],
  ],
  [
    "course: yes for free",
    course("free: false", "free: yes"),
    [`${WEB}:5: free must be true or false, not "yes"`],
  ],
  [
    "course: 1 for questions_enabled",
    course("questions_enabled: false", "questions_enabled: 1"),
    [`${WEB}:6: questions_enabled must be true or false, not 1`],
  ],
  [
    "course: a number for scheduled_at",
    course("scheduled_at: null", "scheduled_at: 2026"),
    [`${WEB}:7: scheduled_at must be text, not 2026`],
  ],
  [
    "course: a negative id",
    course("id: 1", "id: -1"),
    [`${WEB}:1: id must be a positive whole number, not -1`],
  ],
  [
    "course: a word for id",
    course("id: 1", "id: one"),
    [`${WEB}:1: id must be a positive whole number, not "one"`],
  ],
  [
    "course: conflict markers",
    course("title: Web\n", "<<<<<<< HEAD\ntitle: Web\n=======\ntitle: Web 2\n>>>>>>> theirs\n"),
    [`${WEB}:2: holds conflict markers (<<<<<<< ... >>>>>>>)`],
  ],
  // chapter files: front matter
  [
    "chapter: no front matter",
    { [INTRO]: "# Intro\n\n<p>intro</p>\n" },
    [`${INTRO}:1: the file must start with front matter`],
  ],
  [
    "chapter: front matter never closed",
    { [INTRO]: "---\nid: 1\ntitle: Intro\nordinal: 1\n<p>intro</p>\n" },
    [`${INTRO}:1: the front matter is not closed`],
  ],
  [
    "chapter: an unclosed quote",
    intro("title: Intro", 'title: "Intro'),
    [/01-intro\.md:\d+: YAML does not parse/],
  ],
  [
    "chapter: a value holding ': ' unquoted",
    intro("title: Intro", "title: Intro: part 1"),
    [`${INTRO}:3: YAML does not parse`],
  ],
  [
    "course: a tab for indentation",
    course("free: false", "free: false\n\tcolour: red"),
    [`${WEB}:6: YAML does not parse: Tabs are not allowed as indentation`],
  ],
  [
    "chapter: a key given twice",
    intro("ordinal: 1", "ordinal: 1\ntitle: Again"),
    [`${INTRO}:5: the key "title" is set more than once`],
  ],
  [
    "chapter: a list for front matter",
    { [INTRO]: "---\n- Intro\n---\n<p>intro</p>\n" },
    [`${INTRO}:2: expected a mapping`],
  ],
  [
    "chapter: an unknown key",
    intro("format: html", "format: html\ntags: [a, b]"),
    [`${INTRO}:6: unknown front matter key "tags"`],
  ],
  ["chapter: no title", intro("title: Intro\n", ""), [`${INTRO}:2: title is missing or blank`]],
  ["chapter: a blank title", intro("title: Intro", "title:"), [`${INTRO}:3: title is missing or blank`]],
  [
    "chapter: no ordinal, the file name's prefix offered on the line where it goes",
    intro("ordinal: 1\n", ""),
    [
      `${INTRO}:5: ordinal is missing: a chapter needs its place in the course`,
      "Add `ordinal: 1` to the front matter (the file name starts with 01-).",
    ],
  ],
  [
    "chapter: a quoted ordinal",
    intro("ordinal: 1", 'ordinal: "1"'),
    [`${INTRO}:4: ordinal must be a whole number, not "1"`],
  ],
  [
    "chapter: a fraction for ordinal",
    intro("ordinal: 1", "ordinal: 1.5"),
    [`${INTRO}:4: ordinal must be a whole number, not 1.5`],
  ],
  [
    "chapter: an unknown format",
    intro("format: html", "format: rst"),
    [`${INTRO}:5: format must be "html" or left out, not "rst"`],
  ],
  ["chapter: id 0", intro("id: 1", "id: 0"), [`${INTRO}:2: id must be a positive whole number, not 0`]],
  [
    "chapter: conflict markers in the body",
    intro("<p>intro</p>", "<<<<<<< HEAD\n<p>mine</p>\n=======\n<p>theirs</p>\n>>>>>>> origin/main"),
    [`${INTRO}:7: holds conflict markers`],
  ],
  [
    "chapter: a format: json body that is not one JSON string",
    intro("format: html", "format: json"),
    [`${INTRO}: the body of a \`format: json\` chapter must be one JSON string`],
  ],
  [
    "chapter: CRLF line ends, the line still right",
    { [INTRO]: INTRO_MD.replace("format: html", "format: html\nauthor: me").replace(/\n/g, "\r\n") },
    [`${INTRO}:6: unknown front matter key "author"`],
  ],
  [
    "chapter: a byte order mark, the line still right",
    { [INTRO]: `\uFEFF${INTRO_MD.replace("ordinal: 1", "ordinal: first")}` },
    [`${INTRO}:4: ordinal must be a whole number, not "first"`],
  ],
  // ids and layout
  [
    "chapter: a copy that kept its id",
    { "courses/web/03-intro-copy.md": INTRO_MD },
    [`courses/web/03-intro-copy.md:2: has the same id as ${INTRO}`],
  ],
  [
    "chapter: a copy in another course that kept its id",
    { "courses/go/02-intro.md": INTRO_MD },
    // Both named; the one seen first (by path) counts as the original.
    [`${INTRO}:2: has the same id as courses/go/02-intro.md`],
  ],
  [
    "course: a folder copied with its id",
    { "courses/web-2/course.yaml": WEB_YAML },
    ["courses/web-2/course.yaml:", "has the same id as courses/web/course.yaml"],
  ],
  [
    "a chapter outside any course folder",
    { "courses/stray.md": INTRO_MD.replace("id: 1\n", "") },
    ["courses/stray.md: is not inside a course folder"],
  ],
  [
    "a course.yaml outside any course folder",
    { "courses/course.yaml": "title: Loose\n" },
    ["courses/course.yaml: is not inside a course folder"],
  ],
  [
    "chapters in a folder without course.yaml",
    { "courses/orphans/01-a.md": "---\ntitle: A\nordinal: 1\nformat: html\n---\n<p>a</p>\n" },
    ["courses/orphans: holds chapter files but no course.yaml"],
  ],
  [
    "a course.yaml removed from under its chapters",
    { [WEB]: null },
    ["courses/web: holds chapter files but no course.yaml"],
  ],
  [
    "chapter: an ordinal too large to send exactly",
    intro("ordinal: 1", "ordinal: 99999999999999999999"),
    [new RegExp(`${INTRO}:4: ordinal \\d+ is too large to send exactly`)],
  ],
  [
    "course: the line of a yes/no field removed",
    course("free: false\n", ""),
    [`${WEB}: free is missing: the site takes only true or false`],
  ],
  [
    "a chapter whose id was changed to one the last sync does not know",
    intro("id: 1", "id: 99999"),
    [`${INTRO}:2: has id 99999, which the last sync does not know`],
  ],
  [
    "a chapter saved in Latin-1, not UTF-8",
    { [INTRO]: Buffer.from(INTRO_MD.replace("<p>intro</p>", "<p>Caf\xe9</p>"), "latin1") },
    [`${INTRO}:7: is not valid UTF-8 text`],
  ],
  [
    "a folder named like a chapter file",
    { "courses/web/03-notes.md/readme.txt": "x" },
    ["courses/web/03-notes.md: is a folder, not a file"],
  ],
  [
    "a chapter filed in a subfolder of a course folder",
    { "courses/web/part-2/03-later.md": "---\ntitle: Later\nordinal: 3\nformat: html\n---\n<p>x</p>\n" },
    [
      "courses/web/part-2/03-later.md: is in a subfolder of a course folder, where coursesync reads no chapters",
    ],
  ],
  // values the site cannot take, checked where the file changed them
  [
    "course: a date that is not one",
    course("scheduled_at: null", "scheduled_at: not-a-date"),
    [
      `${WEB}:7: scheduled_at "not-a-date" is not a date and time in the form the site uses: write it like 2026-03-01T09:00:00+01:00`,
    ],
  ],
  [
    "course: a date without a time",
    course("scheduled_at: null", "scheduled_at: 2026-03-01"),
    [`${WEB}:7: scheduled_at "2026-03-01" is a date without a time and UTC offset: write it like`],
  ],
  [
    "course: a date-time without a UTC offset",
    course("published_at: null", "published_at: 2026-03-01T09:00:00"),
    [`${WEB}:8: published_at "2026-03-01T09:00:00" has no UTC offset`],
  ],
  [
    "course: month 13",
    course("scheduled_at: null", "scheduled_at: 2026-13-01T09:00:00Z"),
    [`${WEB}:7: scheduled_at "2026-13-01T09:00:00Z" is not a day of the calendar`],
  ],
  [
    "course: February 30",
    course("scheduled_at: null", "scheduled_at: 2026-02-30T09:00:00+01:00"),
    [`${WEB}:7: scheduled_at "2026-02-30T09:00:00+01:00" is not a day of the calendar`],
  ],
  [
    "a new course with a date that is not one",
    { "courses/rust/course.yaml": "title: Rust\nscheduled_at: next tuesday\n" },
    ['courses/rust/course.yaml:2: scheduled_at "next tuesday" is not a date and time'],
  ],
  [
    "course: a NUL written as a YAML escape in the title",
    course("title: Web", 'title: "Web\\0"'),
    [`${WEB}:2: title holds the control character U+0000 (NUL), which the site cannot store as text`],
  ],
  [
    "course: an escape character in the excerpt",
    course("excerpt: HTML", "excerpt: HTML\u001b[1m"),
    [`${WEB}:4: excerpt holds the control character U+001B`],
  ],
  [
    "course: a DEL in the title",
    course("title: Web", "title: We\u007fb"),
    [`${WEB}:2: title holds the control character U+007F (DEL)`],
  ],
  [
    "chapter: a NUL byte in an HTML body, named by its line",
    intro("<p>intro</p>", "<p>intro</p>\n<p>a\u0000b</p>"),
    [`${INTRO}:8: the body holds the control character U+0000 (NUL)`],
  ],
  [
    "a new Markdown chapter with a NUL byte in its body (Markdown would turn it into U+FFFD)",
    { "courses/web/03-nul.md": "---\ntitle: Nul\nordinal: 3\n---\nline one\n\nline \u0000two\n" },
    ["courses/web/03-nul.md:7: the body holds the control character U+0000 (NUL)"],
  ],
  [
    "chapter: a control character in the title",
    intro("title: Intro", "title: Intro\u0001"),
    [`${INTRO}:3: title holds the control character U+0001`],
  ],
  [
    "chapter: a title over 1,000 characters",
    intro("title: Intro", `title: ${"t".repeat(1001)}`),
    [
      `${INTRO}:3: title is 1,001 characters long, over the limit of 1,000`,
      "raise limits.title_chars in coursesync.yaml",
    ],
  ],
  [
    "course: an excerpt over 10,000 characters",
    course("excerpt: HTML", `excerpt: ${"e".repeat(10_001)}`),
    [`${WEB}:4: excerpt is 10,001 characters long, over the limit of 10,000`],
  ],
  [
    "chapter: a body over 5 MB",
    intro("<p>intro</p>", `<p>${"x".repeat(5_000_000)}</p>`),
    [`${INTRO}:7: the body is 5,000,007 bytes as HTML, over the limit of 5,000,000`, "limits.body_bytes"],
  ],
  [
    "course: every problem of the file at once",
    {
      [WEB]: WEB_YAML.replace("title: Web", 'title: "W\\x01eb"')
        .replace("scheduled_at: null", "scheduled_at: soon")
        .replace("published_at: null", "published_at: 2026-03-01"),
    },
    [
      /^coursesync: 1 invalid file; nothing was sent:\n/,
      `${WEB}:2: title holds the control character U+0001`,
      `${WEB}:7: scheduled_at "soon" is not a date`,
      `${WEB}:8: published_at "2026-03-01" is a date without a time`,
    ],
  ],
  [
    "several invalid files at once, all named",
    { ...course("free: false", "free: maybe"), ...intro("ordinal: 1", "ordinal: one") },
    [`${WEB}:5: free must be true or false`, `${INTRO}:4: ordinal must be a whole number`, "2 invalid files"],
  ],
];

describe("push validates every file before it sends anything", () => {
  it("has at least 30 malformed-file cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CASES)("%s: exit 1, the file and line named, no request", async (_name, files, lines) => {
    const root = await treeWith(files);
    const before = await readTree(root, [".coursesync/cache"]);
    const result = await runCli(["push", "--yes"], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^coursesync: \d+ invalid files?; nothing was sent:\n/);
    for (const line of lines) expect(result.stderr).toMatch(line);
    expect(result.stdout).toBe("");
    // Not even a login: validation comes before the network.
    expect(emulator.state.requests).toEqual([]);
    expect(await readTree(root, [".coursesync/cache"])).toEqual(before);
  });

  it("refuses symbolic links to a chapter or a course folder (never taken for deleted)", async () => {
    for (const [link, target] of [
      [INTRO, "intro-elsewhere.md"],
      ["courses/web", "web-elsewhere"],
    ] as const) {
      const root = await treeWith({});
      const outside = path.join(path.dirname(root), target);
      await rename(path.join(root, ...link.split("/")), outside);
      await symlink(outside, path.join(root, ...link.split("/")));
      const result = await runCli(["push", "--yes", "--max-delete", "100"], { cwd: root, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${link}: is a symbolic link, which coursesync does not follow`);
      expect(emulator.state.requests).toEqual([]);
    }
  });

  it("lets a course folder hold subfolders of other files (images, notes ignored by a rule)", async () => {
    const root = await treeWith({
      "courses/web/images/diagram.svg": "<svg/>",
      "courses/web/drafts/idea.md": "not a chapter",
    });
    const config = path.join(root, "coursesync.yaml");
    await writeFile(
      config,
      (await readFile(config, "utf8")).replace(/^ignore: \[\]$/m, 'ignore: ["drafts/"]'),
    );
    const result = await runCli(["push", "--yes"], { cwd: root, env });
    expect(result.code, result.stderr).toBe(0);
  });

  it("leaves alone a synced file that an ignore rule added since covers: no delete", async () => {
    const root = await treeWith({});
    const config = path.join(root, "coursesync.yaml");
    const text = await readFile(config, "utf8");
    expect(text).toMatch(/^ignore: \[\]$/m);
    await writeFile(config, text.replace(/^ignore: \[\]$/m, 'ignore: ["*intro*"]'));
    const status = await runCli(["status", "--json"], { cwd: root, env });
    expect(status.stdout).not.toContain('"deleted"');
    const result = await runCli(["push", "--yes"], { cwd: root, env });
    expect(result.code, result.stderr).toBe(0);
    expect(emulator.state.requests.filter((r) => r.method === "DELETE")).toEqual([]);
    expect(emulator.state.get("chapters", 1)).toBeDefined();
  });

  it("with --json, the refusal is one JSON document on stdout", async () => {
    const root = await treeWith(intro("ordinal: 1", "ordinal: x"));
    const result = await runCli(["push", "--yes", "--json"], { cwd: root, env });
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout) as {
      ok: boolean;
      exit_code: number;
      errors: Array<{ message: string }>;
    };
    expect(doc).toMatchObject({ ok: false, exit_code: 1 });
    expect(doc.errors[0]?.message).toContain(`${INTRO}:4: ordinal must be a whole number, not "x"`);
    expect(emulator.state.requests).toEqual([]);
  });

  it("lists the same problems in status, offline", async () => {
    const root = await treeWith({ ...intro("ordinal: 1", "ordinal: 1.5"), "courses/stray.md": "x" });
    const status = await runCli(["status", "--json"], { cwd: root, env });
    const entries = (JSON.parse(status.stdout) as { entries: unknown[] }).entries;
    expect(entries).toEqual(
      expect.arrayContaining([
        {
          state: "invalid",
          kind: "file",
          path: INTRO,
          message: "line 4: ordinal must be a whole number, not 1.5",
        },
        {
          state: "invalid",
          kind: "file",
          path: "courses/stray.md",
          message: "is not inside a course folder",
        },
      ]),
    );
    expect(emulator.state.requests).toEqual([]);
  });

  it("ignores editor junk and sync tools' copies, even when they do not parse", async () => {
    const junk = "<<<<<<< not yaml: [\n";
    const root = await treeWith({
      "courses/web/.01-intro.md.swp": junk,
      "courses/web/01-intro.md~": junk,
      "courses/web/.DS_Store": junk,
      "courses/.DS_Store": junk,
      "courses/web/01-intro (conflicted copy).md": junk,
      "courses/web/01-intro.sync-conflict-20260301-093000-ABCDEF.md": junk,
      "courses/web/01-intro.remote.md": junk,
      "courses/web/course.remote.yaml": junk,
      "courses/web/#01-intro.md#": junk,
      "courses/web/01-intro.md.orig": junk,
    });
    const result = await runCli(["push", "--dry-run"], { cwd: root, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("would send 1 write: 0 to create, 1 to update, 0 to delete");
    // The dry run checks its plan (reads the one record), and sends nothing.
    expect(emulator.state.requests.filter((r) => r.method !== "GET" && r.path !== "/api/login")).toEqual([]);
  });
});
