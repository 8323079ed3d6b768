/** Runs `fn` once after `ms` milliseconds; returns what cancels it (a no-op once it has run). */
export type SetTimer = (fn: () => void, ms: number) => () => void;

/** Node's timers: the default of every SetTimer seam. */
export const realSetTimer: SetTimer = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};
