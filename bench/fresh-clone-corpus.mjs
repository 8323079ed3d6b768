// node bench/fresh-clone-corpus.mjs (after npm run build): over every chapter of both corpora
// (bench/corpora.mjs), how often an edit here and one on the site far apart (the first word of the
// body here, the last on the site) merge at a pull in the tree that pulled, and in a fresh clone
// of its git repository (no content cache: the base is read from git by the snapshot's blob ids).
// The two shares, and whether the same chapters merge in both. Real git, the emulator as the site.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../dist/bin/main.js";
import { startEmulator } from "../dist/emulator/server.js";
import { markdownToHtml } from "../dist/tree/markdown/index.js";
import { editorCorpus, specCorpus } from "./corpora.mjs";
import { benchGit } from "./git-env.mjs";
import { edit, inHtml, words } from "./merge-edits.mjs";

const work = mkdtempSync(path.join(tmpdir(), "coursesync-fresh-clone-"));
const { env: gitEnv, git } = benchGit(work);
const env = {
  ...gitEnv,
  COURSESYNC_CONFIG_DIR: path.join(work, "config"),
  COURSESYNC_EMAIL: "demo@example.com",
  COURSESYNC_PASSWORD: "coursesync",
};

/** Run the built CLI in this process, quietly; returns its exit code. */
function cli(cwd, ...args) {
  return main(args, {
    stdout: { write: () => true, isTTY: false },
    stderr: { write: () => true, isTTY: false },
    stdinIsTTY: false,
    env,
    cwd,
    interrupted: new Promise(() => {}),
    prompts: {},
  });
}

/** Every chapter file of a tree, by the id in its front matter. */
function chapterFiles(tree) {
  const files = new Map();
  for (const rel of readdirSync(path.join(tree, "courses"), { recursive: true })) {
    if (!rel.endsWith(".md") || rel.endsWith(".remote.md")) continue;
    const file = path.join(tree, "courses", rel);
    const id = /^id: (\d+)$/m.exec(readFileSync(file, "utf8"))?.[1];
    if (id !== undefined) files.set(Number(id), file);
  }
  return files;
}

/** The body of a chapter file and where it starts. */
function bodyOf(text) {
  const start = text.indexOf("\n---\n", 3) + 5;
  return { start, body: text.slice(start, text.length - 1) };
}

const emulator = await startEmulator({ seedDir: null });
try {
  const corpusOf = new Map();
  for (const [name, corpus] of [
    ["spec", specCorpus],
    ["editor", editorCorpus],
  ]) {
    const course = emulator.state.createCourse({ course: { title: name } }).value;
    corpus.forEach((html, n) => {
      const chapter = { course_id: course.id, title: `Chapter ${n + 1}`, ordinal: n + 1, content: html };
      corpusOf.set(emulator.state.createChapter({ chapter }).value.id, { name, html });
    });
  }
  const origin = path.join(work, "origin.git");
  git(work, "init", "--quiet", "--bare", origin);
  const author = path.join(work, "author");
  git(work, "clone", "--quiet", origin, author);
  if ((await cli(author, "init", "tree", "--url", emulator.baseUrl, "--no-check")) !== 0)
    throw new Error("init");
  const pulled = path.join(author, "tree");
  if ((await cli(pulled, "pull")) !== 0) throw new Error("first pull");
  git(author, "add", "--all");
  git(author, "commit", "--quiet", "-m", "pulled");
  git(author, "push", "--quiet", "origin", "HEAD:main");
  const fresh = path.join(work, "fresh");
  git(work, "clone", "--quiet", origin, fresh);
  const cloned = path.join(fresh, "tree");
  // For contrast: a fresh clone whose snapshot has no blob ids (as an older version wrote it).
  const older = path.join(work, "older");
  git(work, "clone", "--quiet", origin, older);
  const olderTree = path.join(older, "tree");
  const shards = path.join(olderTree, ".coursesync", "production", "courses");
  for (const name of readdirSync(shards)) {
    const shard = path.join(shards, name);
    writeFileSync(shard, readFileSync(shard, "utf8").replace(/\n\s*"blob": "[0-9a-f]{40}",/g, ""));
  }

  // The same edits in both trees; the site's edit once.
  const tried = new Map();
  for (const [id, file] of chapterFiles(pulled)) {
    const text = readFileSync(file, "utf8");
    const { start, body } = bodyOf(text);
    const all = words(body);
    if (all.length < 2) continue;
    const [mine, theirs] = [all[0], all.at(-1)];
    const { html } = corpusOf.get(id);
    const spot = inHtml({ html, body }, theirs);
    const site = spot ? edit(html, spot, "Theirs") : markdownToHtml(edit(body, theirs, "Theirs"));
    emulator.state.edit("chapters", id, { content: site });
    const local = edit(text, { at: start + mine.at, word: mine.word }, "Mine");
    for (const tree of [pulled, cloned, olderTree])
      writeFileSync(path.join(tree, path.relative(pulled, file)), local);
    tried.set(id, { rel: path.relative(pulled, file), want: [`${mine.word}Mine`, `${theirs.word}Theirs`] });
  }

  const merged = {};
  for (const [label, tree] of [
    ["tree that pulled", pulled],
    ["fresh clone", cloned],
    ["older", olderTree],
  ]) {
    await cli(tree, "pull");
    merged[label] = new Set();
    for (const [id, { rel, want }] of tried) {
      const text = readFileSync(path.join(tree, rel), "utf8");
      if (!text.includes("<<<<<<<") && want.every((w) => text.includes(w))) merged[label].add(id);
    }
  }
  const share = (set) => {
    const each = ["spec", "editor"].map((name) => {
      const ids = [...tried.keys()].filter((id) => corpusOf.get(id).name === name);
      return `${name} ${ids.filter((id) => set.has(id)).length}/${ids.length}`;
    });
    return `${((100 * set.size) / tried.size).toFixed(1)}% (${set.size} of ${tried.size}; ${each.join(", ")})`;
  };
  const a = merged["tree that pulled"];
  const b = merged["fresh clone"];
  const same = a.size === b.size && [...a].every((id) => b.has(id));
  console.log(`disjoint edits merged at a pull, in the tree that pulled: ${share(a)}`);
  console.log(`disjoint edits merged at a pull, in a fresh clone: ${share(b)}`);
  console.log(`the same chapters merge in both: ${same ? "yes" : "no"}`);
  console.log(`for contrast, a fresh clone of a snapshot without blob ids: ${share(merged.older)}`);
} finally {
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
}
