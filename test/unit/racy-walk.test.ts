import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { changedSinceClean } from "../../src/sync/local/unchanged.js";
import { StatCache } from "../../src/tree/stat-cache.js";
import { sha256 } from "../../src/util/hash.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const FILES = {
  "courses/c/course.yaml": "id: 1\ntitle: C\n",
  "courses/c/01-one.md": "---\nid: 1\n---\none\n",
};

/** A tree of one course folder and a stat cache recording it, clean, on the clock given. */
async function recorded(
  now: () => number,
  hashOf: (rel: string, text: string) => string = (_, t) => sha256(t),
) {
  const root = await testdir();
  const file = path.join(root, "stat.json");
  const cache = new StatCache(file, now);
  for (const [rel, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
    cache.set(rel, await stat(path.join(root, rel)), hashOf(rel, text));
  }
  cache.markClean("stamp");
  await cache.save();
  return { root, file };
}

describe("the walk over entries recorded too soon to trust by their stat", () => {
  it("counts a file unchanged only when its bytes have the hash recorded", async () => {
    // Recorded just after being written: racy. The stat alone would say nothing moved.
    const { root, file } = await recorded(Date.now, (rel, text) =>
      rel.endsWith(".md") ? sha256(`${text}!`) : sha256(text),
    );
    const cache = new StatCache(file, Date.now).loadSync();
    expect(await changedSinceClean(root, cache, "stamp", [])).toEqual(new Set(["courses/c"]));
  });

  it("finds the folder clean when the bytes match, and trusts the entries from then on once old enough", async () => {
    const { root, file } = await recorded(Date.now);
    expect(await readFile(file, "utf8")).toMatch(/\t\?[0-9a-f]{64}\n/);
    const later = () => Date.now() + 60_000;
    const cache = new StatCache(file, later).loadSync();
    expect(await changedSinceClean(root, cache, "stamp", [])).toEqual(new Set());
    await cache.save();
    const saved = await readFile(file, "utf8");
    expect(saved).not.toMatch(/\t\?/);
    expect(new StatCache(file, later).loadSync().clean).toBe("stamp");
  });

  it("finds nothing to trust when a stamp taken during the walk is not the clean mark's", async () => {
    const { root, file } = await recorded(Date.now);
    const later = () => Date.now() + 60_000;
    expect(
      await changedSinceClean(root, new StatCache(file, later).loadSync(), Promise.resolve("stamp"), []),
    ).toEqual(new Set());
    const cache = new StatCache(file, later).loadSync();
    expect(await changedSinceClean(root, cache, Promise.resolve("another"), [])).toBeUndefined();
  });
});
