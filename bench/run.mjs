// npm run bench [-- case...]: the performance figures the issues ask for, measured against
// the built-in emulator over real HTTP on 127.0.0.1. Cases: list, pull, push, watch, markdown,
// merge, check, politeness, startup; and, only when named (each takes minutes), restore,
// pull-scale (also named scale) and preview.
import { spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ApiClient } from "../dist/api/client.js";
import { startEmulator } from "../dist/emulator/server.js";
import { benchFolder, cli } from "./cli.mjs";
import { seedLargeSite } from "./seed.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const wanted = process.argv.slice(2);
const run = (name) => wanted.length === 0 || wanted.includes(name);

function countRequests(emulator, predicate = () => true) {
  return emulator.state.requests.filter(predicate).length;
}

function treeStats(dir) {
  let files = 0;
  let newestMs = 0;
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      const s = statSync(full);
      if (s.isDirectory()) walk(full);
      else {
        files++;
        newestMs = Math.max(newestMs, s.mtimeMs);
      }
    }
  };
  walk(dir);
  return { files, newestMs };
}

if (run("list")) {
  // Issue 2: list 40 pages at 50 ms latency with concurrency 4: about 10 round trips, not 40.
  const emulator = await startEmulator({ seedDir: null, pageSize: 25, latencyMs: 50 });
  seedLargeSite(emulator.state, { courses: 1000, chapters: 0 });
  for (const concurrency of [4, 1]) {
    const client = new ApiClient({
      baseUrl: emulator.baseUrl,
      credentials: { email: "demo@example.com", password: "coursesync" },
      concurrency,
    });
    await client.login();
    const started = performance.now();
    const listing = await client.listAll("courses");
    const ms = performance.now() - started;
    console.log(
      `list (concurrency ${concurrency}): ${listing.records.length} courses in ${listing.pages} pages; ` +
        `${listing.requests} requests; ${ms.toFixed(0)} ms at 50 ms latency = ${(ms / 50).toFixed(1)} latencies`,
    );
    client.close();
  }
  await emulator.close();
}

if (run("pull")) {
  // Issue 35: first and second pull of 200 x 10 editor-style chapters and one of 1 MB at 50 ms
  // latency, each figure beside its bound, with a sequential pager in the same run (its own script).
  await import("./pull.mjs");
}

if (run("push")) {
  // Issue 4: a push of 50 edits on a 1,000-chapter site, rate-limited (requests_per_second 10)
  // and latency-bound (50 ms a request, no limit).
  await pushCase({ rate: 10, latencyMs: 0 }, "requests_per_second 10");
  await pushCase({ rate: null, latencyMs: 50 }, "50 ms latency, no rate limit");
}

async function pushCase(faults, label) {
  const emulator = await startEmulator({ seedDir: null, pageSize: 25 });
  seedLargeSite(emulator.state, { courses: 100, chapters: 10 });
  const { work, tree, env } = benchFolder();
  try {
    await cli(["init", tree, "--url", emulator.baseUrl], work, env);
    if (faults.rate) {
      const configFile = path.join(tree, "coursesync.yaml");
      writeFileSync(
        configFile,
        readFileSync(configFile, "utf8").replace(
          "# requests_per_second: 5",
          `requests_per_second: ${faults.rate}`,
        ),
      );
    }
    await cli(["pull"], tree, env);
    const files = readdirSync(path.join(tree, "courses"), { recursive: true })
      .filter((f) => String(f).endsWith(".md"))
      .sort()
      .slice(0, 50);
    for (const file of files) appendFileSync(path.join(tree, "courses", String(file)), "<p>An edit.</p>\n");
    emulator.faults.update({ rate: faults.rate, latencyMs: faults.latencyMs });
    emulator.state.clearRequests();
    const result = await cli(["push", "--yes"], tree, env);
    const log = emulator.state.requests;
    const writes = log
      .filter((r) => r.method === "PATCH" || r.method === "POST" || r.method === "DELETE")
      .filter((r) => !r.path.endsWith("/login"));
    const reads = log.filter((r) => r.method === "GET");
    const limited = log.filter((r) => r.status === 429).length;
    console.log(
      `push (50 edits, 1,000 chapters, ${label}): exit ${result.code}; ${(result.ms / 1000).toFixed(2)} s; ` +
        `${writes.length} writes + ${reads.length} reads (+${log.length - writes.length - reads.length} login); ${limited} answered 429`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
    await emulator.close();
  }
}

if (run("politeness")) {
  // Issue 14: a listing of 50 pages from a site allowing 5 requests a second (the emulator's
  // --rate 5; no cap of our own): how many 429s, and the time; then the same site sending
  // rate-limit headers (none expected), and a site whose tokens stop working every 5 requests.
  const cases = [
    { label: "rate 5/s, no headers", options: {} },
    { label: "rate 5/s, IETF RateLimit-* headers", options: { rateHeaders: "ietf" } },
    { label: "rate 5/s, X-RateLimit-* headers", options: { rateHeaders: "x" } },
    { label: "rate 5/s, tokens expire every 5 requests", options: { tokenUses: 5 } },
  ];
  for (const { label, options } of cases) {
    const emulator = await startEmulator({ seedDir: null, pageSize: 2, rate: 5, ...options });
    seedLargeSite(emulator.state, { courses: 100, chapters: 0 });
    const client = new ApiClient({
      baseUrl: emulator.baseUrl,
      credentials: { email: "demo@example.com", password: "coursesync" },
    });
    const started = performance.now();
    let outcome;
    try {
      const listing = await client.listAll("courses");
      outcome = `${listing.records.length} courses in ${listing.pages} pages`;
    } catch (error) {
      outcome = `failed: ${error.message}`;
    }
    const ms = performance.now() - started;
    const limited = countRequests(emulator, (r) => r.status === 429);
    console.log(
      `politeness (${label}): ${outcome}; ${countRequests(emulator)} requests, ${limited} answered 429, ` +
        `${client.stats.logins} logins; ${(ms / 1000).toFixed(2)} s`,
    );
    client.close();
    await emulator.close();
  }
}

/** A 200-course site pulled into a tree, with `coursesync watch` running on it. */
async function watchedSite(emulatorOptions) {
  const emulator = await startEmulator({ seedDir: null, pageSize: 25, ...emulatorOptions });
  seedLargeSite(emulator.state, { courses: 200, chapters: 10 });
  const { work, tree, env } = benchFolder();
  await cli(["init", tree, "--url", emulator.baseUrl], work, env);
  await cli(["pull"], tree, env);
  const watching = spawn(
    process.execPath,
    [path.join(root, "dist", "bin", "coursesync.js"), "watch", "--yes"],
    {
      cwd: tree,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise((resolve) => {
    let out = "";
    watching.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("watching")) resolve();
    });
  });
  const files = readdirSync(path.join(tree, "courses"), { recursive: true })
    .filter((f) => String(f).endsWith(".md"))
    .sort();
  return { emulator, work, tree, files, watching };
}

/** Edit `count` chapters on the site one after another; ms until each reached its file, sorted. */
async function siteEditArrivals(emulator, tree, files, count) {
  const arrivals = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(tree, "courses", String(files[i * 100 + 7]));
    const id = Number(/^id: (\d+)$/m.exec(readFileSync(file, "utf8"))[1]);
    const started = performance.now();
    emulator.state.edit("chapters", id, { content: `<p>site edit ${i}</p>` });
    while (!readFileSync(file, "utf8").includes(`site edit ${i}`))
      await new Promise((resolve) => setTimeout(resolve, 20));
    arrivals.push(performance.now() - started);
  }
  return arrivals.sort((a, b) => a - b);
}

if (run("watch")) {
  // Issue 6: save-to-PATCH latency over 20 saves, and CPU while idle on a 2,000-file tree.
  const { emulator, work, tree, files, watching } = await watchedSite({});
  const child = watching;
  try {
    const patches = () => emulator.state.requests.filter((r) => r.method === "PATCH").length;
    const latencies = [];
    for (let i = 0; i < 20; i++) {
      const before = patches();
      const started = performance.now();
      appendFileSync(path.join(tree, "courses", String(files[i * 50])), `<p>save ${i}</p>\n`);
      while (patches() === before) await new Promise((resolve) => setTimeout(resolve, 2));
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    latencies.sort((a, b) => a - b);
    const median = (latencies[9] + latencies[10]) / 2;
    console.log(
      `watch: save to PATCH received, 20 saves: median ${median.toFixed(0)} ms (min ${latencies[0].toFixed(0)}, max ${latencies[19].toFixed(0)}; 300 ms of it is the debounce)`,
    );
    // Issue 32: a site edit to its file at the default poll (10 s), over 5 edits.
    const arrivals = await siteEditArrivals(emulator, tree, files, 5);
    console.log(
      `watch: site edit to file, 5 edits at the default 10 s poll: median ${(arrivals[2] / 1000).toFixed(1)} s, worst ${(arrivals[4] / 1000).toFixed(1)} s`,
    );
    const ticks = () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ");
      return Number(fields[11]) + Number(fields[12]);
    };
    const seconds = Number(process.env.IDLE_SECONDS ?? 60);
    const t0 = ticks();
    const requestsBefore = emulator.state.requests.length;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const used = (ticks() - t0) / 100;
    const perMinute = ((emulator.state.requests.length - requestsBefore) * 60) / seconds;
    console.log(
      `watch: idle for ${seconds} s on ${files.length + 200} files: ${used.toFixed(2)} s of CPU (${((used / seconds) * 100).toFixed(2)}% of one core), ${perMinute.toFixed(1)} requests a minute (with events)`,
    );
  } finally {
    child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 300));
    rmSync(work, { recursive: true, force: true });
    await emulator.close();
  }
}

if (run("watch")) {
  // Issue 32, a site without events (GET /events answers 404): every poll pages the lists.
  const { emulator, work, tree, files, watching } = await watchedSite({ events: false });
  const child = watching;
  try {
    const arrivals = await siteEditArrivals(emulator, tree, files, 3);
    const seconds = Number(process.env.IDLE_SECONDS ?? 60);
    const requestsBefore = emulator.state.requests.length;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const perMinute = ((emulator.state.requests.length - requestsBefore) * 60) / seconds;
    console.log(
      `watch, no events: site edit to file, 3 edits at the default 10 s poll: median ${(arrivals[1] / 1000).toFixed(1)} s, ` +
        `worst ${(arrivals[2] / 1000).toFixed(1)} s; idle for ${seconds} s: ${perMinute.toFixed(1)} requests a minute ` +
        `(each poll pages ${Math.ceil(200 / 25) + Math.ceil(2000 / 25)} lists)`,
    );
  } finally {
    child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 300));
    rmSync(work, { recursive: true, force: true });
    await emulator.close();
  }
}

if (run("check")) {
  // Issue 12: `check` on a 20,000-file tree (2,000 courses x 9 chapters, Markdown bodies): clean
  // with the committed snapshot, with 50 files edited, and with no snapshot (every body rendered).
  const emulator = await startEmulator({ seedDir: null, pageSize: 100 });
  seedLargeSite(emulator.state, { courses: 2000, chapters: 9 });
  const { work, tree, env } = benchFolder();
  try {
    await cli(["init", tree, "--url", emulator.baseUrl], work, env);
    await cli(["pull"], tree, env);
    const { files } = treeStats(path.join(tree, "courses"));
    const report = (label, result) =>
      console.log(
        `check (${files} files, ${label}): exit ${result.code}; ${(result.ms / 1000).toFixed(2)} s; ` +
          `${countRequests(emulator)} requests; peak RSS ${(result.maxRssKb / 1024).toFixed(0)} MB`,
      );
    emulator.state.clearRequests();
    report("clean, with the snapshot", await cli(["check"], tree, env));
    const chapters = readdirSync(path.join(tree, "courses"), { recursive: true })
      .filter((f) => String(f).endsWith(".md"))
      .sort()
      .slice(0, 50);
    for (const file of chapters) appendFileSync(path.join(tree, "courses", String(file)), "\nAn edit.\n");
    report("50 chapters edited", await cli(["check"], tree, env));
    rmSync(path.join(tree, ".coursesync"), { recursive: true, force: true });
    report("no snapshot: every value checked", await cli(["check"], tree, env));
  } finally {
    rmSync(work, { recursive: true, force: true });
    await emulator.close();
  }
}

if (run("markdown")) {
  // Issue 5: Markdown shares and the throughput of the pull-side body step (its own script).
  await import("./markdown.mjs");
}

if (run("startup")) {
  // Issue 34: `coursesync --version` and `--help` beside `node -e 0` (its own script).
  await import("./startup.mjs");
}

if (run("merge")) {
  // Issue 11: the share of chapters whose bodies merge, edited on both sides (its own script);
  // issue 28: the same with the local edit spelled by hand, before and after.
  await import("./merge-corpus.mjs");
  await import("./merge-spellings.mjs");
}

if (wanted.includes("restore")) {
  // Issues 13 and 30: `coursesync restore` of 200 courses x 10 chapters (2,200 records) into an
  // empty site at 50 ms latency, allowing 10 requests a second, then no limit. Each figure
  // beside its bounds: records / rate, and records x latency / concurrency. Reported, not asserted.
  for (const rate of [10, undefined]) {
    const source = await startEmulator({ seedDir: null, pageSize: 25 });
    seedLargeSite(source.state, { courses: 200, chapters: 10 });
    const target = await startEmulator({
      seedDir: null,
      pageSize: 25,
      latencyMs: 50,
      ...(rate ? { rate } : {}),
    });
    const { work, tree, env } = benchFolder();
    try {
      await cli(["init", tree, "--url", source.baseUrl], work, env);
      const config = path.join(tree, "coursesync.yaml");
      const text = readFileSync(config, "utf8").replace(
        /^sites:\n/m,
        `sites:\n  restored:\n    url: ${target.baseUrl}\n`,
      );
      writeFileSync(config, text);
      const pulled = await cli(["pull"], tree, env);
      if (pulled.code !== 0) throw new Error(`pull exited ${pulled.code}`);
      target.state.clearRequests();
      const restored = await cli(["restore", "--site", "restored", "--yes"], tree, env);
      const dump = target.state.dump();
      const records = dump.courses.length + dump.chapters.length;
      const limited = countRequests(target, (r) => r.status === 429);
      const byRate = rate ? `${(records / rate).toFixed(0)} s` : "none";
      const byLatency = `${((records * 0.05) / 4).toFixed(0)} s`;
      console.log(
        `restore (2,200 records, 50 ms, site rate ${rate ? `${rate}/s` : "unlimited"}): exit ${restored.code}; ` +
          `${(restored.ms / 1000).toFixed(1)} s against bounds ${byRate} (rate) and ${byLatency} (latency, 4 at once); ` +
          `${records} records created; ${countRequests(target)} requests (${limited} answered 429); ` +
          `peak RSS ${(restored.maxRssKb / 1024).toFixed(0)} MB`,
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
      await source.close();
      await target.close();
    }
  }
}

if (wanted.includes("pull-scale") || wanted.includes("scale")) {
  // Issue 35 (and 14 before it): first and second pulls of 5,000 to 50,000 chapters, status
  // against git status, the bytes a one-chapter change rewrites (its own script).
  await import("./pull-scale.mjs");
}

if (wanted.includes("preview")) {
  // Issue 33: save to updated page on a 200-chapter course, and the first load of a
  // 50,000-chapter tree (its own script).
  await import("./preview.mjs");
}
