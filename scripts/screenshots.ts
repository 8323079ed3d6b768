// npm run screenshots: the pictures in docs/preview.md of `coursesync preview`, from a real run. The
// built-in emulator seeded from sample-site/, a tree pulled from it by the built CLI, a few
// edits (a changed chapter, an invalid file), `coursesync preview` itself, and a headless
// Chromium (the one `npm ci` installs) taking each view into docs/screenshots/.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { launchBrowser } from "../test/helpers/browser.js";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, "dist", "bin", "coursesync.js");
const out = path.join(root, "docs", "screenshots");
const work = mkdtempSync(path.join(tmpdir(), "coursesync-screenshots-"));
const tree = path.join(work, "my-school");
const env = {
  ...process.env,
  COURSESYNC_CONFIG_DIR: path.join(work, "config"),
  COURSESYNC_EMAIL: "demo@example.com",
  COURSESYNC_PASSWORD: "coursesync",
  COURSESYNC_TOKEN: "",
  CI: "1",
};

function cli(args: string[], cwd = tree): void {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, env, encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`coursesync ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
}

/** Start the built CLI and resolve with the first line it prints (the URL it serves). */
function serve(args: string[], cwd: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (url) => resolve({ child, url: url.trim() }));
    child.once("exit", (code) => reject(new Error(`coursesync ${args[0]} exited ${code}`)));
  });
}

function replaceIn(file: string, from: string | RegExp, to: string): void {
  const full = path.join(tree, file);
  const text = readFileSync(full, "utf8");
  const next = text.replace(from, to);
  if (next === text) throw new Error(`${file}: nothing to replace`);
  writeFileSync(full, next);
}

const running: ChildProcess[] = [];
try {
  const emulator = await serve(["emulator", "--port", "0", "--quiet"], work);
  running.push(emulator.child);
  cli(["init", tree, "--url", emulator.url], work);
  cli(["pull"]);
  const [course] = readdirSync(path.join(tree, "courses")).sort();
  const chapters = readdirSync(path.join(tree, "courses", course!))
    .filter((name) => name.endsWith(".md"))
    .sort();
  const [first, second] = chapters.map((name) => `courses/${course}/${name}`);
  // A changed chapter (a paragraph added after the first one) and an invalid one.
  replaceIn(
    first!,
    /\n\n/,
    "\n\nA paragraph written here, not pushed yet: the preview shows it as the site will.\n\n",
  );
  replaceIn(second!, /^ordinal: \d+$/m, "ordinal: second");
  const preview = await serve(["preview", "--no-open", "--port", "0"], tree);
  running.push(preview.child);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 }, colorScheme: "light" });
    mkdirSync(out, { recursive: true });
    const shots: Array<[string, string]> = [
      ["preview-index.png", "/"],
      ["preview-chapter.png", `/chapters/${first!.slice("courses/".length)}`],
      ["preview-changes.png", `/chapters/${first!.slice("courses/".length)}/diff`],
      ["preview-invalid.png", `/chapters/${second!.slice("courses/".length)}`],
    ];
    for (const [file, at] of shots) {
      await page.goto(new URL(at, preview.url).href);
      await page.locator("html[data-live=connected]").waitFor();
      await page.screenshot({ path: path.join(out, file) });
      process.stdout.write(`docs/screenshots/${file}: ${at}\n`);
    }
  } finally {
    await browser.close();
  }
} finally {
  for (const child of running) child.kill("SIGINT");
  rmSync(work, { recursive: true, force: true });
}
