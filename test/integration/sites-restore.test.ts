import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { pullNewTree, stamps, writeRequests } from "../helpers/site.js";
import { addSite, expectSameRecords, writesTo } from "../helpers/sites.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(() => cleanupTestdirs());

const SAMPLE = path.join(import.meta.dirname, "..", "..", "sample-site");

describe("push --site to an empty site: a restore", () => {
  it("creates every course and chapter of the sample site; a pull from it then changes nothing and a push sends nothing", async () => {
    const source = await start({ seedDir: SAMPLE });
    const empty = await start({ seedDir: null });
    const tree = await pullNewTree(source);
    await addSite(tree.root, "staging", empty.baseUrl);
    const cli = (...args: string[]) => runCli(args, { cwd: tree.root, env: tree.env });
    const before = await readTree(tree.root, [".coursesync"]);
    const defaultSnapshot = await readTree(path.join(tree.root, ".coursesync"), ["cache"]);
    source.state.clearRequests();

    const restored = await cli("push", "--site", "staging", "--yes");
    expect(restored.code, restored.stderr).toBe(0);
    const dump = source.state.dump();
    expect(restored.stdout).toContain(
      `will create ${dump.courses.length} courses and ${dump.chapters.length} chapters`,
    );
    expect(restored.stdout).toMatch(/Not restored .*slugs, created_at and updated_at, and events/);
    expectSameRecords(dump, empty.state.dump(), () => true);
    // Nothing went to the default site, and no file of the tree changed.
    expect(writeRequests(source)).toEqual([]);
    expect(await readTree(tree.root, [".coursesync"])).toEqual(before);
    const state = await readTree(path.join(tree.root, ".coursesync"), ["cache"]);
    expect(state["production.json"]).toBe(defaultSnapshot["production.json"]);
    expect(state["staging.json"]).toBeDefined();

    const mtimes = await stamps(tree.root);
    empty.state.clearRequests();
    const pulled = await cli("pull", "--site", "staging");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await stamps(tree.root)).toEqual(mtimes);
    expect(await readTree(tree.root, [".coursesync"])).toEqual(before);
    const again = await cli("push", "--site", "staging", "--yes");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("Nothing to push");
    expect(writesTo(empty)).toEqual([]);
  });
});
