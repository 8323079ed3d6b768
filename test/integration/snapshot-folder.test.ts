import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GITIGNORE_BLOCK } from "../../src/cli/commands/init.js";
import { UserError } from "../../src/errors.js";
import { unignoreFolders } from "../../src/sync/state/git-files.js";
import {
  loadSnapshot,
  recordedSite,
  saveSnapshot,
  snapshotBase,
  snapshotIsLegacy,
  snapshotStamp,
} from "../../src/sync/state/snapshot.js";
import type { Snapshot, SnapshotEntry } from "../../src/sync/state/snapshot-model.js";
import { stableStringify } from "../../src/util/stable-json.js";
import { failingFs } from "../helpers/failing-fs.js";
import { cleanupTestdirs, readTree, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const DIR = ".coursesync/production";

function entry(kind: "course" | "chapter", id: number, course?: number, title = `T${id}`): SnapshotEntry {
  return {
    path: kind === "course" ? `courses/c${id}` : `courses/c${course}/${id}.md`,
    hash: `h${id}-${title}`,
    ...(kind === "chapter" ? { body: `b${id}` } : {}),
    record: { id, title, ...(kind === "chapter" ? { course_id: course } : {}) },
  };
}

/** Courses 1 and 2 with chapters, a provisional course -7 with its chapter, an orphan chapter, ids of each. */
function sample(mapped = true): Snapshot {
  return {
    version: 1,
    site: "https://academy.example.com/api/v1",
    body: "markdown",
    courses: { "1": entry("course", 1), "2": entry("course", 2), "-7": entry("course", -7) },
    chapters: {
      "10": entry("chapter", 10, 1),
      "11": entry("chapter", 11, 1),
      "20": entry("chapter", 20, 2),
      "-70": entry("chapter", -70, -7),
      "99": entry("chapter", 99, 500),
    },
    ...(mapped
      ? {
          ids: {
            courses: { "1": 101, "2": 102, "3": 103 },
            chapters: { "10": 110, "11": 111, "20": 120, "99": 199, "98": 198 },
          },
        }
      : {}),
  };
}

/** Inode and mtime of each file of the folder. */
async function inodes(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of Object.keys(await readTree(path.join(root, DIR)))) {
    const s = await stat(path.join(root, DIR, file), { bigint: true });
    out[file] = `${s.ino}:${s.mtimeNs}`;
  }
  return out;
}

async function thrown(promise: Promise<unknown>): Promise<UserError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UserError);
  return error as UserError;
}

describe("the snapshot folder", () => {
  it("keeps one file per course (chapters and ids with it), provisional ids and orphans in files of their own", async () => {
    const root = await testdir();
    const snapshot = sample();
    await saveSnapshot(root, "production", snapshot);
    const files = await readTree(path.join(root, DIR));
    expect(Object.keys(files)).toEqual([
      "courses/-7.json",
      "courses/1.json",
      "courses/2.json",
      "orphans.json",
      "site.json",
    ]);
    expect(JSON.parse(files["site.json"]!)).toEqual({
      version: 2,
      site: snapshot.site,
      body: "markdown",
      id_map: true,
    });
    expect(JSON.parse(files["courses/1.json"]!)).toEqual({
      course: snapshot.courses[1],
      chapters: { "10": snapshot.chapters[10], "11": snapshot.chapters[11] },
      ids: { courses: { "1": 101 }, chapters: { "10": 110, "11": 111 } },
    });
    expect(JSON.parse(files["orphans.json"]!)).toEqual({
      chapters: { "99": snapshot.chapters[99] },
      ids: { courses: { "3": 103 }, chapters: { "98": 198, "99": 199 } },
    });
    // Sorted keys, one value per line, LF, a final newline: git merges and diffs it by line.
    for (const text of Object.values(files)) expect(text).toBe(stableStringify(JSON.parse(text)));
    expect(await loadSnapshot(root, "production")).toEqual(snapshot);
    const plain = sample(false);
    await saveSnapshot(root, "production", plain);
    expect(await loadSnapshot(root, "production")).toEqual(plain);
    expect(JSON.parse(await readFile(path.join(root, DIR, "site.json"), "utf8"))).not.toHaveProperty(
      "id_map",
    );
  });

  it("rewrites only the file of the course whose chapter changed, removes a gone course's file, and the stamp follows", async () => {
    const root = await testdir();
    expect(snapshotStamp(root, "production")).toBeUndefined();
    await saveSnapshot(root, "production", sample());
    const before = await inodes(root);
    const stamp = snapshotStamp(root, "production");
    expect(stamp).toBeDefined();

    // The same snapshot, its keys in another order: the same bytes, nothing written.
    const reordered = sample();
    reordered.chapters = Object.fromEntries(Object.entries(reordered.chapters).reverse());
    await saveSnapshot(root, "production", reordered);
    expect(await inodes(root)).toEqual(before);
    expect(snapshotStamp(root, "production")).toBe(stamp);

    const edited = sample();
    edited.chapters[20] = entry("chapter", 20, 2, "Edited");
    await saveSnapshot(root, "production", edited);
    const after = await inodes(root);
    expect(Object.keys(after).filter((file) => after[file] !== before[file])).toEqual(["courses/2.json"]);
    expect(snapshotStamp(root, "production")).not.toBe(stamp);

    const { "2": _gone, ...courses } = edited.courses;
    const { "20": _chapter, ...chapters } = edited.chapters;
    const removed = { ...edited, courses, chapters };
    await saveSnapshot(root, "production", removed);
    expect(existsSync(path.join(root, DIR, "courses/2.json"))).toBe(false);
    expect(await loadSnapshot(root, "production")).toEqual(removed);
  });

  it("a save killed between its files reads as the new snapshot, and the next save finishes it", async () => {
    const root = await testdir();
    const old = sample();
    await saveSnapshot(root, "production", old);
    const next = sample();
    next.chapters[10] = entry("chapter", 10, 1, "New");
    next.chapters[20] = entry("chapter", 20, 2, "New");
    next.courses[-7] = entry("course", -7, undefined, "New");
    // The second course file's rename never happens: the run is gone.
    const killed = failingFs("EIO", (call, file) => call === "rename" && file.includes("/2.json."));
    await expect(saveSnapshot(root, "production", next, killed)).rejects.toThrow();
    expect(existsSync(path.join(root, ".coursesync/production.pending"))).toBe(true);
    expect(await loadSnapshot(root, "production")).toEqual(next);
    expect(snapshotBase(await loadSnapshot(root, "production"))).toBe(snapshotBase(next));

    await saveSnapshot(root, "production", next);
    expect(existsSync(path.join(root, ".coursesync/production.pending"))).toBe(false);
    const files = await readTree(path.join(root, DIR));
    expect(JSON.parse(files["courses/2.json"]!).chapters["20"].record.title).toBe("New");
    expect(await loadSnapshot(root, "production")).toEqual(next);

    // Killed before its pending file was whole: the snapshot before the save.
    const noPending = failingFs("EIO", (call, file) => call === "rename" && file.includes(".pending."));
    await expect(saveSnapshot(root, "production", old, noPending)).rejects.toThrow();
    expect(await loadSnapshot(root, "production")).toEqual(next);
  });

  it("stops at git conflict markers in a file of the folder, naming it and how to take one side", async () => {
    const root = await testdir();
    await saveSnapshot(root, "production", sample());
    const file = path.join(root, DIR, "courses/1.json");
    const text = await readFile(file, "utf8");
    const line = text.split("\n").find((l) => l.includes('"hash": "h10'))!;
    await writeFile(
      file,
      text.replace(line, `<<<<<<< HEAD\n${line}\n=======\n${line.replace("h10", "h10b")}\n>>>>>>> other`),
    );
    const error = await thrown(loadSnapshot(root, "production"));
    expect(error.message).toContain(`the snapshot ${DIR}/courses/1.json holds git merge conflict markers`);
    expect(error.hint).toContain(`git checkout --theirs -- ${DIR}`);
    expect(error.hint).toContain("coursesync pull");
  });

  it("takes a record found in two files (a merge moved it on one side) from the file it belongs in", async () => {
    const root = await testdir();
    await saveSnapshot(root, "production", sample());
    const file = (name: string) => path.join(root, DIR, "courses", name);
    const edit = async (name: string, change: (shard: { chapters: Record<string, unknown> }) => void) => {
      const shard = JSON.parse(await readFile(file(name), "utf8"));
      change(shard);
      await writeFile(file(name), stableStringify(shard));
    };
    // A stale copy of chapter 20 (of course 2) in course 1's file, which sorts first.
    await edit("1.json", (shard) => {
      shard.chapters["20"] = entry("chapter", 20, 2, "Stale");
    });
    expect((await loadSnapshot(root, "production"))?.chapters[20]).toEqual(entry("chapter", 20, 2));
    // Chapter 20 moved to course 1 on one side, and kept in course 2's file on the other: both
    // belong where they are; the first file wins, and the next save keeps it in one file.
    const moved = entry("chapter", 20, 1, "Moved");
    await edit("1.json", (shard) => {
      shard.chapters["20"] = moved;
    });
    const loaded = await loadSnapshot(root, "production");
    expect(loaded?.chapters[20]).toEqual(moved);
    await saveSnapshot(root, "production", loaded!);
    expect(JSON.parse(await readFile(file("2.json"), "utf8")).chapters).toEqual({});
  });
});

describe("the single-file snapshot of earlier versions", () => {
  it("tells the site it was made for from site.json alone; not while a save is under way, nor of none", async () => {
    const root = await testdir();
    expect(recordedSite(root, "production")).toBeUndefined();
    await saveSnapshot(root, "production", sample());
    expect(recordedSite(root, "production")).toBe("https://academy.example.com/api/v1");
    const moved = { ...sample(), site: "https://moved.example.com/api/v1" };
    moved.chapters[10] = entry("chapter", 10, 1, "New");
    // More than one file changes: the save writes its pending file first, then is killed.
    const killed = failingFs("EIO", (call, file) => call === "rename" && file.includes("/1.json."));
    await expect(saveSnapshot(root, "production", moved, killed)).rejects.toThrow();
    // The save under way may move it: only the whole load tells.
    expect(recordedSite(root, "production")).toBeUndefined();
    expect((await loadSnapshot(root, "production"))?.site).toBe("https://moved.example.com/api/v1");
  });

  const legacy = ".coursesync/production.json";

  it("is read as it is; the first save writes the folder (site.json last), then removes it", async () => {
    const snapshot = sample();
    const root = await testdir({ [legacy]: stableStringify(snapshot) });
    expect(snapshotIsLegacy(root, "production")).toBe(true);
    expect(await loadSnapshot(root, "production")).toEqual(snapshot);
    const stamp = snapshotStamp(root, "production");
    expect(stamp).toBeDefined();

    // Killed before site.json: the folder does not count yet, the old file is the snapshot.
    const killed = failingFs("EIO", (call, file) => call === "rename" && file.includes("site.json."));
    const next = { ...sample(), site: "https://moved.example.com/api/v1" };
    await expect(saveSnapshot(root, "production", next, killed)).rejects.toThrow();
    expect(existsSync(path.join(root, DIR, "courses/1.json"))).toBe(true);
    expect(await loadSnapshot(root, "production")).toEqual(snapshot);

    await saveSnapshot(root, "production", next);
    expect(existsSync(path.join(root, legacy))).toBe(false);
    expect(snapshotIsLegacy(root, "production")).toBe(false);
    expect(await loadSnapshot(root, "production")).toEqual(next);
    expect(snapshotStamp(root, "production")).not.toBe(stamp);

    // Both there (killed before the old file went): the complete folder wins.
    await writeFile(path.join(root, legacy), stableStringify(snapshot));
    expect(await loadSnapshot(root, "production")).toEqual(next);
    await saveSnapshot(root, "production", next);
    expect(existsSync(path.join(root, legacy))).toBe(false);
  });

  it("a first save writes its course files in place: one a killed save left cut short is written whole by the next", async () => {
    const snapshot = sample();
    const root = await testdir({});
    await saveSnapshot(root, "production", snapshot);
    const whole = await readTree(path.join(root, DIR));
    // As a save killed part-way leaves the folder: one course file cut short, site.json not yet
    // written (and no temp file beside any file).
    const root2 = await testdir({
      [`${DIR}/courses/1.json`]: whole["courses/1.json"]!.slice(0, 40),
      [`${DIR}/courses/2.json`]: whole["courses/2.json"]!,
    });
    expect(await loadSnapshot(root2, "production")).toBeUndefined();
    await saveSnapshot(root2, "production", snapshot);
    expect(await readTree(path.join(root2, DIR))).toEqual(whole);
    expect(await loadSnapshot(root2, "production")).toEqual(snapshot);
  });

  it("a .gitignore of an earlier init is brought up to the folder: committed, its temp files and the cache not", async () => {
    const old = GITIGNORE_BLOCK.split("\n")
      .filter((line) => line === "" || line.startsWith("#") || !/^!\.coursesync\/\*\/|cache|\*\*/.test(line))
      .join("\n");
    expect(old).toContain("!.coursesync/*.json\n");
    const root = await testdir({ ".gitignore": old, ".gitattributes": ".coursesync/*.json -text\n" });
    await saveSnapshot(root, "production", sample());
    execFileSync("git", ["init", "-q", root]);
    await writeFile(path.join(root, DIR, "site.json.123.4.tmp"), "{");
    await mkdir(path.join(root, ".coursesync/cache/production"), { recursive: true });
    await writeFile(path.join(root, ".coursesync/cache/production/stat.json"), "{}");
    await writeFile(path.join(root, ".coursesync/production.pending"), "{}");
    execFileSync("git", ["-C", root, "add", "-A"]);
    const files = execFileSync("git", ["-C", root, "ls-files"], { encoding: "utf8" }).trim().split("\n");
    expect(files.filter((file) => file.startsWith(".coursesync/"))).toEqual([
      ".coursesync/production/courses/-7.json",
      ".coursesync/production/courses/1.json",
      ".coursesync/production/courses/2.json",
      ".coursesync/production/orphans.json",
      ".coursesync/production/site.json",
    ]);
    expect(await readFile(path.join(root, ".gitattributes"), "utf8")).toContain(".coursesync/** -text\n");
    // Done once: a second pass changes nothing.
    expect(await unignoreFolders(root)).toEqual([]);
  });
});
