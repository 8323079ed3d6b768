import PQueue from "p-queue";
import type { PushOp } from "./plan.js";

/**
 * Run the plan's writes from index `from` up to `to`, phase by phase (course creates, chapter
 * creates, updates, chapter deletes, course deletes: each phase may need the one before it
 * done). Within a phase updates and deletes run side by side, up to `concurrency` at once. A
 * phase that creates goes one write at a time, in order: a create whose answer was lost is
 * found again by its fields, which another create in flight could match too, and a chapter
 * created again needs its course created again first.
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
    const oneAtATime = ops.slice(start, end).some(creates);
    const queue = new PQueue({ concurrency: oneAtATime ? 1 : concurrency });
    // Every write of the phase settles before an error (a bug) goes up: none is left running.
    const settled = await Promise.allSettled(
      ops.slice(start, end).map((op, i) => queue.add(() => write(op, start + i))),
    );
    for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
    start = end;
  }
}
