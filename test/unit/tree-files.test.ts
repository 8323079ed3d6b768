import { spawnSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ChapterFile, parseChapterFile, serializeChapterFile } from "../../src/tree/chapter-file.js";
import { parseCourseFile, serializeCourseFile } from "../../src/tree/course-file.js";
import { escapedName } from "../../src/tree/folder-entries.js";
import { removeLeftoverTemps, writeTreeFile } from "../../src/tree/fs-ops.js";
import { scanTree } from "../../src/tree/scan.js";
import { FileProblem } from "../../src/tree/yaml-text.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

function chapter(body: string, extra: Partial<ChapterFile> = {}): ChapterFile {
  return { id: 7, title: "Getting started", ordinal: 1, format: "html", body, ...extra };
}

function problemOf(fn: () => unknown): FileProblem {
  try {
    fn();
  } catch (error) {
    if (error instanceof FileProblem) return error;
    throw error;
  }
  throw new Error("expected a FileProblem");
}

describe("chapter files", () => {
  it.each([
    ["an empty body", ""],
    ["a body without a final newline", "<p>x</p>"],
    ["a body with trailing newlines", "<p>x</p>\n\n"],
    ["a body that starts with --- lines", "---\ntitle: no\n---\n<p>x</p>"],
    ["CR characters", "<p>a\r\nb\rc</p>"],
    ["a lone surrogate", "<p>\uD83D</p>"],
  ])("reads back %s byte-exact", (_name, body) => {
    const text = serializeChapterFile(chapter(body));
    expect(text.endsWith("\n")).toBe(true);
    expect(parseChapterFile(text, "c.md")).toEqual(chapter(body));
  });

  it("writes front matter keys in order, quoting only where YAML needs it", () => {
    expect(serializeChapterFile(chapter("<p>x</p>", { title: "Why: a question", ordinal: 3 }))).toBe(
      '---\nid: 7\ntitle: "Why: a question"\nordinal: 3\nformat: html\n---\n<p>x</p>\n',
    );
    expect(serializeChapterFile(chapter("x", { id: undefined, format: "markdown", title: "123" }))).toBe(
      '---\ntitle: "123"\nordinal: 1\n---\nx\n',
    );
  });

  it("reads a BOM and CRLF front matter", () => {
    const parsed = parseChapterFile(
      "\uFEFF---\r\nid: 3\r\ntitle: T\r\nordinal: 2\r\n---\r\nbody\r\n",
      "c.md",
    );
    expect(parsed).toMatchObject({ id: 3, title: "T", ordinal: 2, body: "body" });
  });

  it("ends the front matter at the first line starting with ---, the body after that line", () => {
    // As files written by hand have always been read: a closing line with trailing blanks
    // closes, and the blanks after its dashes start the body.
    expect(parseChapterFile("---\ntitle: x\nordinal: 1\n--- \nbody\n", "c.md").body).toBe(" \nbody");
    expect(parseChapterFile("---\ntitle: x\nordinal: 1\n---\t\nbody\n", "c.md").body).toBe("\t\nbody");
    expect(parseChapterFile("---\ntitle: x\nordinal: 1\n---\n\nbody\n", "c.md").body).toBe("\nbody");
    expect(parseChapterFile("---\ntitle: x\nordinal: 1\n---", "c.md").body).toBe("");
  });

  it.each([
    ["no front matter", "hello", 1, /must start with front matter/],
    ["unclosed front matter", "---\nid: 1\ntitle: x\n", 1, /not closed/],
    ["a YAML error", "---\nid: 1\ntitle: a: b\nordinal: 1\n---\n", 3, /YAML does not parse/],
    [
      "an unknown key",
      "---\nid: 1\ntitle: x\nordinal: 1\nauthor: me\n---\n",
      5,
      /unknown front matter key "author"/,
    ],
    ["a blank title", "---\nid: 1\ntitle: ' '\nordinal: 1\n---\n", 3, /title is missing or blank/],
    ["a text ordinal", "---\nid: 1\ntitle: x\nordinal: first\n---\n", 4, /ordinal must be a whole number/],
    ["a negative id", "---\nid: -4\ntitle: x\nordinal: 1\n---\n", 2, /id must be a positive whole number/],
    ["a bad format", "---\ntitle: x\nordinal: 1\nformat: rtf\n---\n", 4, /format must be "html"/],
    [
      "a duplicate key",
      "---\ntitle: x\ntitle: y\nordinal: 1\n---\n",
      3,
      /the key "title" is set more than once/,
    ],
  ])("rejects %s naming the file and line", (_name, text, line, message) => {
    // Strict: a file with no site record behind it (a value the site sent is checked only if changed).
    const problem = problemOf(() => parseChapterFile(text, "courses/a/01-x.md", { strict: true }));
    expect(problem.file).toBe("courses/a/01-x.md");
    expect(problem.line).toBe(line);
    expect(problem.message).toMatch(message);
  });
});

describe("course.yaml", () => {
  const course = {
    id: 1,
    title: "Café: the basics",
    status: "published",
    excerpt: "Two lines\nof text",
    free: true,
    questions_enabled: false,
    scheduled_at: null,
    published_at: "2026-02-03T09:00:00.000+01:00",
  };

  it("round-trips with keys in order and timestamps byte-exact", () => {
    const text = serializeCourseFile(course);
    expect(
      text
        .split("\n")
        .filter((l) => /^\w/.test(l))
        .map((l) => l.split(":")[0]),
    ).toEqual([
      "id",
      "title",
      "status",
      "excerpt",
      "free",
      "questions_enabled",
      "scheduled_at",
      "published_at",
    ]);
    expect(text).toContain("published_at: 2026-02-03T09:00:00.000+01:00\n");
    expect(parseCourseFile(text, "course.yaml")).toEqual(course);
  });

  it.each([
    ["title: [", 1, /YAML does not parse/],
    ["id: 1\ntitle: x\nslug: x\n", 3, /unknown key "slug"/],
    ["id: 1\ntitle: x\nfree: yes please\n", 3, /free must be true or false/],
    ["id: 1\ntitle: x\nexcerpt: 12\n", 3, /excerpt must be text/],
    ["id: 1\nstatus: draft\n", 1, /title is missing/],
  ])("rejects %j naming the line", (text, line, message) => {
    const problem = problemOf(() => parseCourseFile(text, "courses/a/course.yaml", { strict: true }));
    expect(problem.line).toBe(line);
    expect(problem.message).toMatch(message);
  });
});

describe("HTML that UTF-8 cannot hold", () => {
  it("is kept exact as a JSON string body and read back to the same text", async () => {
    const { htmlBodies } = await import("../../src/tree/codecs.js");
    const html = "<p>half an emoji: \uD83D and more</p>";
    const { body, format } = htmlBodies.fromHtml(html);
    expect(format).toBe("json");
    const text = serializeChapterFile(chapter(body, { format }));
    // The file's bytes hold no replacement character: what is written is what was sent.
    expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text);
    const parsed = parseChapterFile(text, "c.md");
    expect(htmlBodies.toHtml(parsed.body, parsed.format, "c.md")).toBe(html);
    expect(htmlBodies.fromHtml("<p>fine</p>")).toEqual({ body: "<p>fine</p>", format: "html" });
  });
});

describe("writing tree files", () => {
  afterEach(cleanupTestdirs);

  it("writes side by side into a folder removed since it was made (as a long watch run sees)", async () => {
    const root = await testdir();
    await writeTreeFile(root, "courses/web/course.yaml", "title: Web\n");
    await rm(path.join(root, "courses", "web"), { recursive: true });
    await Promise.all(
      ["course.yaml", "01-a.md", "02-b.md"].map((name) => writeTreeFile(root, `courses/web/${name}`, name)),
    );
    expect(await readTree(root)).toEqual({
      "courses/web/01-a.md": "01-a.md",
      "courses/web/02-b.md": "02-b.md",
      "courses/web/course.yaml": "course.yaml",
    });
  });

  it("removes the temp files of a process that has ended, and keeps those of running ones", async () => {
    const ended = spawnSync(process.execPath, ["-e", ""]).pid;
    const root = await testdir({
      [`courses/web/01-a.md.${ended}.3.tmp`]: "half",
      [`courses/web/01-a.md.${process.pid}.4.tmp`]: "in flight",
      [`courses/web/01-a.md.${process.ppid}.5.tmp`]: "another run's",
      "courses/web/notes.tmp": "the author's",
    });
    const scan = await scanTree(root);
    expect(new Set(scan.temps)).toEqual(
      new Set([
        `courses/web/01-a.md.${ended}.3.tmp`,
        `courses/web/01-a.md.${process.pid}.4.tmp`,
        `courses/web/01-a.md.${process.ppid}.5.tmp`,
      ]),
    );
    expect(await removeLeftoverTemps(root, scan.temps)).toBe(1);
    expect(new Set(Object.keys(await readTree(root)))).toEqual(
      new Set([
        `courses/web/01-a.md.${process.pid}.4.tmp`,
        `courses/web/01-a.md.${process.ppid}.5.tmp`,
        "courses/web/notes.tmp",
      ]),
    );
  });
});

describe("names that are not UTF-8", () => {
  afterEach(cleanupTestdirs);

  it("are shown with their bad bytes escaped as a shell's $'...' reads them", () => {
    const name = (...parts: Array<string | number[]>) =>
      escapedName(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p)))));
    expect(name("notes-", [0xff], "t", [0xfe], ".md")).toBe("notes-\\xfft\\xfe.md");
    expect(name("caf", [0xe9], " l'été\\")).toBe("caf\\xe9 l\\'été\\\\");
    expect(name("over", [0xc0, 0x80], "long")).toBe("over\\xc0\\x80long");
    expect(name("surrogate", [0xed, 0xa0, 0x80])).toBe("surrogate\\xed\\xa0\\x80");
    expect(name("cut", [0xe2, 0x82])).toBe("cut\\xe2\\x82");
    expect(name("line", [0x0a], "break", [0xff])).toBe("line\\x0abreak\\xff");
    expect(name("café ✓ \uFFFD.md")).toBeUndefined();
  });

  it("are invalid where a record can be, skipped with a warning elsewhere, and never crash the scan", async () => {
    const root = await testdir({
      "courses/web/course.yaml": "title: Web\n",
      "courses/web/01-intro.md": "---\ntitle: Intro\nordinal: 1\n---\n<p>x</p>\n",
      "courses/web/assets/logo.png": "png",
    });
    const write = async (bytes: Buffer, text = "x") => {
      const full = Buffer.concat([Buffer.from(`${root}${path.sep}`), bytes]);
      await mkdir(full.subarray(0, full.lastIndexOf(path.sep)), { recursive: true });
      await writeFile(full, text);
    };
    const odd = (before: string, after: string) =>
      Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)]);
    await write(odd("courses/caf", "/course.yaml"), "title: Cafe\n");
    await write(odd("courses/web/notes-", ".md"));
    await write(odd("courses/web/pic-", ".png"));
    await write(odd("courses/web/img-", "/a.md"));
    await write(odd("courses/web/assets/old-", ".md"));
    await write(odd("courses/web/.hidden-", ".md"));
    const scan = await scanTree(root);
    expect(scan.problems.map((p) => [p.file, p.problem])).toEqual([
      ["courses/caf\\xff", expect.stringContaining("has a name that is not valid UTF-8")],
      [
        "courses/web/assets/old-\\xff.md",
        "is in a subfolder of a course folder, where coursesync reads no chapters",
      ],
      ["courses/web/notes-\\xff.md", expect.stringContaining("has a name that is not valid UTF-8")],
    ]);
    expect(scan.warnings).toEqual([
      "courses/web/img-\\xff has a name that is not valid UTF-8 (its bad bytes shown as \\xNN): skipped",
      "courses/web/pic-\\xff.png has a name that is not valid UTF-8 (its bad bytes shown as \\xNN): skipped",
    ]);
    expect(scan.chapters.map((c) => c.file)).toEqual(["courses/web/01-intro.md"]);
    expect(scan.courses.map((c) => c.folder)).toEqual(["courses/web"]);
  });
});
