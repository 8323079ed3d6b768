// npm run bench -- pull-scale (issue 35; `scale` runs the same): sites of 5,000, 20,000 and
// 50,000 chapters (courses of 10 chapters, bench/seed.mjs bodies, page size 100, no latency) from
// an emulator in its own process: peak RSS of a first pull (and how it grows with the site), a
// second pull with no change; then, on the largest tree, `status` against `git status --short`
// and the committed bytes a one-chapter change rewrites. Each figure beside its bound.
// PULL_SCALE=5000,20000 picks the sizes, in chapters.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchFolder, cli } from "./cli.mjs";
import { figure } from "./figure.mjs";
import { benchGit } from "./git-env.mjs";
import { startRemoteEmulator } from "./remote-emulator.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const command = path.join(root, "dist", "bin", "coursesync.js");
const sizes = (process.env.PULL_SCALE ?? "5000,20000,50000")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const mb = (kb) => kb / 1024;
const inMb = (value) => `${value.toFixed(0)} MB`;

/** Files under `dir` and the newest mtime. */
function treeStats(dir) {
  let files = 0;
  let newestMs = 0;
  for (const name of readdirSync(dir, { recursive: true })) {
    const stat = statSync(path.join(dir, String(name)));
    if (!stat.isFile()) continue;
    files++;
    newestMs = Math.max(newestMs, stat.mtimeMs);
  }
  return { files, newestMs };
}

/** First and second pull of `chapters` chapters; on the largest size, the status and edit rows. */
async function scaleRow(chapters, largest) {
  const emulator = await startRemoteEmulator({ seedDir: null, pageSize: 100 });
  const { work, tree, env } = benchFolder();
  const label = `${chapters} chapters`;
  try {
    await emulator.call("seed-large", { courses: Math.ceil(chapters / 10), chapters: 10 });
    await cli(["init", tree, "--url", emulator.baseUrl], work, env);
    const first = await cli(["pull"], tree, env);
    figure(`${label}: first pull, peak RSS`, mb(first.maxRssKb), 300, {
      format: inMb,
      extra: `${(first.ms / 1000).toFixed(1)} s; exit ${first.code}`,
      failed: first.code !== 0,
    });
    const before = treeStats(path.join(tree, "courses"));
    const second = await cli(["pull"], tree, env);
    const rewritten = treeStats(path.join(tree, "courses")).newestMs > before.newestMs;
    const failed = second.code !== 0 || rewritten;
    const extra = `exit ${second.code}; files rewritten: ${rewritten ? "some!" : 0}`;
    if (largest) {
      figure(`${label}: second pull, no change, wall`, second.ms, 5000, { extra, failed });
      figure(`${label}: second pull, no change, peak RSS`, mb(second.maxRssKb), 250, { format: inMb });
      await statusRows(emulator, tree, env, work, before.files);
    } else {
      console.log(
        `  ${label}: second pull, no change: ${(second.ms / 1000).toFixed(1)} s, peak RSS ${inMb(mb(second.maxRssKb))}; ${extra}`,
      );
    }
    return { chapters, rssMb: mb(first.maxRssKb) };
  } finally {
    rmSync(work, { recursive: true, force: true });
    await emulator.close();
  }
}

/** `status` against `git status --short` on the tree, then one chapter edited on the site. */
async function statusRows(emulator, tree, env, work, files) {
  const { git } = benchGit(work);
  git(tree, "init", "-q");
  git(tree, "add", "-A");
  git(tree, "commit", "-qm", "pulled");
  const timed = (run) => {
    const started = performance.now();
    run();
    return performance.now() - started;
  };
  // The commit just wrote its objects: the disk takes them first (they would slow whichever
  // command runs while they are written back), then git and status run in turns, best of five.
  execFileSync("sync");
  const gitRuns = [];
  const statusRuns = [];
  for (let i = 0; i < 5; i++) {
    gitRuns.push(timed(() => git(tree, "status", "--short")));
    statusRuns.push(
      timed(() =>
        execFileSync(process.execPath, [command, "status"], { cwd: tree, env: { ...process.env, ...env } }),
      ),
    );
  }
  const gitMs = Math.min(...gitRuns);
  const statusMs = Math.min(...statusRuns);
  figure(`status on ${files} files vs git status --short`, statusMs / gitMs, 3, {
    format: (ratio) => `${ratio.toFixed(1)}x`,
    extra: `coursesync status ${(statusMs / 1000).toFixed(2)} s as a command, git ${(gitMs / 1000).toFixed(2)} s`,
  });
  await emulator.call("edit-chapter", { index: 123 });
  const third = await cli(["pull"], tree, env);
  const changed = git(tree, "status", "--porcelain", "-uall")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.slice(3));
  // A file renamed by the edit shows as deleted under its old name: nothing written there.
  const bytes = changed.reduce(
    (sum, file) => sum + (existsSync(path.join(tree, file)) ? statSync(path.join(tree, file)).size : 0),
    0,
  );
  const state = git(tree, "ls-files", ".coursesync")
    .split("\n")
    .filter(Boolean)
    .map((file) => statSync(path.join(tree, file)).size);
  console.log(
    `  one chapter edited on the site: pull exit ${third.code}; ${changed.length} committed files rewritten, ` +
      `${(bytes / 1024).toFixed(1)} KB (${changed.join(", ")}); committed state: ${state.length} files, ` +
      `${(state.reduce((a, b) => a + b, 0) / 1024 / 1024).toFixed(1)} MB, largest ${(Math.max(...state) / 1024).toFixed(1)} KB`,
  );
}

/** Peak RSS against the site's size: KB a chapter between each two sizes; sublinear if it falls. */
function growthRow(rows) {
  if (rows.length < 2) return;
  const slopes = rows
    .slice(1)
    .map((row, i) => ((row.rssMb - rows[i].rssMb) * 1024) / (row.chapters - rows[i].chapters));
  const falling = slopes.every((slope, i) => i === 0 || slope < slopes[i - 1]);
  console.log(
    `  first pull, peak RSS growth: ${slopes.map((s) => `${s.toFixed(2)} KB`).join(", then ")} a chapter more ` +
      `(${rows.map((r) => r.chapters).join(" -> ")} chapters)   sublinear: ${falling ? "ok" : "OVER (not falling)"}`,
  );
}

console.log(
  `pull-scale (issue 35): sites of ${sizes.join(", ")} chapters, page size 100, no latency; the emulator in its own process`,
);
const rows = [];
for (const chapters of sizes) rows.push(await scaleRow(chapters, chapters === sizes.at(-1)));
growthRow(rows);
