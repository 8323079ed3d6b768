import { describe, expect, it } from "vitest";
import { readChapterFile } from "../../src/tree/chapter-file.js";
import { readCourseFile } from "../../src/tree/course-file.js";
import {
  DEFAULT_LIMITS,
  dateTimeProblem,
  fieldProblems,
  type Limits,
  refusedCharAt,
} from "../../src/tree/schema.js";

describe("the date-time form the site takes", () => {
  it.each([
    ["the site's own form, milliseconds and offset", "2026-03-01T09:30:00.000+05:30"],
    ["seconds and an offset", "2026-03-01T09:00:00+01:00"],
    ["a negative offset", "2026-02-28T23:59:59.999-08:00"],
    ["Z for UTC", "2026-03-01T08:00:00Z"],
    ["microseconds", "2026-03-01T08:00:00.123456Z"],
    ["February 29 of a leap year", "2028-02-29T12:00:00+00:00"],
    ["February 29 of a year divisible by 400", "2000-02-29T12:00:00Z"],
    ["the last second of a year", "2026-12-31T23:59:59+14:00"],
    ["empty: not set", ""],
  ])("accepts %s: %j", (_name, text) => {
    expect(dateTimeProblem(text)).toBeUndefined();
  });

  it.each([
    ["a word", "next tuesday", "is not a date and time in the form the site uses"],
    ["a date alone", "2026-03-01", "is a date without a time and UTC offset"],
    ["no offset", "2026-03-01T09:00:00", "has no UTC offset"],
    ["no offset, fractional seconds", "2026-03-01T09:00:00.5", "has no UTC offset"],
    ["no seconds", "2026-03-01T09:00+01:00", "is not a date and time in the form the site uses"],
    ["a space for T", "2026-03-01 09:00:00+01:00", "is not a date and time in the form the site uses"],
    [
      "an offset without a colon",
      "2026-03-01T09:00:00+0100",
      "is not a date and time in the form the site uses",
    ],
    ["lowercase z", "2026-03-01T09:00:00z", "is not a date and time in the form the site uses"],
    ["surrounding spaces", " 2026-03-01T09:00:00Z", "is not a date and time in the form the site uses"],
    ["month 13", "2026-13-01T09:00:00Z", "is not a day of the calendar"],
    ["month 0", "2026-00-10T09:00:00Z", "is not a day of the calendar"],
    ["February 30", "2026-02-30T09:00:00+01:00", "is not a day of the calendar"],
    ["February 29 of a common year", "2026-02-29T09:00:00Z", "is not a day of the calendar"],
    ["February 29 of 1900", "1900-02-29T09:00:00Z", "is not a day of the calendar"],
    ["April 31", "2026-04-31T09:00:00Z", "is not a day of the calendar"],
    ["day 0", "2026-04-00T09:00:00Z", "is not a day of the calendar"],
    ["hour 24", "2026-03-01T24:00:00Z", "is not a time of day"],
    ["minute 60", "2026-03-01T09:60:00Z", "is not a time of day"],
    ["a leap second", "2026-06-30T23:59:60Z", "is not a time of day"],
    ["offset +24:00", "2026-03-01T09:00:00+24:00", "has an offset that is not one"],
    ["offset minutes 60", "2026-03-01T09:00:00+01:60", "has an offset that is not one"],
  ])("refuses %s: %j", (_name, text, problem) => {
    expect(dateTimeProblem(text)).toBe(problem);
  });
});

describe("characters the site cannot store as text", () => {
  it.each([
    ["NUL", "a\u0000b", 1],
    ["U+0001", "\u0001", 0],
    ["backspace", "ab\bc", 2],
    ["vertical tab", "a\u000bb", 1],
    ["form feed", "a\u000cb", 1],
    ["escape", "x\u001b[1m", 1],
    ["U+001F", "a\u001f", 1],
    ["DEL", "a\u007f", 1],
  ])("finds %s", (_name, text, at) => {
    expect(refusedCharAt(text)).toBe(at);
  });

  it("lets tab, LF, CR and every other character through", () => {
    expect(refusedCharAt("a\tb\nc\r\nd é 中 😀 \u00a0 \u0085 \u200b")).toBeUndefined();
  });
});

describe("the problems of one value", () => {
  const limits: Limits = { title_chars: 10, excerpt_chars: 20, body_bytes: 30 };

  it("names the line of a refused character in a body, and the key's line elsewhere", () => {
    const [body] = fieldProblems(
      "c.md",
      "chapter",
      "body",
      { text: "one\ntwo\nth\u0000ree", line: 7 },
      limits,
    );
    expect(body?.message).toBe(
      "c.md:9: the body holds the control character U+0000 (NUL), which the site cannot store as text",
    );
    const [title] = fieldProblems("course.yaml", "course", "title", { text: "A\u0007", line: 2 }, limits);
    expect(title?.message).toBe(
      "course.yaml:2: title holds the control character U+0007, which the site cannot store as text",
    );
  });

  it("finds a control character only the sent HTML holds (a JSON body's escape) at the body's line", () => {
    const [problem] = fieldProblems(
      "c.md",
      "chapter",
      "body",
      { text: '"<p>\\u0000</p>"', line: 6, sent: "<p>\u0000</p>" },
      limits,
    );
    expect(problem?.message).toMatch(/^c\.md:6: the body holds the control character U\+0000/);
  });

  it("counts titles and excerpts in characters, bodies in bytes of the HTML sent", () => {
    expect(fieldProblems("f", "course", "title", { text: "😀".repeat(10), line: 2 }, limits)).toEqual([]);
    expect(fieldProblems("f", "course", "title", { text: "x".repeat(11), line: 2 }, limits)[0]?.message).toBe(
      "f:2: title is 11 characters long, over the limit of 10",
    );
    const excerpt = fieldProblems("f", "course", "excerpt", { text: "x".repeat(21), line: 4 }, limits)[0];
    expect(excerpt?.hint).toContain("limits.excerpt_chars in coursesync.yaml");
    // A short Markdown body whose HTML is over the limit: the HTML is what the site stores.
    const body = { text: "é".repeat(10), line: 6, sent: `<p>${"é".repeat(14)}</p>` };
    expect(fieldProblems("c.md", "chapter", "body", body, limits)[0]?.message).toBe(
      "c.md:6: the body is 35 bytes as HTML, over the limit of 30",
    );
    expect(fieldProblems("c.md", "chapter", "body", { ...body, sent: "<p>é</p>" }, limits)).toEqual([]);
  });

  it("reports every problem of a value at once, and says the date form with an example", () => {
    const problems = fieldProblems("f", "course", "scheduled_at", { text: "2026-02-30", line: 7 }, limits);
    expect(problems.map((p) => p.message)).toEqual([
      'f:7: scheduled_at "2026-02-30" is a date without a time and UTC offset: write it like 2026-03-01T09:00:00+01:00',
    ]);
    const both = fieldProblems("f", "course", "title", { text: "\u0000".repeat(11), line: 2 }, limits);
    expect(both.map((p) => p.problem)).toEqual([
      "title holds the control character U+0000 (NUL), which the site cannot store as text",
      "title is 11 characters long, over the limit of 10",
    ]);
  });

  it("has defaults a real title, excerpt and body fit in with room to spare", () => {
    expect(DEFAULT_LIMITS).toEqual({ title_chars: 1000, excerpt_chars: 10000, body_bytes: 5000000 });
  });
});

describe("the lines of a record file's fields", () => {
  it("gives each key's line, and the line a chapter body starts on (BOM and CRLF too)", () => {
    const chapter = "\uFEFF---\r\nid: 3\r\ntitle: T\r\nordinal: 2\r\n---\r\nbody\r\nmore\r\n";
    expect(readChapterFile(chapter, "c.md").lines).toEqual({
      id: 2,
      title: 3,
      ordinal: 4,
      body: 6,
    });
    expect(readChapterFile("---\ntitle: T\nordinal: 1\n---\n", "c.md").lines.body).toBe(5);
    const course = readCourseFile("id: 1\ntitle: Web\n\nscheduled_at: x\n", "course.yaml");
    expect(course.lines).toEqual({ id: 1, title: 2, scheduled_at: 4 });
  });
});
