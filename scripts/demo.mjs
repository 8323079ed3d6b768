// The demo: the built-in emulator seeded from sample-site/, a fresh tree, and the main job.
// Every step runs the real CLI as a user would, and the commands are printed as it goes.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, "dist", "bin", "coursesync.js");
const work = mkdtempSync(path.join(tmpdir(), "coursesync-demo-"));
const tree = path.join(work, "my-school");
const env = {
  ...process.env,
  COURSESYNC_CONFIG_DIR: path.join(work, "config"),
  COURSESYNC_EMAIL: "demo@example.com",
  COURSESYNC_PASSWORD: "coursesync",
  COURSESYNC_TOKEN: "",
};

function step(title) {
  process.stdout.write(`\n== ${title}\n`);
}

function cli(args, cwd = tree, allowed = [0]) {
  process.stdout.write(`$ coursesync ${args.join(" ")}\n`);
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, env, encoding: "utf8" });
  process.stdout.write(result.stdout);
  process.stdout.write(result.stderr);
  if (!allowed.includes(result.status ?? -1)) {
    throw new Error(`coursesync ${args.join(" ")} exited ${result.status}`);
  }
  return result;
}

function listTree(dir, prefix = "") {
  for (const name of readdirSync(dir).sort()) {
    if (name === ".coursesync" && prefix === "") {
      process.stdout.write(`${prefix}.coursesync/ (snapshot and caches)\n`);
      continue;
    }
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      process.stdout.write(`${prefix}${name}/\n`);
      listTree(full, `${prefix}  `);
    } else {
      process.stdout.write(`${prefix}${name}\n`);
    }
  }
}

const emulator = spawn(process.execPath, [bin, "emulator", "--port", "0", "--quiet"], {
  stdio: ["ignore", "pipe", "inherit"],
});
try {
  const baseUrl = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: emulator.stdout });
    lines.once("line", resolve);
    emulator.once("exit", (code) => reject(new Error(`the emulator exited with ${code}`)));
  });
  step(`The emulator serves sample-site/ at ${baseUrl}`);
  step("Start a tree and log in");
  cli(["init", tree, "--url", baseUrl], work);
  cli(["login"]);
  step("Pull: page through every course and chapter and write the tree");
  cli(["pull"]);
  listTree(tree);
  const chapter = path.join(
    tree,
    "courses",
    "web-development-foundations",
    "01-what-a-browser-does-with-your-html.md",
  );
  step("A chapter file");
  process.stdout.write(`${readFileSync(chapter, "utf8").split("\n").slice(0, 10).join("\n")}\n...\n`);
  step("Pull again: nothing changed on the site, so no file is written");
  cli(["pull"]);

  step("Edit a chapter and a course title, as an author would");
  // The chapter is Markdown now: add a paragraph at its end.
  writeFileSync(chapter, `${readFileSync(chapter, "utf8")}\nA paragraph added locally, in **Markdown**.\n`);
  const courseFile = path.join(tree, "courses", "data-analysis-with-python", "course.yaml");
  writeFileSync(
    courseFile,
    readFileSync(courseFile, "utf8").replace(/^title: .*$/m, "title: Data Analysis with Python and pandas"),
  );
  cli(["status"]);
  cli(["diff"]);
  step("Check every file offline, as CI does on a pull request");
  cli(["check"]);
  step("Push: the plan, then only the changed fields are sent");
  cli(["push", "--yes"]);
  cli(["status"]);
  step("Pull once more: the site and the tree agree");
  cli(["pull"]);
  step("Done");
} finally {
  emulator.kill("SIGINT");
  rmSync(work, { recursive: true, force: true });
}
