import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { restoreTree, treeNow, userFiles } from "../helpers/crash.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";
import { jsonAnswer, useProxies } from "../helpers/proxy.js";
import { pullNewTree, seedSite, writeRequests } from "../helpers/site.js";
import { addSite, expectSameRecords } from "../helpers/sites.js";
import { BIN, runBin } from "../helpers/subprocess.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
const startProxy = useProxies();
afterEach(cleanupTestdirs);

/** Where a run is killed: at its nth create, before the site gets it or after the site made the record. */
interface KillPoint {
  create: number;
  when: "before" | "after";
}

// Two courses and six chapters: eight creates. Killed after a course the site made but whose
// answer never arrived, before and after a chapter in the middle, and after the last create.
const POINTS: KillPoint[] = [
  { create: 2, when: "after" },
  { create: 5, when: "before" },
  { create: 5, when: "after" },
  { create: 8, when: "after" },
];

describe("a restore killed with SIGKILL", () => {
  it("is finished by running it again, from every point: each record once, none missing, the site equal to the source", async () => {
    const source = await start({ seedDir: null });
    seedSite(source, {
      courses: [{ title: "Web", status: 1, excerpt: "HTML and CSS" }, { title: "Go" }],
      chapters: [
        { course_id: 1, title: "One", ordinal: 1, content: "<p>One</p>" },
        { course_id: 1, title: "Two", ordinal: 2, content: "<p>Two</p>" },
        { course_id: 1, title: "Three", ordinal: 3, content: "<p>Three</p>" },
        { course_id: 2, title: "Tour", ordinal: 1, content: "<p>Tour</p>" },
        { course_id: 2, title: "Slices", ordinal: 2, content: "<p>Slices</p>" },
        { course_id: 2, title: "Maps", ordinal: 3, content: "<p>Maps</p>" },
      ],
    });
    const target = await start({ seedDir: null, now: manualClock().now });
    const emptySite = target.state.dump();
    const tree = await pullNewTree(source, "html");
    const env = { ...tree.env, CI: "true" };

    // The restore reaches the new site through a proxy that kills it at the chosen create and
    // waits for it to be gone before the create goes on (or its answer comes back); creates run
    // side by side across courses, so one sent after the chosen one never reaches the site:
    // where the kill lands never depends on timing.
    let child: ChildProcess | undefined;
    let point: KillPoint | undefined;
    let creates = 0;
    const kill = async () => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = once(running, "exit");
      running.kill("SIGKILL");
      await exited;
    };
    const proxy = await startProxy(target.baseUrl, (request) => {
      if (request.method !== "POST" || request.url.pathname.endsWith("/login")) return "forward";
      creates += 1;
      if (point === undefined || creates < point.create) return "forward";
      if (creates > point.create) return kill().then(() => ({ answer: jsonAnswer(503, {}) }));
      if (point.when === "before") return kill().then(() => ({ answer: jsonAnswer(503, {}) }));
      return {
        rewrite: async (upstream) => {
          await kill();
          return upstream;
        },
      };
    });
    await addSite(tree.root, "staging", proxy.baseUrl);
    const files = treeNow(tree.root);

    for (const at of POINTS) {
      const where = `killed ${at.when} create ${at.create}`;
      target.state.reset(emptySite);
      restoreTree(tree.root, files);
      point = at;
      creates = 0;
      child = spawn(process.execPath, [BIN, "push", "--site", "staging", "--yes"], {
        cwd: tree.root,
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: "ignore",
      });
      const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
      expect({ code, signal }, where).toEqual({ code: null, signal: "SIGKILL" });
      const made = target.state.dump();
      expect(made.courses.length + made.chapters.length, where).toBe(
        at.create - (at.when === "before" ? 1 : 0),
      );

      point = undefined;
      const rerun = await runBin(["push", "--site", "staging", "--yes"], { cwd: tree.root, env });
      expect(rerun.code, `${where}: ${rerun.stderr}`).toBe(0);
      expectSameRecords(source.state.dump(), target.state.dump());
      // The restore writes to the site alone: the files the user sees are as they were.
      expect(userFiles(treeNow(tree.root)), where).toEqual(userFiles(files));
      // Nothing is left to send (checked in this process: only the kill and the rerun need the built CLI).
      target.state.clearRequests();
      const again = await runCli(["push", "--site", "staging", "--yes"], { cwd: tree.root, env });
      expect(again.stdout, where).toContain("Nothing to push");
      expect(writeRequests(target), where).toEqual([]);
    }
  });
});
