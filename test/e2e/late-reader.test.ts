import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, cliEnv } from "../helpers/site.js";
import { runBin, runBinClosedEarly, runBinLateReader, startBinEmulator } from "../helpers/subprocess.js";
import { testdir } from "../helpers/testdir.js";

const COURSES = 15;
const CHAPTERS = 100;
/** Every chapter has one problem: far more output than a pipe holds (64 KiB). */
const PROBLEMS = COURSES * CHAPTERS;

/** A stack trace, or node's word for a closed pipe: neither is for the user. */
const CRASH = /EPIPE|internal error|^\s+at .+:\d+/m;

let emulator: Awaited<ReturnType<typeof startBinEmulator>>;
let root: string;
let env: CliEnv;
let dir: string;

/** A tree synced with an empty site, then given 1,500 new chapters whose ordinal is not a number. */
beforeAll(async () => {
  emulator = await startBinEmulator(["--empty"]);
  dir = await testdir();
  env = cliEnv(dir);
  expect((await runBin(["init", "school", "--url", emulator.url], { cwd: dir, env })).code).toBe(0);
  root = path.join(dir, "school");
  expect((await runBin(["pull"], { cwd: root, env })).code).toBe(0);
  for (let c = 1; c <= COURSES; c++) {
    const folder = path.join(root, "courses", `course-${c}`);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "course.yaml"), `title: Course ${c}\nstatus: draft\n`);
    for (let n = 1; n <= CHAPTERS; n++) {
      const name = `${String(n).padStart(3, "0")}-chapter.md`;
      await writeFile(
        path.join(folder, name),
        "---\ntitle: A chapter\nordinal: x\nformat: html\n---\n<p>x</p>\n",
      );
    }
  }
}, 120_000);

afterAll(async () => {
  await emulator?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a reader that starts late gets the whole output", () => {
  it("check --json: every problem, in one JSON document", async () => {
    const run = await runBinLateReader(["check", "--json"], { cwd: root, env });
    expect(run.late).toBe(true);
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout) as { ok: boolean; problems: Array<{ file: string }> };
    expect(doc.ok).toBe(false);
    expect(doc.problems).toHaveLength(PROBLEMS);
    expect(run.stderr).toBe("");
  }, 60_000);

  it("check --format github: an annotation per problem, then the summary", async () => {
    const run = await runBinLateReader(["check", "--format", "github"], { cwd: root, env });
    expect(run.late).toBe(true);
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.filter((line) => line.startsWith("::error ")).length).toBe(PROBLEMS);
    const n = PROBLEMS.toLocaleString("en");
    expect(lines.at(-1)).toBe(`${n} problems in ${n} files (${PROBLEMS + COURSES} files checked)`);
  }, 60_000);

  it("status --json: every entry, in one JSON document", async () => {
    const run = await runBinLateReader(["status", "--json"], { cwd: root, env });
    expect(run.late).toBe(true);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { entries: Array<{ path: string; state: string }> };
    const invalid = new Set(doc.entries.filter((e) => e.state === "invalid").map((e) => e.path));
    expect(invalid.size).toBe(PROBLEMS);
  }, 60_000);

  it("push: the whole list of invalid files on stderr, then what to do", async () => {
    const run = await runBinLateReader(["push", "--yes"], { cwd: root, env });
    expect(run.late).toBe(true);
    expect(run.code).toBe(1);
    const listed = run.stderr.split("\n").filter((line) => /-chapter\.md:\d+: ordinal/.test(line));
    expect(listed).toHaveLength(PROBLEMS);
    expect(run.stderr).toMatch(/Fix the files above and run the command again\.\n$/);
    expect(run.stderr).not.toMatch(CRASH);
  }, 60_000);
});

describe("a reader that closes the pipe early (| head -c 100)", () => {
  it("leaves the exit code as it was, with no stack trace and no hang", async () => {
    // As a full read exits: check 1 (problems), status 0; and neither says more on stderr.
    for (const [args, code] of [
      [["check", "--json"], 1],
      [["status", "--json"], 0],
    ] as const) {
      const run = await runBinClosedEarly([...args], { cwd: root, env });
      expect(run.stdout.length, args.join(" ")).toBeGreaterThan(0);
      expect(run.code, args.join(" ")).toBe(code);
      expect(run.stderr, args.join(" ")).toBe("");
    }
  }, 60_000);
});
