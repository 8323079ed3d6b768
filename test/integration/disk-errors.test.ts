import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TreeFs } from "../../src/tree/tree-fs.js";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { failingFs } from "../helpers/failing-fs.js";
import { addChapter, edit, pulledSite, pullNewTree, webSite } from "../helpers/site.js";
import { snapshotFiles } from "../helpers/snapshot.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A pulled tree, and a run of the CLI on it whose writes go through `fs`. */
async function setup() {
  const s = await pulledSite(start, webSite());
  const cliOn = (fs: TreeFs, ...args: string[]) => runCli(args, { cwd: s.root, env: s.env, fs });
  /** The user's files and the snapshot, without the caches. */
  const state = async () => readTree(s.root, [".coursesync/cache"]);
  /** A file system on which `call` to one path of the tree (or to a temp file for it) fails with `code`. */
  const failing = (code: string, call: keyof TreeFs, rel: string) =>
    failingFs(code, (made, file) => made === call && treePath(s.root, file) === rel);
  return { ...s, cliOn, state, failing };
}

/** A path of the tree as the file system sees it, with / (temp files by the file they stand for). */
function treePath(root: string, file: string): string {
  const rel = path.relative(root, file).split(path.sep).join("/");
  return rel.replace(/\.\d+\.\d+\.tmp$/, "");
}

const KEPT = "what was done so far is kept, and running the command again finishes the rest.";

describe("a disk that refuses writes", () => {
  it("full during a pull: the file is named, exit 1, the snapshot is kept, and the next pull finishes", async () => {
    const s = await setup();
    edit(s.emulator, "chapters", 1, { content: "<p>one, edited on the site</p>" });
    addChapter(s.emulator, { course_id: 1, title: "New", ordinal: 3, content: "<p>new</p>" });
    const before = await s.state();
    // Full for new files: the file's own write fails, and a file pull staged for it while the
    // listing arrived is not moved in (pull then writes it in place itself, as ever).
    const full = failingFs(
      "ENOSPC",
      (made, file) =>
        (made === "writeFile" && treePath(s.root, file) === "courses/web/03-new.md") ||
        (made === "rename" && treePath(s.root, file).startsWith(".coursesync/cache/production/incoming/")),
    );

    const failed = await s.cliOn(full, "pull");
    expect(failed.stderr).toBe(
      "coursesync: cannot write courses/web/03-new.md: no space left on the device (ENOSPC)\n" +
        `Free some space on that disk; ${KEPT}\n`,
    );
    expect(failed.code).toBe(1);
    const after = await s.state();
    expect(snapshotFiles(after)).toEqual(snapshotFiles(before));
    expect(Object.keys(after).filter((file) => file.endsWith(".tmp"))).toEqual([]);

    const again = await s.cli("pull");
    expect(again.code, again.stderr).toBe(0);
    const fresh = await pullNewTree(s.emulator, "html");
    const userFiles = (files: Record<string, string>) =>
      Object.fromEntries(Object.entries(files).filter(([file]) => file.startsWith("courses/")));
    expect(userFiles(await s.state())).toEqual(userFiles(await readTree(fresh.root)));
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
  });

  it("full during a push: the create's id the file could not take is written by the next push, nothing created twice", async () => {
    const s = await setup();
    await s.write("courses/web/03-new.md", "---\ntitle: New\nordinal: 3\n---\n<p>new</p>\n");
    await s.replace("courses/web/01-intro.md", "<p>one</p>", "<p>one, edited</p>");
    const full = s.failing("ENOSPC", "writeFile", "courses/web/03-new.md");

    const failed = await s.cliOn(full, "push", "--yes");
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      "cannot write courses/web/03-new.md: no space left on the device (ENOSPC)",
    );
    expect(`${failed.stdout}${failed.stderr}`).not.toContain("internal error");

    const again = await s.cli("push", "--yes");
    expect(again.code, again.stderr).toBe(0);
    expect(s.writes().filter((w) => w.startsWith("POST"))).toEqual(["POST /api/v1/chapters"]);
    expect(s.writes()).toContain("PATCH /api/v1/chapters/1");
    expect(await s.read("courses/web/03-new.md")).toMatch(/^---\nid: \d+\n/);
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
    expect((await s.cli("push", "--yes")).stdout).toContain("Nothing to push");
  });

  it("read-only when the snapshot is saved: named, exit 1, and the next run completes", async () => {
    const s = await setup();
    edit(s.emulator, "chapters", 2, { title: "Tags, renamed" });
    const readOnly = s.failing("EROFS", "writeFile", ".coursesync/production/courses/1.json");

    const failed = await s.cliOn(readOnly, "pull");
    expect(failed.stderr).toBe(
      "coursesync: cannot write .coursesync/production/courses/1.json: the file system is read-only (EROFS)\n" +
        `Mount it writable, or work on a copy of the tree somewhere writable; ${KEPT}\n`,
    );
    expect(failed.code).toBe(1);

    const again = await s.cli("pull");
    expect(again.code, again.stderr).toBe(0);
    expect(await s.read("courses/web/02-tags-renamed.md")).toContain("title: Tags, renamed");
    expect((await s.cli("status", "--exit-code")).code).toBe(0);
    expect((await s.cli("push", "--yes")).stdout).toContain("Nothing to push");
    expect(s.writes()).toEqual([]);
  });

  it("without permission to make a course folder: named relative to the tree, with what to do", async () => {
    const s = await setup();
    const course = s.emulator.state.createCourse({ course: { title: "Go" } });
    expect(course.kind).toBe("ok");
    const denied = s.failing("EACCES", "mkdir", "courses/go");

    const failed = await s.cliOn(denied, "pull");
    expect(failed.stderr).toBe(
      "coursesync: cannot make the folder courses/go: permission denied (EACCES)\n" +
        `Make it and its folder writable for you (ls -l shows who owns them; chmod u+w changes it); ${KEPT}\n`,
    );
    expect(failed.code).toBe(1);
    expect((await s.cli("pull")).code).toBe(0);
  });
});
