import { realSetTimer, type SetTimer } from "./timer.js";

/** Whether a process of this machine with this pid is running (one we may not signal counts). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** How often `watchParent` looks whether the parent is still there. */
const PARENT_POLL_MS = 1_000;

/**
 * Call `onGone` once the process that started this one is gone: this one was then handed to
 * another parent (init, or a subreaper), so its parent pid changed. Polls with `setTimer`;
 * returns what stops it. A process started by init itself is never taken for an orphan.
 */
export function watchParent(
  onGone: () => void,
  options: { ppid?: () => number; setTimer?: SetTimer; everyMs?: number } = {},
): () => void {
  const ppid = options.ppid ?? (() => process.ppid);
  const setTimer = options.setTimer ?? realSetTimer;
  const first = ppid();
  let cancel = () => {};
  let stopped = false;
  const look = () => {
    if (stopped) return;
    if (ppid() !== first) {
      stopped = true;
      onGone();
      return;
    }
    cancel = setTimer(look, options.everyMs ?? PARENT_POLL_MS);
  };
  cancel = setTimer(look, options.everyMs ?? PARENT_POLL_MS);
  return () => {
    stopped = true;
    cancel();
  };
}
