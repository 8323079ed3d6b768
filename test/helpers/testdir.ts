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

/** Read a folder back into {"relative/path": "text"}, sorted, skipping the given top-level names. */
export async function readTree(root: string, skip: readonly string[] = []): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join("/");
      if (skip.includes(rel)) continue;
      if (entry.isDirectory()) await walk(full);
      else out[rel] = await readFile(full, "utf8");
    }
  }
  await walk(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Remove every folder testdir made. */
export async function cleanupTestdirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
