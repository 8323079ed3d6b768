import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { pulledSite } from "../helpers/site.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A pulled tree of one course (1) with one chapter, Intro (1). */
async function pulledTree() {
  const { emulator, root, env } = await pulledSite(start, {
    courses: [{ title: "Only course", status: 1 }],
    chapters: [{ course_id: 1, title: "Intro", ordinal: 1, content: "<p>x</p>" }],
  });
  return { emulator, tree: root, env };
}

describe("errors a script can read", () => {
  it("--json still prints one JSON document on stdout when the command fails", async () => {
    const dir = await testdir({ "coursesync.yaml": "sites: [\n" });
    const result = await runCli(["pull", "--json"], { cwd: dir });
    expect(result.code).toBe(2);
    const doc = JSON.parse(result.stdout) as {
      ok: boolean;
      exit_code: number;
      errors: Array<{ message: string }>;
    };
    expect(doc.ok).toBe(false);
    expect(doc.exit_code).toBe(2);
    expect(doc.errors[0]?.message).toMatch(/coursesync\.yaml:\d+: YAML does not parse/);
  });

  it("names the file when the file system refuses a write, instead of calling it a bug", async () => {
    // A folder where pull must write a file: refused whoever runs the test (root included).
    const { emulator, tree, env } = await pulledTree();
    emulator.state.createChapter({
      chapter: { course_id: 1, title: "Second", ordinal: 2, content: "<p>y</p>" },
    });
    const target = path.join(tree, "courses", "only-course", "02-second.md");
    await mkdir(target);
    const result = await runCli(["pull"], { cwd: tree, env });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.stderr).toContain("02-second.md");
  });

  it("pull [paths] takes course folders (or files in them) and refuses anything else", async () => {
    const { tree, env } = await pulledTree();
    const file = await runCli(["pull", "courses/only-course/01-intro.md"], { cwd: tree, env });
    expect(file.code).toBe(0);
    const missing = await runCli(["pull", "courses/nope"], { cwd: tree, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/courses\/nope: no such course folder/);
    const outside = await runCli(["pull", "coursesync.yaml"], { cwd: tree, env });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/is not a course folder/);
  });
});

describe("push --dry-run over the delete guard", () => {
  it("prints the plan with a warning and exits 3, as the real push does", async () => {
    const { emulator, tree, env } = await pulledTree();
    const { rm } = await import("node:fs/promises");
    await rm(path.join(tree, "courses", "only-course"), { recursive: true });
    emulator.state.clearRequests();
    const dry = await runCli(["push", "--dry-run"], { cwd: tree, env });
    expect(dry.code).toBe(3);
    expect(dry.stdout).toMatch(/- delete chapter 1/);
    expect(dry.stdout).toMatch(/- delete course 1/);
    expect(dry.stderr).toMatch(/2 deletes are over the limit of 1/);
    const real = await runCli(["push", "--yes"], { cwd: tree, env });
    expect(real.code).toBe(3);
    expect(real.stderr).toMatch(/--max-delete 2/);
    expect(emulator.state.requests.filter((r) => r.method === "DELETE")).toHaveLength(0);
  });
});
