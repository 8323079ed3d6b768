import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitBlobReader, parseBatch } from "../../src/sync/state/git-objects.js";
import { gitBlobId } from "../../src/util/hash.js";
import { git, isolatedGit } from "../helpers/git.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

describe("git blob ids and reading blobs back", () => {
  it("computes the id git gives a file, for text with multi-byte characters too", async () => {
    const dir = await testdir();
    const env = await isolatedGit(dir);
    for (const text of ["", "---\ntitle: Café\n---\n# Ünïcode ✓\n", "no newline"]) {
      await writeFile(path.join(dir, "f"), text);
      expect(gitBlobId(text)).toBe((await git(env, dir, "hash-object", "f")).trim());
    }
  });

  it("takes a lone surrogate as the U+FFFD a file of the text holds, and bytes as they are", async () => {
    const dir = await testdir();
    const env = await isolatedGit(dir);
    const text = "lone \ud800 surrogate\n";
    await writeFile(path.join(dir, "f"), text);
    const id = (await git(env, dir, "hash-object", "f")).trim();
    expect(gitBlobId(text)).toBe(id);
    expect(gitBlobId(Buffer.from(text, "utf8"))).toBe(id);
    expect(gitBlobId(new Uint8Array(Buffer.from("lone \ufffd surrogate\n", "utf8")))).toBe(id);
  });

  it("reads blobs by id in one batch; an id git lacks is missing and says why", async () => {
    const dir = await testdir();
    const env = await isolatedGit(dir);
    const repo = path.join(dir, "repo");
    await mkdir(repo);
    await git(env, repo, "init", "--quiet");
    await writeFile(path.join(repo, "a.md"), "alpha ✓\n");
    const id = (await git(env, repo, "hash-object", "-w", "a.md")).trim();
    const absent = gitBlobId("never written");
    const read = await gitBlobReader(repo, env)([id, absent]);
    expect(read.blobs.get(id)?.toString("utf8")).toBe("alpha ✓\n");
    expect(read.blobs.has(absent)).toBe(false);
    expect(read.missing).toBe(
      "the text the last sync wrote is not in this repository (never committed, or pruned)",
    );
  });

  it("without git, or outside a repository, reads nothing and says why (never throws)", async () => {
    const dir = await testdir();
    const env = await isolatedGit(dir);
    const id = gitBlobId("x");
    expect(await gitBlobReader(dir, { ...env, PATH: path.join(dir, "empty") })([id])).toEqual({
      blobs: new Map(),
      missing: "git is not installed (not on PATH)",
    });
    expect(await gitBlobReader(dir, { ...env, GIT_CEILING_DIRECTORIES: path.dirname(dir) })([id])).toEqual({
      blobs: new Map(),
      missing: "the tree is not in a git repository",
    });
  });

  it("parses cat-file's batch output byte by byte, blobs holding newlines and missing ids", () => {
    const out = Buffer.concat([
      Buffer.from(`${"a".repeat(40)} blob 7\n`),
      Buffer.from("é\nb\nc\n"),
      Buffer.from(`\n${"b".repeat(40)} missing\n${"c".repeat(40)} blob 0\n\n`),
    ]);
    const blobs = parseBatch(out);
    expect([...blobs.keys()]).toEqual(["a".repeat(40), "c".repeat(40)]);
    expect(blobs.get("a".repeat(40))?.toString("utf8")).toBe("é\nb\nc\n");
    expect(blobs.get("c".repeat(40))?.length).toBe(0);
  });
});
