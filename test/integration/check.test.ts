import { execFileSync } from "node:child_process";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { type PulledSite, pulledSite, webSite } from "../helpers/site.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const WEB = "courses/web/course.yaml";
const INTRO = "courses/web/01-intro.md";
const TAGS = "courses/web/02-tags.md";

/** The pulled files, line by line (each case edits a copy): */
const WEB_YAML =
  "id: 1\ntitle: Web\nstatus: draft\nexcerpt: null\nfree: false\nquestions_enabled: false\nscheduled_at: null\npublished_at: null\n";
const INTRO_MD = "---\nid: 1\ntitle: Intro\nordinal: 1\nformat: html\n---\n<p>one</p>\n";

interface Reported {
  file: string;
  line: number | null;
  column: number | null;
  rule: string;
  message: string;
  hint: string | null;
}

/**
 * Run `check --json` on the site's tree: it must not send a single request (the site in
 * coursesync.yaml is the emulator, whose log is empty after the pull), nor change a byte.
 */
async function check(s: PulledSite, ...args: string[]) {
  const before = await readTree(s.root);
  const result = await s.cli("check", "--json", ...args);
  expect(s.emulator.state.requests).toEqual([]);
  expect(await readTree(s.root)).toEqual(before);
  expect(result.stderr).toBe("");
  const doc = JSON.parse(result.stdout) as { problems: Reported[] };
  return { code: result.code, doc, found: doc.problems.map((p) => [p.file, p.line, p.rule]) };
}

type Edit = (s: PulledSite) => Promise<void>;
const write =
  (files: Record<string, string | Buffer>): Edit =>
  async (s) => {
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(s.file(rel)), { recursive: true });
      await writeFile(s.file(rel), text);
    }
  };
const web = (from: string, to: string) => ({ [WEB]: WEB_YAML.replace(from, to) });
const intro = (from: string, to: string) => ({ [INTRO]: INTRO_MD.replace(from, to) });

/** [rule, the edit, every problem check must report: file, line, rule]. */
const RULES: Array<[string, Edit, Array<[string, number | null, string]>]> = [
  [
    "yaml-syntax",
    write({ ...web("title: Web", "title: Web: the basics"), ...intro("title: Intro", "title: a: b") }),
    [
      [INTRO, 3, "yaml-syntax"],
      [WEB, 2, "yaml-syntax"],
    ],
  ],
  [
    "front-matter",
    write({ [INTRO]: "id: 1\ntitle: Intro\n", [TAGS]: "---\nid: 2\ntitle: Tags\nordinal: 2\n" }),
    [
      [INTRO, 1, "front-matter"],
      [TAGS, 1, "front-matter"],
    ],
  ],
  [
    "unknown-key",
    write({
      ...web("free: false", "free: false\nauthor: me\nslug: web"),
      ...intro("ordinal: 1", "ordinal: 1\ncolour: red"),
    }),
    [
      [INTRO, 5, "unknown-key"],
      [WEB, 6, "unknown-key"],
      [WEB, 7, "unknown-key"],
    ],
  ],
  [
    "type",
    write({
      ...web("excerpt: null\nfree: false", "excerpt: 12\nfree: maybe"),
      ...intro("format: html", "format: rtf"),
    }),
    [
      [INTRO, 5, "type"],
      [WEB, 4, "type"],
      [WEB, 5, "type"],
    ],
  ],
  [
    "required",
    write({
      [WEB]: WEB_YAML.replace("title: Web\n", "title: ''\n").replace("free: false\n", ""),
      ...intro("title: Intro", "title: ' '"),
    }),
    [
      [INTRO, 3, "required"],
      [WEB, null, "required"],
      [WEB, 2, "required"],
    ],
  ],
  ["status", write(web("status: draft", "status: live")), [[WEB, 3, "status"]]],
  [
    "datetime",
    write(
      web(
        "scheduled_at: null\npublished_at: null",
        "scheduled_at: 2026-03-01\npublished_at: 2026-03-01T09:00",
      ),
    ),
    [
      [WEB, 7, "datetime"],
      [WEB, 8, "datetime"],
    ],
  ],
  [
    "control-char",
    write({
      ...web("title: Web", 'title: "Web\\x01"'),
      ...intro("<p>one</p>", "<p>one</p>\n<p>t\u0000o</p>"),
    }),
    [
      [INTRO, 8, "control-char"],
      [WEB, 2, "control-char"],
    ],
  ],
  [
    "size",
    async (s) => {
      await s.replace("coursesync.yaml", "ignore: []", "ignore: []\nlimits:\n  title_chars: 5");
      await write({
        ...web("title: Web", "title: Web course"),
        ...intro("title: Intro", "title: Introduction"),
      })(s);
    },
    [
      [INTRO, 3, "size"],
      [WEB, 2, "size"],
    ],
  ],
  [
    "content",
    write(intro("format: html", "content: null")),
    [
      [INTRO, 5, "content"],
      [INTRO, 5, "content"],
    ],
  ],
  [
    "id",
    write({ ...web("id: 1", "id: -1"), ...intro("id: 1", "id: first") }),
    [
      [INTRO, 2, "id"],
      [WEB, 1, "id"],
    ],
  ],
  ["removed-id", write(intro("id: 1\n", "")), [[INTRO, 2, "removed-id"]]],
  [
    "unknown-id",
    write({ ...web("id: 1", "id: 41"), ...intro("id: 1", "id: 99") }),
    [
      [INTRO, 2, "unknown-id"],
      [WEB, 1, "unknown-id"],
    ],
  ],
  [
    "duplicate-id",
    // The copy is invalid too (an unknown key): ids are compared across every file.
    write({ "courses/web/01-intro-copy.md": INTRO_MD.replace("ordinal: 1", "ordinal: 1\nnotes: x") }),
    [
      ["courses/web/01-intro-copy.md", 5, "unknown-key"],
      [INTRO, 2, "duplicate-id"],
    ],
  ],
  [
    "conflict-markers",
    write({
      ...intro("<p>one</p>", "<<<<<<< local\n<p>one</p>\n=======\n<p>1</p>\n>>>>>>> site"),
      ...web("title: Web", "<<<<<<< local\ntitle: Web\n=======\ntitle: The web\n>>>>>>> site"),
    }),
    [
      [INTRO, 7, "conflict-markers"],
      [WEB, 2, "conflict-markers"],
    ],
  ],
  [
    "outside-course",
    write({
      "courses/stray.md": INTRO_MD,
      "courses/web/drafts/05-later.md": INTRO_MD,
      "courses/loose/01-a.md": "---\ntitle: A\nordinal: 1\n---\n",
    }),
    [
      ["courses/loose", null, "outside-course"],
      ["courses/stray.md", null, "outside-course"],
      ["courses/web/drafts/05-later.md", null, "outside-course"],
    ],
  ],
  [
    "ordinal-prefix",
    write({
      ...intro("ordinal: 1", "ordinal: 5"),
      "courses/web/chapter-three.md": "---\ntitle: T\nordinal: 3\n---\n",
    }),
    [[INTRO, 4, "ordinal-prefix"]],
  ],
  [
    "ignored-extension",
    write({
      "courses/web/03-notes.markdown": INTRO_MD,
      "courses/web/04-more.MD": INTRO_MD,
      "courses/web/course.yml": WEB_YAML,
    }),
    [
      ["courses/web/03-notes.markdown", null, "ignored-extension"],
      ["courses/web/04-more.MD", null, "ignored-extension"],
      ["courses/web/course.yml", null, "ignored-extension"],
    ],
  ],
  [
    "encoding",
    write({ [INTRO]: Buffer.concat([Buffer.from(INTRO_MD), Buffer.from([0x3c, 0x70, 0xff, 0x3e, 0x0a])]) }),
    [[INTRO, 8, "encoding"]],
  ],
  [
    "layout",
    async (s) => {
      await mkdir(s.file("courses/web/05-folder.md"));
      await symlink(s.file(INTRO), s.file("courses/web/06-link.md"));
    },
    [
      ["courses/web/05-folder.md", null, "layout"],
      ["courses/web/06-link.md", null, "layout"],
    ],
  ],
];

describe("coursesync check reports every problem of every file, offline", () => {
  it.each(RULES)(
    "%s: each problem with its file and line, no request, nothing written",
    async (_rule, edit, want) => {
      const s = await pulledSite(start, webSite());
      await edit(s);
      const { code, found } = await check(s);
      expect(found).toEqual(want);
      expect(code).toBe(1);
    },
  );

  it("a clean tree: exit 0, no problem, and says how many files it read", async () => {
    const s = await pulledSite(start, webSite());
    const { code, doc } = await check(s);
    expect(code).toBe(0);
    expect(doc).toEqual({ command: "check", ok: true, files_checked: 3, snapshot: true, problems: [] });
    const human = await s.cli("check");
    expect(human).toEqual({ code: 0, stdout: "No problems (3 files checked).\n", stderr: "" });
  });

  it("lists all the problems of one file, not the first, each with its line and rule", async () => {
    const s = await pulledSite(start, webSite());
    await s.write(
      WEB,
      WEB_YAML.replace("status: draft", "status: live\nauthor: me")
        .replace("free: false", "free: maybe")
        .replace("scheduled_at: null", "scheduled_at: tomorrow"),
    );
    const { code, doc } = await check(s);
    expect(code).toBe(1);
    expect(doc.problems).toEqual([
      {
        file: WEB,
        line: 3,
        column: null,
        rule: "status",
        message: 'status must be draft or published, not "live"',
        hint: null,
      },
      {
        file: WEB,
        line: 4,
        column: 1,
        rule: "unknown-key",
        message: 'unknown key "author"',
        hint: "course.yaml holds only id, title, status, excerpt, free, questions_enabled, scheduled_at, published_at.",
      },
      {
        file: WEB,
        line: 6,
        column: null,
        rule: "type",
        message: 'free must be true or false, not "maybe"',
        hint: null,
      },
      {
        file: WEB,
        line: 8,
        column: null,
        rule: "datetime",
        message:
          'scheduled_at "tomorrow" is not a date and time in the form the site uses: write it like 2026-03-01T09:00:00+01:00',
        hint: "An ISO 8601 date and time with seconds and a UTC offset (+01:00, -05:00, or Z for UTC), or nothing after the colon for none.",
      },
    ]);
  });

  it("names a key set twice, on each line that sets it again", async () => {
    const s = await pulledSite(start, webSite());
    await write({ [WEB]: `${WEB_YAML}title: Web again\nfree: true\n` })(s);
    const { code, doc } = await check(s);
    expect(code).toBe(1);
    expect(doc.problems.map((p) => [p.line, p.column, p.rule, p.message, p.hint])).toEqual([
      [9, 1, "yaml-syntax", 'the key "title" is set more than once', "Keep one line for each key."],
      [10, 1, "yaml-syntax", 'the key "free" is set more than once', "Keep one line for each key."],
    ]);
  });

  it("people get file:line:col: message, the hint below, files apart, and a count", async () => {
    const s = await pulledSite(start, webSite());
    await s.write(WEB, WEB_YAML.replace("status: draft", "status: live\nauthor: me"));
    await s.write(TAGS, "---\nid: 2\ntitle: Tags\nordinal: 3\nformat: html\n---\n<p>tags</p>\n");
    const result = await s.cli("check");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      [
        `${TAGS}:4: ordinal is 3, but the file name says 02 [ordinal-prefix]`,
        "    Rename the file to 03-tags.md, or set ordinal: 2. Pull names chapter files by their ordinal.",
        "",
        `${WEB}:3: status must be draft or published, not "live" [status]`,
        `${WEB}:4:1: unknown key "author" [unknown-key]`,
        "    course.yaml holds only id, title, status, excerpt, free, questions_enabled, scheduled_at, published_at.",
        "",
        "3 problems in 2 files (3 files checked)",
        "",
      ].join("\n"),
    );
    expect(s.emulator.state.requests).toEqual([]);
  });

  it("judges the site's own values as push does: kept with the snapshot, checked without one", async () => {
    const s = await pulledSite(start, {
      ...webSite(),
      courses: [{ title: "Web", scheduled_at: "2026-03-01 09:00" }],
    });
    expect(await s.read(WEB)).toContain("scheduled_at: 2026-03-01 09:00\n");
    expect((await check(s)).code).toBe(0);

    await rm(s.file(".coursesync/production"), { recursive: true });
    const { code, doc } = await check(s);
    expect(code).toBe(1);
    expect(doc).toMatchObject({ snapshot: false, problems: [{ file: WEB, line: 7, rule: "datetime" }] });
    expect(doc.problems[0]?.message).toContain("write it like 2026-03-01T09:00:00+01:00");
  });

  it("needs no credentials: an empty environment checks the same", async () => {
    const s = await pulledSite(start, webSite());
    await s.replace(WEB, "status: draft", "status: live");
    const result = await runCli(["check"], { cwd: s.root, env: {} });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${WEB}:3: status must be draft or published`);
    expect(s.emulator.state.requests).toEqual([]);
  });

  it("paths limit what is reported, but ids are compared with every file of the tree", async () => {
    const s = await pulledSite(start, webSite());
    await s.replace(WEB, "status: draft", "status: live");
    await s.write("courses/web/01-intro-copy.md", INTRO_MD);
    const only = await check(s, "courses/web/01-intro-copy.md");
    // The copy sorts first, so the file after it carries the problem, naming the copy asked for.
    expect(only.found).toEqual([[INTRO, 2, "duplicate-id"]]);
    expect(only.doc.problems[0]?.message).toBe("has the same id as courses/web/01-intro-copy.md");
    expect((await check(s, TAGS)).code).toBe(0);
    expect((await s.cli("check", "courses/nothing.md")).code).toBe(2);
  });
});

describe("coursesync check for CI", () => {
  it("under GitHub Actions prints ::error commands with repository paths, escaped", async () => {
    const s = await pulledSite(start, webSite());
    // The tree is the folder `tree` of a repository.
    execFileSync("git", ["init", "-q", s.dir]);
    await s.replace(WEB, "status: draft", "status: live, 100%");
    await s.replace(INTRO, "ordinal: 1", "ordinal: 1\nnotes: a");
    const result = await runCli(["check"], { cwd: s.root, env: { GITHUB_ACTIONS: "true" } });
    expect(result.code).toBe(1);
    expect(result.stdout.split("\n")).toEqual([
      '::error file=tree/courses/web/01-intro.md,line=5,col=1,title=coursesync check%3A unknown-key::unknown front matter key "notes"%0AA chapter\'s front matter holds only id, title, ordinal, format, content.',
      '::error file=tree/courses/web/course.yaml,line=3,title=coursesync check%3A status::status must be draft or published, not "live, 100%25"',
      "2 problems in 2 files (3 files checked)",
      "",
    ]);
    const forced = await s.cli("check", "--format", "github", INTRO);
    expect(forced.stdout.split("\n")[0]).toMatch(/^::error file=tree\/courses\/web\/01-intro\.md,line=5,/);
  });

  it("exit 2 for bad usage or a bad coursesync.yaml, before reading any file", async () => {
    const s = await pulledSite(start, webSite());
    const format = await s.cli("check", "--format", "xml");
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format "xml": use human, github, json');
    await s.replace("coursesync.yaml", "ignore: []", "ignore: []\ncolour: red");
    const config = await s.cli("check");
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/coursesync\.yaml:\d+: unknown key "colour"/);
    expect(s.emulator.state.requests).toEqual([]);
  });

  it("writes nothing, not even the stat cache", async () => {
    const s = await pulledSite(start, webSite());
    await rm(s.file(".coursesync/cache"), { recursive: true, force: true });
    await s.cli("check");
    await expect(readFile(s.file(".coursesync/cache/production/stat.json"))).rejects.toThrow(/ENOENT/);
  });
});
