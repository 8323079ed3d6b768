import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { changedSinceClean, prereadFolders } from "../../src/sync/local/unchanged.js";
import { StatCache } from "../../src/tree/stat-cache.js";
import { sha256 } from "../../src/util/hash.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const NAMES = ["a", "b", "c", "d", "e", "f", "g"];

/** Seven course folders of two files, recorded clean in a stat cache on a clock a minute ahead. */
async function sevenFolders() {
  const root = await testdir();
  const later = () => Date.now() + 60_000;
  const file = path.join(root, "stat.json");
  const cache = new StatCache(file, later);
  for (const name of NAMES) {
    for (const [rel, text] of [
      [`courses/${name}/course.yaml`, `title: ${name}\n`],
      [`courses/${name}/01-one.md`, `---\nid: 1\n---\n${name}\n`],
    ] as const) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
      cache.set(rel, await stat(path.join(root, rel)), sha256(text));
    }
  }
  cache.markClean("stamp");
  await cache.save();
  /**
   * The walk with a thread reading the last folders one chunk each (started before `between`
   * runs), then the walk on this thread alone: both must find the same.
   */
  const both = async (between?: () => Promise<void>) => {
    const preread = prereadFolders(root, { threadFrom: 1, share: 0.8, chunk: 1 });
    expect(preread!.chunks.length).toBeGreaterThan(1);
    for (const chunk of preread!.chunks) expect(chunk.folders.size).toBe(1);
    await between?.();
    const threaded = await changedSinceClean(
      root,
      new StatCache(file, later).loadSync(),
      "stamp",
      [],
      undefined,
      {
        preread,
      },
    );
    preread!.stop();
    const alone = await changedSinceClean(
      root,
      new StatCache(file, later).loadSync(),
      "stamp",
      [],
      undefined,
      {
        threadFrom: Number.POSITIVE_INFINITY,
      },
    );
    expect(threaded).toEqual(alone);
    return threaded;
  };
  return { root, both };
}

describe("the walk with a thread reading ahead in chunks", () => {
  it("finds what the walk alone finds: nothing, an edit in a chunk, a folder gone after the thread started", async () => {
    const t = await sevenFolders();
    expect(await t.both()).toEqual(new Set());
    await writeFile(path.join(t.root, "courses/e/01-one.md"), "---\nid: 1\n---\ne, edited\n");
    expect(await t.both()).toEqual(new Set(["courses/e"]));
    expect(await t.both(() => rm(path.join(t.root, "courses/c"), { recursive: true }))).toEqual(
      new Set(["courses/c", "courses/e"]),
    );
  });

  it("a thread stopped before it answers leaves every folder to the walk", async () => {
    const t = await sevenFolders();
    await writeFile(path.join(t.root, "courses/g/02-new.md"), "---\ntitle: New\n---\n");
    const preread = prereadFolders(t.root, { threadFrom: 1, share: 0.8, chunk: 2 });
    preread!.stop();
    const cache = new StatCache(path.join(t.root, "stat.json"), () => Date.now() + 60_000).loadSync();
    expect(await changedSinceClean(t.root, cache, "stamp", [], undefined, { preread })).toEqual(
      new Set(["courses/g"]),
    );
  });
});

describe("the walk while other work waits", () => {
  it("with turnEvery, lets the event loop turn between course folders, and finds the same", async () => {
    const t = await sevenFolders();
    const cache = () => new StatCache(path.join(t.root, "stat.json"), () => Date.now() + 60_000).loadSync();
    /** Turns of the event loop (setImmediate callbacks) run while the walk goes. */
    const turnsDuring = async (options: { turnEvery?: number }) => {
      let turns = 0;
      let walking = true;
      const turn = () => {
        turns += 1;
        if (walking) setImmediate(turn);
      };
      setImmediate(turn);
      const changed = await changedSinceClean(t.root, cache(), "stamp", [], undefined, {
        threadFrom: Number.POSITIVE_INFINITY,
        ...options,
      });
      walking = false;
      return { changed, turns };
    };
    const alone = await turnsDuring({});
    const turning = await turnsDuring({ turnEvery: 2 });
    expect(turning.changed).toEqual(new Set());
    expect(alone.changed).toEqual(new Set());
    // Seven folders, a turn after every second one: three turns more than the walk takes alone.
    expect(turning.turns - alone.turns).toBeGreaterThanOrEqual(3);
  });
});
