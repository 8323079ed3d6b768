import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stableStringify } from "../../src/util/stable-json.js";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { failingFs } from "../helpers/failing-fs.js";
import { asPerson, git, isolatedGit } from "../helpers/git.js";
import { edit, type PulledSite, pulledSite, stamps, webSite } from "../helpers/site.js";
import { readSnapshot, snapshotFiles } from "../helpers/snapshot.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const LEGACY = ".coursesync/production.json";
const FOLDER = ".coursesync/production";

/** The .gitignore block of an earlier init: it keeps only `.coursesync/*.json` committed. */
const OLD_GITIGNORE = `# coursesync: transient files (the snapshot .coursesync/<site>.json is committed)
.coursesync/*
!.coursesync/*.json
!.coursesync/schemas/
*.remote.md
course.remote.yaml
`;

/** A pulled tree turned into one an earlier version left: the single-file snapshot, the old .gitignore. */
async function olderTree(s: PulledSite) {
  const snapshot = await readSnapshot(s.root);
  await rm(s.file(FOLDER), { recursive: true });
  await writeFile(s.file(LEGACY), stableStringify(snapshot));
  await writeFile(s.file(".gitignore"), OLD_GITIGNORE);
  return snapshot;
}

/** Stamps of the files a user sees, and of the state folder's other files. */
async function userStamps(root: string) {
  return Object.fromEntries(
    Object.entries(await stamps(root)).filter(
      ([file]) => !file.startsWith(".coursesync/") && file !== ".gitignore" && file !== ".gitattributes",
    ),
  );
}

describe("a tree with the snapshot of an earlier version", () => {
  it("is read by status and diff as it is; the first pull writes the folder, removes the old file and rewrites no chapter", async () => {
    const s = await pulledSite(start, webSite());
    const old = await olderTree(s);
    await s.replace("courses/web/01-intro.md", "<p>one</p>", "<p>one, edited</p>");
    const before = await userStamps(s.root);

    for (const args of [["status"], ["diff"], ["pull", "--dry-run"]]) {
      const result = await s.cli(...args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      if (args[0] !== "pull") expect(result.stdout).toContain("01-intro.md");
      expect(existsSync(s.file(FOLDER)), args.join(" ")).toBe(false);
      expect(await s.read(LEGACY)).toBe(stableStringify(old));
    }

    const pulled = await s.cli("pull");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(existsSync(s.file(LEGACY))).toBe(false);
    expect(Object.keys(snapshotFiles(await s.tree()))).toEqual([
      `${FOLDER}/courses/1.json`,
      `${FOLDER}/site.json`,
    ]);
    expect(await readSnapshot(s.root)).toEqual(old);
    expect(await userStamps(s.root)).toEqual(before);
    // The old .gitignore now keeps the folder committed too.
    expect(await s.read(".gitignore")).toContain("!.coursesync/*/\n");

    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(s.emulator.state.get("chapters", 1)?.content).toBe("<p>one, edited</p>");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("is replaced by the first push too, which sends the edit once", async () => {
    const s = await pulledSite(start, webSite());
    await olderTree(s);
    await s.replace("courses/web/02-tags.md", "title: Tags", "title: Tags, edited");
    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(s.emulator.state.get("chapters", 2)?.title).toBe("Tags, edited");
    expect(existsSync(s.file(LEGACY))).toBe(false);
    expect((await readSnapshot(s.root)).chapters[2]?.record.title).toBe("Tags, edited");
    expect((await s.cli("push", "--yes")).stdout).toContain("Nothing to push");
  });
});

describe("a push whose snapshot save is cut short between two course files", () => {
  it("reads as saved, and the next push sends nothing again and finishes the save", async () => {
    const s = await pulledSite(start, {
      body: "html",
      courses: [{ title: "Web" }, { title: "Go" }],
      chapters: [
        { course_id: 1, title: "Intro", ordinal: 1, content: "<p>one</p>" },
        { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
      ],
    });
    await s.replace("courses/web/01-intro.md", "<p>one</p>", "<p>one, edited</p>");
    await s.replace("courses/go/01-tour.md", "<p>tour</p>", "<p>tour, edited</p>");
    // The run stops at the rename of course 2's file: course 1's may be written, the pending file is.
    const cut = failingFs("EIO", (call, file) => call === "rename" && file.includes(`${path.sep}2.json.`));
    const first = await runCli(["push", "--yes"], { cwd: s.root, env: s.env, fs: cut });
    expect(first.code, first.stderr).toBe(1);
    expect(existsSync(s.file(".coursesync/production.pending"))).toBe(true);
    const patches = () => s.emulator.state.requests.filter((r) => r.method === "PATCH").length;
    expect(patches()).toBe(2);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);

    const again = await s.cli("push", "--yes");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("Nothing to push");
    expect(patches()).toBe(2);
    expect(existsSync(s.file(".coursesync/production.pending"))).toBe(false);
    const snapshot = await readSnapshot(s.root);
    expect(snapshot.chapters[2]?.record.updated_at).toBe(s.emulator.state.get("chapters", 2)?.updated_at);
    expect(JSON.parse(await s.read(`${FOLDER}/courses/2.json`)).chapters["2"]).toEqual(snapshot.chapters[2]);
  });
});

describe("a git merge conflict in the snapshot", () => {
  it("stops with the file and the fix; taking one side and pulling ends in sync with the site", async () => {
    const s = await pulledSite(start, webSite());
    const env = asPerson(await isolatedGit(s.dir), "Ada");
    const run = (...args: string[]) => git(env, s.root, ...args);
    await run("init", "-q");
    await run("add", "-A");
    await run("commit", "-qm", "pulled");
    // Two branches pull the site at different times: the same chapter's entry differs.
    await run("checkout", "-qb", "other");
    edit(s.emulator, "chapters", 1, { content: "<p>one, first</p>" });
    expect((await s.cli("pull")).code).toBe(0);
    await run("add", "-A");
    await run("commit", "-qm", "pulled on other");
    await run("checkout", "-q", "main");
    edit(s.emulator, "chapters", 1, { content: "<p>one, second</p>" });
    expect((await s.cli("pull")).code).toBe(0);
    await run("add", "-A");
    await run("commit", "-qm", "pulled on main");
    await expect(run("merge", "-q", "other")).rejects.toThrow();

    const shard = `${FOLDER}/courses/1.json`;
    expect(await s.read(shard)).toContain("<<<<<<<");
    for (const args of [["status"], ["pull"]]) {
      const stopped = await s.cli(...args);
      expect(stopped.code, args.join(" ")).toBe(1);
      expect(stopped.stderr).toContain(`the snapshot ${shard} holds git merge conflict markers`);
      expect(stopped.stderr).toContain(`git checkout --theirs -- ${FOLDER}`);
    }

    // The fix the message gives (the chapter file's own conflict taken from the same side).
    await run("checkout", "--theirs", "--", FOLDER, "courses");
    await run("add", "-A");
    await run("commit", "-qm", "merged");
    const pulled = await s.cli("pull");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await s.read("courses/web/01-intro.md")).toContain("<p>one, second</p>");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
    expect((await s.cli("push", "--yes")).stdout).toContain("Nothing to push");
  });
});
