import { mkdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.js";
import { acquireLock, HOLDER_GRACE_MS } from "../../src/sync/state/lock.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** A tree holding a lock folder as a run killed right after making it leaves it; its mtime. */
async function holderlessLock(): Promise<{ root: string; made: number }> {
  const root = await testdir();
  const lock = path.join(root, ".coursesync", "production.lock");
  await mkdir(lock, { recursive: true });
  return { root, made: (await stat(lock)).mtimeMs };
}

describe("a lock that names no holder", () => {
  it("is a run between its two steps while it is younger than the grace: busy, and said so", async () => {
    const { root, made } = await holderlessLock();
    const taking = acquireLock(root, "production", "pull", () => made + HOLDER_GRACE_MS / 4);
    await expect(taking).rejects.toBeInstanceOf(UserError);
    await expect(taking).rejects.toThrow(
      /the tree is busy: another coursesync process, which has not named itself/,
    );
  });

  it("is a run killed between them once older than the grace: taken at once", async () => {
    const { root, made } = await holderlessLock();
    const release = await acquireLock(root, "production", "push", () => made + HOLDER_GRACE_MS + 500);
    const holder = JSON.parse(
      await readFile(path.join(root, ".coursesync", "production.lock.holder"), "utf8"),
    );
    expect(holder).toMatchObject({ pid: process.pid, command: "push" });
    await release();
  });
});
