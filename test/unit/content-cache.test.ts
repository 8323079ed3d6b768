import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ContentCache } from "../../src/sync/state/content-cache.js";
import { nodeFs } from "../../src/tree/tree-fs.js";
import { sha256 } from "../../src/util/hash.js";

const dirs: string[] = [];
async function cacheDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "coursesync-cache-"));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const texts = Array.from({ length: 600 }, (_, i) => `<p>chapter ${i}: caf\u00e9 \u2014 ${"x".repeat(i)}</p>`);

/** The pack file a text goes to. */
const packOf = (text: string) => `${sha256(text).slice(0, 2)}.pack`;

/**
 * A cache whose appends wait until `letGo` (one to the pack named `failing` fails at once);
 * `appended` names the packs appended to, in the order their appends ended.
 */
function heldCache(dir: string, failing?: string) {
  let letGo: () => void = () => {};
  const held = new Promise<void>((resolve) => (letGo = resolve));
  const appended: string[] = [];
  const cache = new ContentCache(dir, {
    ...nodeFs,
    appendFile: async (file, data) => {
      if (path.basename(file) === failing) throw new Error("ENOSPC: no space left on device");
      await held;
      await nodeFs.appendFile(file, data);
      appended.push(path.basename(file));
    },
  });
  return { cache, letGo, appended };
}

describe("the content cache", () => {
  it("keeps many texts in at most 256 pack files and reads each back", async () => {
    const dir = await cacheDir();
    const cache = new ContentCache(dir);
    const hashes = [];
    for (const text of texts) hashes.push(await cache.stage(text));
    await cache.flush();
    cache.close();
    const packs = await readdir(path.join(dir, "packs"));
    expect(packs.length).toBeLessThanOrEqual(256);
    expect(packs.length).toBeLessThan(texts.length);
    const again = new ContentCache(dir);
    for (const [i, hash] of hashes.entries()) expect(await again.get(hash)).toBe(texts[i]);
    expect(await again.get(sha256("never stored"))).toBeUndefined();
    again.close();
  });

  it("loses nothing staged while a flush is writing, and writes each entry once", async () => {
    const dir = await cacheDir();
    // Appends wait until let go: the flush is under way while more is staged and flushed.
    const { cache, letGo, appended } = heldCache(dir);
    // Texts of one pack (their hashes start alike), and of others.
    const first = texts[0] as string;
    const samePack = texts.find((text, i) => i > 0 && packOf(text) === packOf(first));
    if (!samePack) throw new Error("no two test texts share a pack");
    const others = texts.slice(1, 40).filter((text) => text !== samePack);
    for (const text of [first, ...others]) await cache.stage(text);
    const flushing = cache.flush();
    await cache.stage(samePack);
    await cache.stage(first);
    const again = cache.flush();
    expect(await cache.get(sha256(samePack))).toBe(samePack);
    letGo();
    await Promise.all([flushing, again]);
    cache.close();
    const reread = new ContentCache(dir);
    for (const text of [first, samePack, ...others]) expect(await reread.get(sha256(text))).toBe(text);
    reread.close();
    const firstPack = packOf(first);
    const packText = await readFile(path.join(dir, "packs", firstPack), "utf8");
    expect(packText.split(sha256(first)).length - 1).toBe(1);
    expect(packText.split(sha256(samePack)).length - 1).toBe(1);
    // The second flush appended only the text staged meanwhile: to its pack alone.
    expect(appended.filter((name) => name === firstPack)).toHaveLength(2);
    expect(appended).toHaveLength(new Set(appended).size + 1);
  });

  it("settles a flush with a failed pack only once every other pack's write is over", async () => {
    const dir = await cacheDir();
    const some = texts.slice(0, 40);
    const failing = packOf(some[0] as string);
    const { cache, letGo, appended } = heldCache(dir, failing);
    for (const text of some) await cache.stage(text);
    const packs = new Set(some.map(packOf));
    let settled = false;
    const flushed = cache.flush().finally(() => (settled = true));
    flushed.catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    letGo();
    await expect(flushed).rejects.toThrow("ENOSPC");
    expect(appended.sort()).toEqual([...packs].filter((pack) => pack !== failing).sort());
    cache.close();
  });

  it("keeps text with a lone surrogate exact", async () => {
    const dir = await cacheDir();
    const odd = "a\ud800b";
    const hash = await new ContentCache(dir).put(odd);
    expect(await new ContentCache(dir).get(hash)).toBe(odd);
  });

  it("reads past nothing torn: a pack cut mid-entry keeps its whole entries, and the next write repairs it", async () => {
    const dir = await cacheDir();
    const first = await new ContentCache(dir).put("first text");
    const bucket = first.slice(0, 2);
    const pack = path.join(dir, "packs", `${bucket}.pack`);
    await appendFile(pack, `${"f".repeat(64)} t100\nhalf of an ent`);
    const cache = new ContentCache(dir);
    expect(await cache.get(first)).toBe("first text");
    // A text landing in the same pack rewrites it without the torn tail.
    let other = "";
    for (let i = 0; !other; i++) if (sha256(`text ${i}`).startsWith(bucket)) other = `text ${i}`;
    const hash = await cache.put(other);
    expect(await readFile(pack, "utf8")).not.toContain("half of an ent");
    const fresh = new ContentCache(dir);
    expect(await fresh.get(first)).toBe("first text");
    expect(await fresh.get(hash)).toBe(other);
  });

  it("never returns a text that does not match its hash", async () => {
    const dir = await cacheDir();
    const hash = await new ContentCache(dir).put("original");
    const pack = path.join(dir, "packs", `${hash.slice(0, 2)}.pack`);
    await writeFile(pack, (await readFile(pack, "utf8")).replace("original", "tampered"));
    expect(await new ContentCache(dir).get(hash)).toBeUndefined();
  });

  it("reads the older one-file-per-text layout, and prune moves what is needed into packs", async () => {
    const dir = await cacheDir();
    const kept = "kept text";
    const dropped = "dropped text";
    for (const text of [kept, dropped]) {
      const hash = sha256(text);
      await mkdir(path.join(dir, "content", hash.slice(0, 2)), { recursive: true });
      await writeFile(path.join(dir, "content", hash.slice(0, 2), hash), `t${text}`);
    }
    const cache = new ContentCache(dir);
    expect(await cache.get(sha256(kept))).toBe(kept);
    const unused = await cache.put("unused now");
    await cache.prune(new Set([sha256(kept)]));
    cache.close();
    const after = new ContentCache(dir);
    expect(await after.get(sha256(kept))).toBe(kept);
    expect(await after.get(sha256(dropped))).toBeUndefined();
    expect(await after.get(unused)).toBeUndefined();
    expect(await readdir(dir)).toEqual(["packs"]);
  });
});
