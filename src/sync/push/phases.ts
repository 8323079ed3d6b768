import PQueue from "p-queue";
import type { PushOp } from "./plan.js";

/**
 * Run the plan's writes from index `from` up to `to`, phase by phase (course creates, chapter
 * creates, updates, chapter deletes, course deletes: each phase may need the one before it
 * done). Within a phase updates and deletes run side by side, up to `concurrency` at once.
 *
 * Chapter creates run in lanes, one lane per course, up to `concurrency` lanes at once: within
 * a lane one create at a time, in plan (ordinal) order, so a site that places records by the
 * order they arrive keeps the file order; and a create whose answer was lost is looked for by
 * its fields within its course, which no create in flight in another course can match.
 * Any other phase that creates (course creates, the updates of --force, which may create again
 * a record the site deleted) goes one write at a time, in order.
 */
export async function runInPhases(
  ops: readonly PushOp[],
  from: number,
  to: number,
  concurrency: number,
  creates: (op: PushOp) => boolean,
  write: (op: PushOp, index: number) => Promise<void>,
): Promise<void> {
  const phaseOf = (op: PushOp) => (op.type === "update" ? "update" : `${op.type} ${op.kind}`);
  for (let start = from; start < to; ) {
    const phase = phaseOf(ops[start]!);
    let end = start;
    while (end < to && phaseOf(ops[end]!) === phase) end++;
    await runPhase(lanesOf(ops, start, end, creates), concurrency, write);
    start = end;
  }
}

/** The writes of one phase as lanes: each lane's writes go in order, lanes side by side. */
function lanesOf(
  ops: readonly PushOp[],
  start: number,
  end: number,
  creates: (op: PushOp) => boolean,
): Array<Array<{ op: PushOp; index: number }>> {
  const writes = ops.slice(start, end).map((op, i) => ({ op, index: start + i }));
  if (!writes.some(({ op }) => creates(op))) return writes.map((w) => [w]);
  if (!writes.every(({ op }) => op.type === "create" && op.kind === "chapter")) return [writes];
  const lanes = new Map<string, Array<{ op: PushOp; index: number }>>();
  for (const w of writes) {
    const course = w.op.type === "create" && w.op.kind === "chapter" ? w.op.courseKey : "";
    const lane = lanes.get(course) ?? [];
    if (lane.length === 0) lanes.set(course, lane);
    lane.push(w);
  }
  return [...lanes.values()];
}

async function runPhase(
  lanes: Array<Array<{ op: PushOp; index: number }>>,
  concurrency: number,
  write: (op: PushOp, index: number) => Promise<void>,
): Promise<void> {
  const queue = new PQueue({ concurrency });
  // Every write of the phase settles before an error (a bug) goes up: none is left running.
  const settled = await Promise.allSettled(
    lanes.map((lane) =>
      queue.add(async () => {
        for (const { op, index } of lane) await write(op, index);
      }),
    ),
  );
  for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
}
