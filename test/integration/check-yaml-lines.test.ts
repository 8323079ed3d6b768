import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const CONFIG =
  "site: production\nsites:\n  production:\n    url: http://127.0.0.1:9/api/v1\nbody: markdown\n";

/** `check --json` on a tree of the given files: each problem as [file, line, column, message]. */
async function problems(files: Record<string, string>) {
  const root = await testdir({ "coursesync.yaml": CONFIG, ...files });
  const result = await runCli(["check", "--json"], { cwd: root });
  expect(result.code, result.stderr).toBe(1);
  const doc = JSON.parse(result.stdout) as {
    problems: Array<{ file: string; line: number; column: number; rule: string; message: string }>;
  };
  for (const problem of doc.problems) expect(problem.rule).toBe("yaml-syntax");
  return doc.problems.map((p) => [p.file, p.line, p.column, p.message]);
}

const course = (third: string) =>
  `title: Web\nstatus: draft\n${third}\nfree: false\nquestions_enabled: false\n`;

describe("check names the line that causes a YAML syntax error", () => {
  it.each([
    [
      "an unclosed double quote: where it opens, not at the end of the file",
      course('excerpt: "Learn the web'),
      [3, 10, 'YAML does not parse: the " here is never closed'],
    ],
    [
      "a key indented more than the one above: that key, not the one above",
      course("  excerpt: Learn the web"),
      [
        3,
        3,
        "YAML does not parse: this line is indented more than the key above it (start each key where the others start)",
      ],
    ],
    [
      "a tab as indentation: its line",
      course("\texcerpt: Learn the web"),
      [3, 1, "YAML does not parse: Tabs are not allowed as indentation"],
    ],
    [
      "an unclosed [: where it opens",
      course("excerpt: [a, b"),
      [3, 10, "YAML does not parse: the [ here is never closed by a ]"],
    ],
  ])("in course.yaml, %s", async (_name, text, [line, column, message]) => {
    expect(await problems({ "courses/web/course.yaml": text })).toEqual([
      ["courses/web/course.yaml", line, column, message],
    ]);
  });

  it("in a chapter's front matter, counting the file's lines", async () => {
    const found = await problems({
      "courses/web/course.yaml": course("excerpt: null"),
      "courses/web/01-intro.md": "---\ntitle: 'Intro\nordinal: 1\nformat: html\n---\n<p>one</p>\n",
    });
    expect(found).toEqual([
      ["courses/web/01-intro.md", 2, 8, "YAML does not parse: the ' here is never closed"],
    ]);
  });
});
