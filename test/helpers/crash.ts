import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { vi } from "vitest";
import type { StateDump } from "../../src/emulator/records.js";
import { Journal, type JournalLine } from "../../src/sync/state/journal.js";

/**
 * Every file under `root` by relative path, read synchronously so no other step of the run
 * under test interleaves (fs calls already on threads may finish meanwhile: a temp file gone
 * by the time it is read is left out, as a rename just after the instant would have it).
 */
export function treeNow(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of readdirSync(root, { recursive: true }) as string[]) {
    try {
      out[rel.split(path.sep).join("/")] = readFileSync(path.join(root, rel), "utf8");
    } catch (error) {
      if (!["EISDIR", "ENOENT"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    }
  }
  return out;
}

/** The files a user sees (not the state folder), sorted by path. */
export function userFiles(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files)
      .filter(([rel]) => !rel.startsWith(".coursesync/"))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** The pid of a process that has ended, as a killed run's is. */
export const DEAD_PID = spawnSync(process.execPath, ["-e", ""]).pid;

/**
 * Put a tree back as a kill left it: exactly these files. The lock is not carried over (its
 * holder, this process, is alive, where a killed run's is not), and temp files get the pid of
 * a process that has ended.
 */
export function restoreTree(root: string, files: Record<string, string>): void {
  for (const entry of readdirSync(root)) rmSync(path.join(root, entry), { recursive: true, force: true });
  for (const [rel, text] of Object.entries(files)) {
    if (rel.includes(".lock")) continue;
    const full = path.join(root, ...rel.replace(/\.\d+(\.\d+\.tmp)$/, `.${DEAD_PID}$1`).split("/"));
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}

/** The tree and the site as a kill at one instant would leave them. */
export interface CrashPoint {
  where: string;
  files: Record<string, string>;
  site: StateDump;
}

/**
 * Record the states a push passes through from now on: just before and just after each
 * journal line (a line before a write's answer, a write the site applied but the journal does
 * not yet hold, a file settled or not yet settled), and just before the journal is removed
 * (the snapshot saved, the journal still there). Undo with `vi.restoreAllMocks()`.
 */
export function captureCrashPoints(root: string, site: () => StateDump): CrashPoint[] {
  const points: CrashPoint[] = [];
  const capture = (where: string) => points.push({ where, files: treeNow(root), site: site() });
  const append = Journal.prototype.append;
  vi.spyOn(Journal.prototype, "append").mockImplementation(async function (this: Journal, line: JournalLine) {
    const name = `${line.t} ${line.t === "done" ? line.op : "create"} ${line.path}`;
    capture(`before ${name}`);
    await append.call(this, line);
    capture(`after ${name}`);
  });
  const clear = Journal.prototype.clear;
  vi.spyOn(Journal.prototype, "clear").mockImplementation(async function (this: Journal) {
    capture("before the journal is removed");
    await clear.call(this);
  });
  return points;
}
