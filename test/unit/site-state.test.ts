import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { emptySnapshot } from "../../src/sync/state/snapshot-model.js";
import { SiteState } from "../../src/sync/state/workspace.js";
import { nodeFs, type TreeFs } from "../../src/tree/tree-fs.js";

const roots: string[] = [];
async function tree(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "coursesync-state-"));
  roots.push(root);
  return root;
}
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

/** Node's file system, noting the tree path of every file written or renamed into place. */
function noting(root: string): { fs: TreeFs; written: string[] } {
  const written: string[] = [];
  const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");
  const fs: TreeFs = {
    ...nodeFs,
    writeFile: (file, data, options) => {
      if (!file.endsWith(".tmp")) written.push(rel(file));
      return nodeFs.writeFile(file, data, options);
    },
    rename: (from, to) => {
      written.push(rel(to));
      return nodeFs.rename(from, to);
    },
  };
  return { fs, written };
}

describe("SiteState", () => {
  it("keeps every path of a site under .coursesync/<site>", async () => {
    const root = await tree();
    const { paths } = SiteState.open(root, "production");
    const state = path.join(root, ".coursesync");
    expect(paths.dir).toBe(state);
    expect(paths.snapshot).toBe(path.join(state, "production"));
    expect(paths.cache).toBe(path.join(state, "cache", "production"));
    for (const file of [paths.legacy, paths.pending, paths.lock, paths.journal])
      expect(path.basename(file).startsWith("production.")).toBe(true);
  });

  it("opens each part once", async () => {
    const state = SiteState.open(await tree(), "production");
    expect(state.cache).toBe(state.cache);
    expect(state.loadStatCache()).toBe(state.loadStatCache());
    expect(state.statCache).toBe(state.loadStatCache());
    expect(state.journal("base-1")).toBe(state.journal("base-2"));
  });

  it("commits once: the snapshot written, a second commit refused", async () => {
    const root = await tree();
    const { fs, written } = noting(root);
    const state = SiteState.open(root, "production", { fs });
    expect(await state.loadSnapshot()).toBeUndefined();
    const snapshot = emptySnapshot("https://example.test/api");
    expect(await state.commit({ loaded: undefined, snapshot, prune: false })).toBe(true);
    expect(written.filter((file) => file === ".coursesync/production/site.json")).toHaveLength(1);
    expect(await SiteState.open(root, "production").loadSnapshot()).toEqual(snapshot);
    const count = written.length;
    await expect(state.commit({ loaded: undefined, snapshot, prune: false })).rejects.toThrow(
      /committed already/,
    );
    expect(written).toHaveLength(count);
  });

  it("writes no snapshot the disk already holds", async () => {
    const root = await tree();
    const snapshot = emptySnapshot("https://example.test/api");
    await SiteState.open(root, "production").commit({ loaded: undefined, snapshot, prune: false });
    const again = SiteState.open(root, "production");
    const loaded = await again.loadSnapshot();
    expect(
      await again.commit({ loaded, snapshot: emptySnapshot("https://example.test/api"), prune: false }),
    ).toBe(false);
  });
});
