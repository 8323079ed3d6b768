/**
 * A long computation written as a generator that yields between its steps (an item of a loop),
 * its return value the result. The same steps run at once (`runSteps`, for a caller that needs
 * the result now) or in slices of the event loop (`runStepsSliced`), so that a plan of
 * thousands of records does not keep the requests and the threads' messages waiting.
 */
export type Steps<T> = Generator<void, T, undefined>;

/** Run every step now and return the result. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** How runStepsSliced measures a slice and gives the event loop its turn. */
export interface Slicing {
  /** The longest a slice runs before it gives way (ms). @default 20 */
  sliceMs?: number;
  /** The clock, in ms. @default performance.now */
  now?: () => number;
  /** Gives the event loop a turn. @default a setImmediate */
  pause?: () => Promise<void>;
}

const SLICE_MS = 20;

/** Run the steps in slices of about `sliceMs` (and a few steps), giving the event loop a turn between them. */
export async function runStepsSliced<T>(steps: Steps<T>, slicing: Slicing = {}): Promise<T> {
  const turn = giveWay(slicing);
  for (let n = 1; ; n++) {
    const step = steps.next();
    if (step.done) return step.value;
    // The clock is read every few steps: a step is a record's worth of work, a reading of
    // the clock not much less.
    if (n % CLOCK_EVERY === 0) await turn();
  }
}

/** Steps between readings of the clock. */
const CLOCK_EVERY = 8;

/** A turn of the event loop: timers, I/O and messages that waited run first. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * For a long loop of awaits that may all settle at once (texts staged in memory): a check to
 * await between items, which gives the event loop a turn once `sliceMs` went by since the last.
 */
export function giveWay(slicing: Slicing = {}): () => Promise<void> | undefined {
  const sliceMs = slicing.sliceMs ?? SLICE_MS;
  const now = slicing.now ?? (() => performance.now());
  const pause = slicing.pause ?? nextTurn;
  let started = now();
  return () => {
    if (now() - started < sliceMs) return undefined;
    return pause().then(() => {
      started = now();
    });
  };
}
