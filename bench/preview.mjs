// npm run bench -- preview (issue 33): `coursesync preview` run as the built command in a child
// process, measured at the HTTP level as its page script meets it (no browser):
// - a save of a chapter file to its page's live part answered with the new text, over 20 saves
//   on a 200-chapter course: the change event on GET /events, then `?fragment=live`, as the
//   script fetches it after the event;
// - the first load of the index and of one chapter page on a 50,000-chapter tree (5,000 courses
//   x 10 chapters, page size 100, no latency): from the process's start to the first byte and
//   to the whole page, the page's size, and the server's peak RSS.
// PREVIEW_COURSES=500 picks a smaller large tree; PREVIEW_CPU_PROF=<dir> runs the server with
// node --cpu-prof writing there.
import { spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startEmulator } from "../dist/emulator/server.js";
import { benchFolder, cli } from "./cli.mjs";
import { seedLargeSite } from "./seed.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** A site of `courses` x `chapters` pulled into a fresh tree. */
async function pulledTree(courses, chapters) {
  const emulator = await startEmulator({ seedDir: null, pageSize: 100 });
  seedLargeSite(emulator.state, { courses, chapters });
  const { work, tree, env } = benchFolder();
  await cli(["init", tree, "--url", emulator.baseUrl], work, env);
  const pulled = await cli(["pull"], tree, env);
  if (pulled.code !== 0) throw new Error(`pull exited ${pulled.code}`);
  await emulator.close();
  return { work, tree, env };
}

/** `coursesync preview --no-open --port 0` on a tree; resolves once its URL is printed. */
async function startServer(tree, env) {
  const prof = process.env.PREVIEW_CPU_PROF;
  const flags = prof ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(prof)] : [];
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...flags, path.join(root, "dist", "bin", "coursesync.js"), "preview", "--no-open", "--port", "0"],
    { cwd: tree, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n")[0];
      if (out.includes("\n")) resolve(line);
    });
    child.on("exit", (code) => reject(new Error(`preview exited ${code} before serving`)));
  });
  return { child, url, started };
}

async function stopServer(child) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGINT");
  await exited;
}

/** The peak resident memory of a running process, in MB (Linux's VmHWM). */
function peakRssMb(pid) {
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return kb / 1024;
}

/** GET a URL: ms to the first byte and to the whole body (from `since`), status and body. */
function get(url, since = performance.now()) {
  return new Promise((resolve, reject) => {
    let firstByte;
    const req = request(url, (response) => {
      const chunks = [];
      response.on("data", (chunk) => {
        firstByte ??= performance.now() - since;
        chunks.push(chunk);
      });
      response.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: response.statusCode,
          body: body.toString("utf8"),
          bytes: body.length,
          firstByte: firstByte ?? performance.now() - since,
          whole: performance.now() - since,
        });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/** GET /events as the page's EventSource does: calls `onChange` with each change's path. */
function subscribe(url, onChange) {
  return new Promise((resolve, reject) => {
    const req = request(new URL("/events", url), (response) => {
      let buffer = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        buffer += chunk;
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (/^event: change$/m.test(frame) && data) onChange(JSON.parse(data).path);
          if (frame.includes(": connected")) resolve(req);
          end = buffer.indexOf("\n\n");
        }
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const ms = (n) => `${n.toFixed(0)} ms`;

/** Told of each change event of the open stream (see `subscribe`). */
let waiting;

/**
 * Append a line to a chapter file; ms until its page's live part, fetched after each change
 * event naming the file (as the page script does), holds the new text.
 */
async function timeSave(url, tree, course, name, i) {
  const file = `courses/${course}/${name}`;
  const page = new URL(`/chapters/${course}/${name}?fragment=live`, url);
  const text = `Saved edit number ${i}.`;
  const started = performance.now();
  await new Promise((resolve, reject) => {
    waiting = (changed) => {
      if (changed !== file) return;
      get(page).then((answer) => {
        if (answer.body.includes(text)) resolve();
      }, reject);
    };
    appendFileSync(path.join(tree, file), `\n${text}\n`);
  });
  waiting = undefined;
  return performance.now() - started;
}

async function saveToPage() {
  const { work, tree, env } = await pulledTree(1, 200);
  const { child, url } = await startServer(tree, env);
  try {
    const course = readdirSync(path.join(tree, "courses"))[0];
    const files = readdirSync(path.join(tree, "courses", course))
      .filter((f) => f.endsWith(".md"))
      .sort();
    const events = await subscribe(url, (changed) => waiting?.(changed));
    const times = [];
    for (let i = 0; i < 20; i++) {
      times.push(await timeSave(url, tree, course, files[i * 10], i));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    events.destroy();
    times.sort((a, b) => a - b);
    console.log(
      `preview: save of a chapter file to its updated page, 200-chapter course, 20 saves, at the HTTP level ` +
        `(change event on /events, then ?fragment=live holding the new text; no browser): ` +
        `median ${ms((times[9] + times[10]) / 2)}, worst ${ms(times[19])} (best ${ms(times[0])})`,
    );
  } finally {
    await stopServer(child);
    rmSync(work, { recursive: true, force: true });
  }
}

async function firstLoad() {
  const courses = Number(process.env.PREVIEW_COURSES ?? 5000);
  const label = `${courses} courses x 10 chapters`;
  const pullStarted = performance.now();
  const { work, tree, env } = await pulledTree(courses, 10);
  const pullSeconds = (performance.now() - pullStarted) / 1000;
  const { child, url, started } = await startServer(tree, env);
  try {
    const served = performance.now() - started;
    const index = await get(url, started);
    const course = readdirSync(path.join(tree, "courses")).sort()[0];
    const chapter = readdirSync(path.join(tree, "courses", course))
      .filter((f) => f.endsWith(".md"))
      .sort()[0];
    const chapterStarted = performance.now();
    const page = await get(new URL(`/chapters/${course}/${chapter}`, url), chapterStarted);
    const again = await get(url);
    const events = await subscribe(url, (changed) => waiting?.(changed));
    const saves = [];
    for (let i = 0; i < 3; i++) {
      saves.push(await timeSave(url, tree, course, chapter, i));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    events.destroy();
    console.log(
      `preview (${label}, tree pulled in ${pullSeconds.toFixed(0)} s): first load of the index from the process's start: ` +
        `URL printed ${ms(served)}, first byte ${ms(index.firstByte)}, whole page ${ms(index.whole)} ` +
        `(status ${index.status}, ${(index.bytes / 1024).toFixed(0)} KB); the index again ${ms(again.whole)}; ` +
        `then one chapter page ${ms(page.whole)} (status ${page.status}, ${(page.bytes / 1024).toFixed(0)} KB); ` +
        `server peak RSS ${peakRssMb(child.pid).toFixed(0)} MB`,
    );
    console.log(
      `preview (${label}): save of a chapter file to its updated page, 3 saves, at the HTTP level: ` +
        `${saves.map(ms).join(", ")}`,
    );
  } finally {
    await stopServer(child);
    rmSync(work, { recursive: true, force: true });
  }
}

await saveToPage();
await firstLoad();
