import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import lockfile from "proper-lockfile";
import { UserError } from "../errors.js";
import { processRunning } from "../util/process.js";
import { statePaths } from "./snapshot.js";

/** Who holds a tree's lock, as written beside it. */
interface Holder {
  pid: number;
  host: string;
  command: string;
  since: string;
}

/**
 * Take the tree's lock for one site (proper-lockfile: a lock folder kept fresh while we run,
 * stale after 10 s without updates). A holder that died on this machine (kill -9) is noticed
 * at once by its pid. Returns the release function.
 */
export async function acquireLock(root: string, site: string, command: string): Promise<() => Promise<void>> {
  const paths = statePaths(root, site);
  await mkdir(paths.dir, { recursive: true });
  const infoFile = `${paths.lock}.holder`;
  const options = { lockfilePath: paths.lock, realpath: false, stale: 10_000, update: 2_000, retries: 0 };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(paths.dir, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    const holder = await readHolder(infoFile);
    if (holder && holder.host === hostname() && !processRunning(holder.pid)) {
      await rm(paths.lock, { recursive: true, force: true });
      release = await lockfile.lock(paths.dir, options).catch((again: unknown) => {
        throw lockedError(paths.lock, holder, again);
      });
    } else {
      throw lockedError(paths.lock, holder, error);
    }
  }
  const holder: Holder = { pid: process.pid, host: hostname(), command, since: new Date().toISOString() };
  await writeFile(infoFile, `${JSON.stringify(holder)}\n`);
  return async () => {
    await rm(infoFile, { force: true });
    await release();
  };
}

async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as Holder;
  } catch {
    return undefined;
  }
}

function lockedError(lock: string, holder: Holder | undefined, cause: unknown): UserError {
  const who = holder
    ? `coursesync ${holder.command} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`
    : "another coursesync process";
  return new UserError(`the tree is busy: ${who} holds ${lock}`, {
    hint: "Wait for it to finish. If no such process runs, the lock goes stale by itself within 10 seconds.",
    cause,
  });
}
