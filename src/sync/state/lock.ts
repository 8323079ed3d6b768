import { mkdir, readFile, rm, stat } from "node:fs/promises";
import { hostname } from "node:os";
import lockfile from "proper-lockfile";
import { UserError } from "../../errors.js";
import { atomicWrite } from "../../tree/fs-ops.js";
import { guardedFs } from "../../tree/tree-fs.js";
import { processRunning } from "../../util/process.js";
import { statePaths } from "./paths.js";

/** Who holds a tree's lock, as written beside it. */
export interface Holder {
  pid: number;
  host: string;
  command: string;
  since: string;
}

/**
 * How young a lock without a holder file may be and still belong to a run between its two
 * steps (making the lock, then naming itself; or the reverse when it lets go). Older, it is a
 * run killed between them, and the lock is taken over at once.
 */
export const HOLDER_GRACE_MS = 2_000;

/**
 * Take the tree's lock for one site (proper-lockfile: a lock folder kept fresh while we run,
 * stale after 10 s without updates). A holder that died on this machine (kill -9) is noticed
 * at once by its pid, and a lock no holder ever named (killed between the two steps) once it
 * is older than a moment. `now` is the clock that moment is measured with. Returns the release
 * function.
 */
export async function acquireLock(
  root: string,
  site: string,
  command: string,
  now: () => number = Date.now,
): Promise<() => Promise<void>> {
  const paths = statePaths(root, site);
  await mkdir(paths.dir, { recursive: true });
  const infoFile = `${paths.lock}.holder`;
  const options = { lockfilePath: paths.lock, realpath: false, stale: 10_000, update: 2_000, retries: 0 };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(paths.lock, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    const holder = await readHolder(infoFile);
    if (!(await abandoned(paths.lock, holder, now))) throw lockedError(paths.lock, holder, error);
    await rm(paths.lock, { recursive: true, force: true });
    release = await lockfile.lock(paths.lock, options).catch((again: unknown) => {
      throw lockedError(paths.lock, holder, again);
    });
  }
  const holder: Holder = {
    pid: process.pid,
    host: hostname(),
    command,
    since: new Date(now()).toISOString(),
  };
  // Whole or not at all: a holder file cut short by a kill would name nobody.
  await atomicWrite(infoFile, `${JSON.stringify(holder)}\n`, { fs: guardedFs(root) });
  return async () => {
    await rm(infoFile, { force: true });
    await release();
  };
}

/**
 * Whether a lock was left by a run that is gone: its holder died on this machine, or it names
 * no holder and is older than the grace (a live run names itself right after taking it).
 */
async function abandoned(lock: string, holder: Holder | undefined, now: () => number): Promise<boolean> {
  if (holder) return holder.host === hostname() && !processRunning(holder.pid);
  const made = await stat(lock).catch(() => undefined);
  return made === undefined || now() - made.mtimeMs > HOLDER_GRACE_MS;
}

async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    const holder = JSON.parse(await readFile(file, "utf8")) as Partial<Holder> | null;
    return typeof holder?.pid === "number" && typeof holder.host === "string"
      ? (holder as Holder)
      : undefined;
  } catch {
    return undefined;
  }
}

function lockedError(lock: string, holder: Holder | undefined, cause: unknown): UserError {
  const who = holder
    ? `coursesync ${holder.command} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`
    : "another coursesync process, which has not named itself yet,";
  return new UserError(`the tree is busy: ${who} holds ${lock}`, {
    hint: holder
      ? "Wait for it to finish. If no such process runs, the lock goes stale by itself within 10 seconds."
      : `Wait for it to finish. If no coursesync runs, run the command again: a lock that names no holder is taken over after ${HOLDER_GRACE_MS / 1000} seconds.`,
    cause,
  });
}

/** Who holds a tree's lock for a site, read without taking it: for `coursesync doctor`. */
export type LockState =
  | { kind: "free" }
  /** Held by a process that runs (or runs elsewhere: `alive` is undefined for another host). */
  | { kind: "held"; holder: Holder | undefined; alive: boolean | undefined; lock: string }
  /** Left by a run that is gone: the next command takes it over. */
  | { kind: "abandoned"; holder: Holder | undefined; lock: string };

export async function lockState(
  root: string,
  site: string,
  now: () => number = Date.now,
): Promise<LockState> {
  const lock = statePaths(root, site).lock;
  const made = await stat(lock).catch(() => undefined);
  if (made === undefined) return { kind: "free" };
  const holder = await readHolder(`${lock}.holder`);
  if (await abandoned(lock, holder, now)) return { kind: "abandoned", holder, lock };
  const alive = holder === undefined || holder.host !== hostname() ? undefined : true;
  return { kind: "held", holder, alive, lock };
}
