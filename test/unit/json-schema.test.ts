import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { configText } from "../../src/cli/commands/init.js";
import { parseConfig } from "../../src/config/config.js";
import { parseChapterFile, splitFrontMatter } from "../../src/tree/chapter-file.js";
import { COURSE_KEYS, parseCourseFile } from "../../src/tree/course-file.js";
import { jsonSchemas, schemaText } from "../../src/tree/json-schema.js";
import { validate } from "../helpers/json-schema.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const schemas = jsonSchemas();
const course = schemas["course.schema.json"]!;
const chapter = schemas["chapter.schema.json"]!;
const config = schemas["coursesync.schema.json"]!;

/** A YAML text as the schema sees it (the core schema, as coursesync reads it). */
const yaml = (text: string) => parse(text, { schema: "core" }) as unknown;

describe("the JSON Schemas shipped in schemas/", () => {
  it("are what the one field definition generates (run `npm run schemas` after changing it)", async () => {
    const dir = path.join(root, "schemas");
    expect((await readdir(dir)).sort()).toEqual(Object.keys(schemas).sort());
    for (const [name, schema] of Object.entries(schemas)) {
      expect(await readFile(path.join(dir, name), "utf8"), name).toBe(schemaText(schema));
    }
  });

  it("know the keys the parser knows, in the order pull writes them", () => {
    expect(Object.keys(course.properties as object)).toEqual([...COURSE_KEYS]);
    expect(Object.keys(chapter.properties as object)).toEqual([
      "id",
      "title",
      "ordinal",
      "format",
      "content",
    ]);
  });
});

describe("course.yaml against its schema", () => {
  const pulled =
    "id: 1\ntitle: Web\nstatus: published\nexcerpt: null\nfree: false\nquestions_enabled: true\nscheduled_at: null\npublished_at: 2026-03-01T09:00:00.000+01:00\n";

  it("accepts what pull writes and what the parser takes", () => {
    expect(validate(course, yaml(pulled))).toEqual([]);
    expect(parseCourseFile(pulled, "course.yaml", { strict: true }).status).toBe("published");
    expect(validate(course, yaml("title: A new course\n"))).toEqual([]);
  });

  it("refuses a status the site cannot take, as the parser and push do", () => {
    expect(validate(course, yaml(pulled.replace("status: published", "status: live")))).toEqual([
      '$.status: not one of ["draft","published"]',
    ]);
  });

  it("refuses unknown keys, wrong types, dates without an offset and a missing title", () => {
    const text = pulled
      .replace("title: Web\n", "")
      .replace("free: false", "free: maybe\nauthor: me")
      .replace("scheduled_at: null", "scheduled_at: 2026-03-01");
    expect(validate(course, yaml(text))).toEqual([
      "$: title is required",
      "$.free: expected boolean or null, got string",
      "$.author: not allowed",
      expect.stringMatching(/^\$\.scheduled_at: does not match/),
    ]);
  });
});

describe("chapter front matter against its schema", () => {
  const file = "---\nid: 3\ntitle: Intro\nordinal: 1\nformat: html\n---\n<p>x</p>\n";
  const front = (text: string) => yaml(splitFrontMatter(text, "c.md").frontMatter);

  it("accepts what pull writes", () => {
    expect(parseChapterFile(file, "c.md").format).toBe("html");
    expect(validate(chapter, front(file))).toEqual([]);
  });

  it("refuses a text ordinal, an unknown format and an unknown key", () => {
    const text = file
      .replace("ordinal: 1", "ordinal: first\ncolour: red")
      .replace("format: html", "format: rtf");
    expect(validate(chapter, front(text))).toEqual([
      "$.ordinal: expected integer, got string",
      "$.colour: not allowed",
      '$.format: not one of ["markdown","html","json",null]',
    ]);
  });
});

describe("coursesync.yaml against its schema", () => {
  it("accepts what init writes and the parser takes", () => {
    const text = configText("production", "https://academy.example.com/api/v1");
    expect(parseConfig(text, "/tree").site).toBe("production");
    expect(validate(config, yaml(text))).toEqual([]);
  });

  it("refuses a concurrency out of range, a bad body and an unknown limit", () => {
    const text =
      "sites:\n  production:\n    url: https://a.test/api/v1\nbody: rtf\nconcurrency: 65\nlimits:\n  lines: 3\n";
    expect(validate(config, yaml(text))).toEqual([
      '$.body: not one of ["markdown","html"]',
      "$.concurrency: above 64",
      "$.limits.lines: not allowed",
    ]);
  });
});
