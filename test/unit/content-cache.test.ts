import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ContentCache } from "../../src/sync/state/content-cache.js";
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
