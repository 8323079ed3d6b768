import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const made: string[] = [];

/** Make a real temp folder holding the given files ({"a/b.md": "text"}); removed by cleanupTestdirs. */
export async function testdir(files: Record<string, string> = {}): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "coursesync-test-"));
  made.push(root);
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return root;
}

/**
 * Read a folder back into {"relative/path": "text"}, sorted, skipping the given top-level names.
 * Names are read as bytes, so a name that is not UTF-8 is read too (keyed with U+FFFD for its bad bytes).
 */
export async function readTree(root: string, skip: readonly string[] = []): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: Buffer, relDir: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true, encoding: "buffer" })) {
      const full = Buffer.concat([dir, Buffer.from(path.sep), entry.name]);
      const rel = relDir === "" ? entry.name.toString() : `${relDir}/${entry.name.toString()}`;
      if (skip.includes(rel)) continue;
      if (entry.isDirectory()) await walk(full, rel);
      else out[rel] = await readFile(full, "utf8");
    }
  }
  await walk(Buffer.from(root), "");
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Remove every folder testdir made. */
export async function cleanupTestdirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
