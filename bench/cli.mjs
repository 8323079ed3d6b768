// The built CLI as the benchmarks run it: in a child process (bench/child-cli.mjs reports its
// exit code, wall time, peak RSS, CPU, longest event-loop block and start/end times), in a temp
// folder with an environment of its own.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Run the built CLI in a child process; resolves with what bench/child-cli.mjs reports. */
export function cli(args, cwd, env) {
  const spawned = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "bench", "child-cli.mjs"), ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "inherit", "pipe"],
    });
    let report = "";
    child.stdio[3].on("data", (chunk) => (report += chunk));
    child.on("error", reject);
    // processMs: from the spawn to the exit, node's start and the CLI's loading included.
    child.on("close", () => resolve({ ...JSON.parse(report), processMs: performance.now() - spawned }));
  });
}

/** A temp folder for one case: where the tree goes, and the CLI's environment (no real home). */
export function benchFolder() {
  const work = mkdtempSync(path.join(tmpdir(), "coursesync-bench-"));
  const env = {
    COURSESYNC_CONFIG_DIR: path.join(work, "config"),
    COURSESYNC_EMAIL: "demo@example.com",
    COURSESYNC_PASSWORD: "coursesync",
    CI: "1",
  };
  return { work, tree: path.join(work, "tree"), env };
}
