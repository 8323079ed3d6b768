import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StatCache } from "../../src/tree/stat-cache.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** A clock far ahead of every stat below: nothing is too recent to trust. */
const later = () => 1e12;

const statOf = (n: number) => ({ size: n, mtimeMs: 1000 + n + 0.5, ctimeMs: 2000 + n + 0.25, ino: 7000 + n });

/** Paths in no order, some sorting around each other's prefixes (`a-b/` before `a/`). */
const PATHS = Array.from({ length: 300 }, (_, i) =>
  i % 3 === 0
    ? `courses/c-${i}/0${i % 7}-x.md`
    : i % 3 === 1
      ? `courses/c/${i}.md`
      : `courses/c-${i}-b/course.yaml`,
).reverse();

async function saved(): Promise<{ file: string; cache: StatCache }> {
  const file = path.join(await testdir(), "stat.json");
  const cache = new StatCache(file, later);
  for (const [i, relPath] of PATHS.entries()) cache.set(relPath, statOf(i), `hash-${i}`);
  await cache.save();
  return { file, cache: new StatCache(file, later).loadSync() };
}

describe("the stat cache", () => {
  it("finds every saved entry by path and stat, and none for another stat or path", async () => {
    const { cache } = await saved();
    for (const [i, relPath] of PATHS.entries()) {
      expect(cache.get(relPath, statOf(i))).toBe(`hash-${i}`);
      expect(cache.get(relPath, { ...statOf(i), ctimeMs: 1 })).toBeUndefined();
    }
    for (const missing of ["a", "courses/c-", "courses/c/0.md ", "courses/c-3/03-x.mdx", "zzz", ""]) {
      expect(cache.get(missing, statOf(0))).toBeUndefined();
    }
  });

  it("keeps a run's changes beside the file's lines and writes them merged, in path order", async () => {
    const { file, cache } = await saved();
    cache.set(PATHS[5]!, statOf(500), "changed");
    cache.set("courses/a/new.md", statOf(501), "added");
    cache.set("courses/zz/new.md", statOf(502), "added last");
    cache.set(PATHS[9]!, { ...statOf(9), mtimeMs: later() - 1 }, "too recent");
    cache.keepOnly(new Set(PATHS.filter((relPath) => !relPath.endsWith("course.yaml"))), (relPath) =>
      relPath.startsWith("courses/c-1"),
    );
    expect(cache.get(PATHS[5]!, statOf(500))).toBe("changed");
    expect(cache.get(PATHS[5]!, statOf(5))).toBeUndefined();
    expect(cache.get("courses/a/new.md", statOf(501))).toBe("added");
    expect(cache.get(PATHS[9]!, statOf(9))).toBeUndefined();
    const dropped = PATHS.filter(
      (relPath) => relPath.startsWith("courses/c-1") && relPath.endsWith("course.yaml"),
    );
    expect(dropped.length).toBeGreaterThan(0);
    for (const relPath of dropped) expect(cache.get(relPath, statOf(PATHS.indexOf(relPath)))).toBeUndefined();
    await cache.save();
    const lines = (await readFile(file, "utf8")).split("\n").slice(3, -1);
    const paths = lines.map((line) => line.split("\t")[0]!);
    expect(paths).toEqual([...paths].sort((a, b) => (a < b ? -1 : 1)));
    expect(paths).toContain("courses/a/new.md");
    expect(paths.at(-1)).toBe("courses/zz/new.md");
    expect(paths).toHaveLength(PATHS.length + 2 - dropped.length);
    // Too recent to trust by its stat: kept, marked to be checked by its bytes.
    expect(lines.find((line) => line.startsWith(`${PATHS[9]}\t`))).toMatch(/\t\?too recent$/);
    const reloaded = new StatCache(file, later).loadSync();
    expect(reloaded.get(PATHS[5]!, statOf(500))).toBe("changed");
    expect(reloaded.get(PATHS[7]!, statOf(7))).toBe("hash-7");
    // The cursor walks the merged lines in the same order.
    const cursor = cache.lines();
    for (const relPath of paths) {
      expect(cursor.isAt(relPath)).toBe(true);
      cursor.skipUnder(relPath);
    }
    expect(cursor.done).toBe(true);
  });

  it("writes nothing when a run changed nothing, and a clean mark only over cached files", async () => {
    const { file, cache } = await saved();
    const before = await readFile(file, "utf8");
    for (const [i, relPath] of PATHS.entries()) cache.set(relPath, statOf(i), `hash-${i}`);
    await cache.save();
    expect(await readFile(file, "utf8")).toBe(before);
    cache.markClean("stamp", ["courses/c"]);
    await cache.save();
    expect(new StatCache(file, later).loadSync().clean).toBe("stamp");
    const empty = new StatCache(path.join(path.dirname(file), "none.json"), later).loadSync();
    empty.markClean("stamp");
    expect(empty.clean).toBeUndefined();
  });
});
