import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { StopSignal } from "../../src/errors.js";
import { runCli } from "../helpers/cli.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { playScreen, visibleLines } from "../helpers/screen.js";
import { afterRequest, type PulledSite, pulledSite } from "../helpers/site.js";
import { addSite } from "../helpers/sites.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const CHAPTERS = 30;

/** A site holding course "Web" with 30 chapters, pulled into a tree that writes one at a time. */
async function thirtyChapters(): Promise<PulledSite> {
  const s = await pulledSite(start, {
    body: "html",
    options: { now: manualClock().now },
    courses: [{ title: "Web" }],
    chapters: Array.from({ length: CHAPTERS }, (_, i) => ({
      course_id: 1,
      title: `Chapter ${i + 1}`,
      ordinal: i + 1,
      content: `<p>${i + 1}</p>`,
    })),
  });
  const config = path.join(s.root, "coursesync.yaml");
  await writeFile(config, (await readFile(config, "utf8")).replace(/^concurrency: \d+$/m, "concurrency: 1"));
  return s;
}

/** Give every chapter file of the tree a new last paragraph. */
async function editEveryChapter(s: PulledSite): Promise<void> {
  const folder = path.join(s.root, "courses", "web");
  for (const name of (await readdir(folder)).filter((n) => n.endsWith(".html") || n.endsWith(".md")))
    await writeFile(
      path.join(folder, name),
      `${await readFile(path.join(folder, name), "utf8")}<p>more</p>\n`,
    );
}

/** Run the CLI on a terminal 100 columns wide, on a clock that moves 40 ms each time it is read. */
function onTerminal(s: PulledSite, args: string[], interrupted?: Promise<StopSignal>) {
  let ms = Date.parse("2026-03-01T09:30:00.000Z");
  return runCli(args, {
    cwd: s.root,
    env: s.env,
    terminal: { columns: 100 },
    now: () => (ms += 40),
    ...(interrupted ? { interrupted } : {}),
  });
}

/** The screen ends with `last` on its last line, the cursor at the start of the line below it. */
function expectEndsWith(screen: string | undefined, last: string | RegExp): string[] {
  const played = playScreen(screen ?? "");
  const lines = visibleLines(played);
  expect(lines.at(-1)).toMatch(last);
  expect(played.cursor).toEqual({ row: played.lines.length - 1, column: 0 });
  expect(played.lines.at(-1)).toBe("");
  expect(played.lines.at(-2)).toBe(lines.at(-1));
  // No progress line is left anywhere.
  for (const line of lines) expect(line).not.toMatch(/writes|█|░/);
  return lines;
}

describe("on a terminal", () => {
  it("a push shows a progress line for its writes, and the summary is the last line once it is erased", async () => {
    const s = await thirtyChapters();
    await editEveryChapter(s);
    const pushed = await onTerminal(s, ["push", "--yes"]);
    expect(pushed.code, pushed.stderr).toBe(0);
    // The line was drawn, counting the writes.
    expect(pushed.stderr).toContain(` 1/${CHAPTERS}`);
    expect(pushed.stderr).toContain(` ${CHAPTERS}/${CHAPTERS}`);
    const lines = expectEndsWith(pushed.screen, `Pushed: ${CHAPTERS} updated.`);
    // Each write's line is printed above the progress line, none lost.
    expect(lines.filter((line) => /^~ updated {2}courses\/web\//.test(line))).toHaveLength(CHAPTERS);
  });

  it("a restore counts its creates on the progress line and ends with its summary", async () => {
    const s = await thirtyChapters();
    const staging = await start({ seedDir: null });
    await addSite(s.root, "staging", staging.baseUrl);
    const restored = await onTerminal(s, ["push", "--site", "staging", "--yes"]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(staging.state.dump().chapters).toHaveLength(CHAPTERS);
    const lines = expectEndsWith(restored.screen, `Pushed: ${CHAPTERS + 1} created.`);
    expect(lines.filter((line) => line.includes("created  courses/"))).toEqual([]);
  });

  it("an interrupted push prints a count and one line of advice, not a line per write not sent", async () => {
    const s = await thirtyChapters();
    await editEveryChapter(s);
    let stop: (signal: StopSignal) => void = () => {};
    const interrupted = new Promise<StopSignal>((resolve) => (stop = resolve));
    // Ctrl-C while the third write is on its way: it finishes, none starts after it.
    afterRequest(s.emulator, "PATCH /api/v1/chapters/3", () => stop("SIGINT"));
    const pushed = await onTerminal(s, ["push", "--yes"], interrupted);
    expect(pushed.code).toBe(130);
    const lines = expectEndsWith(
      pushed.screen,
      `Push interrupted (3 updated, ${CHAPTERS - 3} not sent): what was applied is saved; run \`coursesync push\` again to send the rest.`,
    );
    expect(lines.filter((line) => /skipped|not applied/.test(line))).toEqual([]);
    expect(lines.filter((line) => /^~ updated/.test(line))).toHaveLength(3);
  });
});
