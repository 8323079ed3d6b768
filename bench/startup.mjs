// npm run bench -- startup: how long `coursesync --version` and `--help` take to start and end,
// side by side with `node -e 0` on the same machine (in turns, 15 rounds; medians and worst).
// Each command loads only what it uses: help and version load no command's module.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, "dist", "bin", "coursesync.js");
const runs = {
  "node -e 0": ["-e", "0"],
  "coursesync --version": [bin, "--version"],
  "coursesync --help": [bin, "--help"],
  "coursesync status --help": [bin, "status", "--help"],
};
const times = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
for (let round = 0; round < 15; round++) {
  for (const [name, args] of Object.entries(runs)) {
    const started = performance.now();
    const done = spawnSync(process.execPath, args, { stdio: "ignore" });
    if (done.status !== 0) throw new Error(`${name} exited ${done.status}`);
    times[name].push(performance.now() - started);
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const base = median(times["node -e 0"]);
for (const [name, list] of Object.entries(times)) {
  const m = median(list);
  console.log(
    `startup: ${name}: median ${m.toFixed(0)} ms, worst ${Math.max(...list).toFixed(0)} ms` +
      (name === "node -e 0" ? "" : ` (${(m / base).toFixed(2)}× node -e 0)`),
  );
}
