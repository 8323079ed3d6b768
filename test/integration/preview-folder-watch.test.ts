import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FolderWatcher } from "../../src/preview/dir-watch.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** A watcher of `root` whose told paths (relative) can be waited for. */
function watching(root: string, ignored: (file: string) => boolean = () => false) {
  const told: string[] = [];
  const waiters: Array<{ path: string; resolve: () => void }> = [];
  const watcher = new FolderWatcher(ignored, (file) => {
    const rel = path.relative(root, file).split(path.sep).join("/");
    told.push(rel);
    for (const w of waiters.filter((w) => w.path === rel)) w.resolve();
  });
  watcher.add(root);
  const toldOf = (rel: string) =>
    told.includes(rel)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ path: rel, resolve }));
  return { watcher, told, toldOf };
}

describe("folder watcher", () => {
  it("tells a file saved in a folder that was there, in one made since, and a folder removed", async () => {
    const root = await testdir({ "web/01-intro.md": "one\n" });
    const { watcher, toldOf } = watching(root);
    try {
      await writeFile(path.join(root, "web/01-intro.md"), "two\n");
      await toldOf("web/01-intro.md");
      await mkdir(path.join(root, "go"));
      await toldOf("go");
      await writeFile(path.join(root, "go/01-tour.md"), "tour\n");
      await toldOf("go/01-tour.md");
      await rm(path.join(root, "web"), { recursive: true });
      await toldOf("web");
    } finally {
      watcher.close();
    }
  });

  it("does not tell what is ignored", async () => {
    const root = await testdir({ "web/01-intro.md": "one\n", "web/drafts/x.md": "x\n" });
    const { watcher, told, toldOf } = watching(root, (file) => file.includes("drafts"));
    try {
      await writeFile(path.join(root, "web/drafts/x.md"), "y\n");
      await writeFile(path.join(root, "web/notes.md"), "n\n");
      await toldOf("web/notes.md");
      expect(told.filter((rel) => rel.includes("drafts"))).toEqual([]);
    } finally {
      watcher.close();
    }
  });
});
