// node bench/blob-growth.mjs (after npm run build): what recording each chapter file's git blob
// id in the snapshot adds to a repository at 50,000 chapters (5,000 courses x 10; BLOB_COURSES
// sets the number of courses). A real pull from the emulator; then the snapshot folder's bytes
// with and without the ids, and `git count-objects -v` after committing the tree with a snapshot
// as an older version wrote it (no ids), then after committing the snapshot with them.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../dist/bin/main.js";
import { startEmulator } from "../dist/emulator/server.js";
import { benchGit } from "./git-env.mjs";
import { seedLargeSite } from "./seed.mjs";

const courses = Number(process.env.BLOB_COURSES ?? 5000);
const work = mkdtempSync(path.join(tmpdir(), "coursesync-blob-growth-"));
const { env: gitEnv, git } = benchGit(work);
const BLOB_LINE = /\n\s*"blob": "[0-9a-f]{40}",/g;

/** `git count-objects -v` as numbers (sizes in KiB). */
function countObjects(repo) {
  const lines = git(repo, "count-objects", "-v").trim().split("\n");
  return Object.fromEntries(lines.map((line) => line.split(": ")).map(([k, v]) => [k, Number(v)]));
}

/** The snapshot's files (path → text). */
function snapshotFiles(tree) {
  const folder = path.join(tree, ".coursesync", "production");
  const files = new Map();
  for (const rel of readdirSync(folder, { recursive: true })) {
    const file = path.join(folder, rel);
    if (statSync(file).isFile()) files.set(file, readFileSync(file, "utf8"));
  }
  return files;
}

const bytes = (files) => [...files.values()].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;

const emulator = await startEmulator({ seedDir: null, pageSize: 100 });
try {
  seedLargeSite(emulator.state, { courses, chapters: 10 });
  const io = {
    stdout: { write: () => true, isTTY: false },
    stderr: { write: () => true, isTTY: false },
    stdinIsTTY: false,
    env: {
      ...gitEnv,
      COURSESYNC_CONFIG_DIR: path.join(work, "config"),
      COURSESYNC_EMAIL: "demo@example.com",
      COURSESYNC_PASSWORD: "coursesync",
    },
    interrupted: new Promise(() => {}),
    prompts: {},
  };
  const tree = path.join(work, "tree");
  if ((await main(["init", tree, "--url", emulator.baseUrl, "--no-check"], { ...io, cwd: work })) !== 0)
    throw new Error("init failed");
  if ((await main(["pull"], { ...io, cwd: tree })) !== 0) throw new Error("pull failed");
  const withIds = snapshotFiles(tree);
  const chapters = [...withIds.values()].reduce((n, text) => n + (text.match(BLOB_LINE)?.length ?? 0), 0);
  const without = new Map([...withIds].map(([file, text]) => [file, text.replace(BLOB_LINE, "")]));
  for (const [file, text] of without) writeFileSync(file, text);
  git(tree, "init", "--quiet");
  git(tree, "add", "--all");
  git(tree, "commit", "--quiet", "-m", "tree, snapshot without blob ids");
  git(tree, "gc", "--quiet");
  const before = countObjects(tree);
  for (const [file, text] of withIds) writeFileSync(file, text);
  git(tree, "add", "--all");
  git(tree, "commit", "--quiet", "-m", "snapshot with blob ids");
  const loose = countObjects(tree);
  git(tree, "gc", "--quiet");
  const after = countObjects(tree);
  // The same tree committed in a new repository with the ids from the start.
  rmSync(path.join(tree, ".git"), { recursive: true, force: true });
  git(tree, "init", "--quiet");
  git(tree, "add", "--all");
  git(tree, "commit", "--quiet", "-m", "tree, snapshot with blob ids");
  git(tree, "gc", "--quiet");
  const fromStart = countObjects(tree);
  const added = bytes(withIds) - bytes(without);
  console.log(`blob ids for ${chapters} chapters (${courses} courses x 10):`);
  console.log(
    `  snapshot folder: ${kib(bytes(without))} -> ${kib(bytes(withIds))} (+${kib(added)}, ${(added / chapters).toFixed(1)} bytes a chapter)`,
  );
  console.log(
    `  git count-objects after the commit of it: +${loose.count} loose objects, +${loose.size} KiB loose; after gc size-pack ${before["size-pack"]} -> ${after["size-pack"]} KiB (+${after["size-pack"] - before["size-pack"]} KiB)`,
  );
  console.log(
    `  a repository of the tree committed once, packed: ${before["size-pack"]} KiB without the ids, ${fromStart["size-pack"]} KiB with them (+${fromStart["size-pack"] - before["size-pack"]} KiB)`,
  );
} finally {
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
}
