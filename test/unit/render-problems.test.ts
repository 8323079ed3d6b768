import { describe, expect, it } from "vitest";
import {
  escapeData,
  escapeProperty,
  githubProblems,
  humanProblems,
  type ProblemRecord,
} from "../../src/cli/render/problems.js";

const record = (over: Partial<ProblemRecord> = {}): ProblemRecord => ({
  file: "courses/a, b/01-x.md",
  line: 3,
  column: 2,
  rule: "type",
  message: "100% wrong:\r\nsee below",
  hint: null,
  ...over,
});

describe("GitHub workflow commands", () => {
  it("escape %, CR and LF in a message, and also : and , in a property", () => {
    expect(escapeData("50% a:b,c\r\nd")).toBe("50%25 a:b,c%0D%0Ad");
    expect(escapeProperty("50% a:b,c\r\nd")).toBe("50%25 a%3Ab%2Cc%0D%0Ad");
  });

  it("name the file under the tree's folder in the repository, its line and column, and the rule", () => {
    expect(githubProblems([record({ hint: "Fix it." })], "content")).toBe(
      "::error file=content/courses/a%2C b/01-x.md,line=3,col=2,title=coursesync check%3A type::100%25 wrong:%0D%0Asee below%0AFix it.",
    );
  });

  it("leave out line and column a problem does not have", () => {
    expect(githubProblems([record({ line: null, column: null })], "")).toBe(
      "::error file=courses/a%2C b/01-x.md,title=coursesync check%3A type::100%25 wrong:%0D%0Asee below",
    );
    expect(githubProblems([record({ column: null })], "")).toMatch(/^::error file=[^:]*,line=3,title=/);
  });
});

describe("problems for people", () => {
  it("give file:line:col, the rule, the hint indented, and a blank line between files", () => {
    const text = humanProblems([
      record({ file: "a.md", message: "one", hint: "Do this.\nThen that." }),
      record({ file: "a.md", line: 5, column: null, message: "two" }),
      record({ file: "b.md", line: null, column: null, message: "three", rule: "layout" }),
    ]);
    expect(text).toBe(
      "a.md:3:2: one [type]\n    Do this.\n    Then that.\na.md:5: two [type]\n\nb.md: three [layout]",
    );
  });
});
