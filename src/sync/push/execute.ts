import { isCredentialsRefused, isTransient } from "../../api/errors.js";
import type { WireRecord } from "../../api/wire.js";
import { InterruptedError, UserError } from "../../errors.js";
import { removeTreeFile } from "../../tree/fs-ops.js";
import { conflictCopyPath, recordFilePath } from "../../tree/layout.js";
import type { Change } from "../model/report.js";
import type { Done, JournalLine } from "../state/journal.js";
import { AmbiguousCreate } from "./adopter.js";
import { type ApplyContext, apply } from "./apply-op.js";
import { followRecreatedCourses, listChapters, recheck } from "./check.js";
import type { Decision, Known } from "./decide.js";
import { dependenciesOf, heldWith } from "./hold.js";
import type { PushClient, PushResult } from "./options.js";
import { doneChange, failureText } from "./outcome.js";
import { runInPhases } from "./phases.js";
import type { PushOp, PushPlan } from "./plan.js";

// Executing a push's plan: its writes in a crash-safe order (creates, updates, chapter deletes,
// course deletes; see phases.ts), each re-read just before it is sent, applied (apply-op.ts)
// and reported in plan order.

/** What the writes of a plan need. */
export interface ExecuteInput {
  plan: PushPlan;
  known: Known;
  client: PushClient;
  ctx: ApplyContext;
  /** The decisions the checked plan made (by op key); each write re-reads its record otherwise. */
  decisions: Map<string, Decision>;
  /** What the journal confirmed of an earlier run. */
  earlier: readonly JournalLine[];
  /** How many writes are under way at once (see runInPhases). */
  concurrency: number;
  result: PushResult;
  /** Reports one change, in plan order. */
  report: (change: Change) => void;
}

/** The writes of one plan, run once; what they confirmed stays readable after an error (see commit). */
export class Execution {
  /** What the site confirmed: the journal's earlier lines, then this run's. */
  readonly done: JournalLine[];
  /** The writes all ran (each done, failed or skipped), without an error going up. */
  finished = false;
  /** Why no write starts any more (a failure, an interrupt). */
  private stopped: string | undefined;
  /** Writes held while the push ran (a conflict found just before the write): what waits on them is held too. */
  private readonly heldNow = new Map<string, Change>();
  /** Changes are reported in plan order, whatever order the writes end in. */
  private ordered: Array<Change | undefined>;
  private reported = 0;
  private chapters: Promise<WireRecord[]> | undefined;

  constructor(private readonly x: ExecuteInput) {
    this.done = x.earlier.filter((l) => l.t === "done");
    this.ordered = x.plan.ops.map(() => undefined);
  }

  /**
   * Run the plan's writes. Chapter creates go in lanes by course (in order within one); course
   * creates and the updates of --force (which may create again a record the site deleted) go
   * one at a time, in order.
   */
  async run(): Promise<void> {
    const { plan, known, concurrency } = this.x;
    const creates = (op: PushOp) => op.type === "create" || (known.force && op.type === "update");
    const write = (op: PushOp, index: number) => this.write(op, index);
    const deletes = plan.ops.findIndex((op) => op.type === "delete");
    const firstDelete = deletes === -1 ? plan.ops.length : deletes;
    await runInPhases(plan.ops, 0, firstDelete, concurrency, creates, write);
    // A course the site deleted, brought back by --force, takes the chapters of its folder along.
    const followers = this.stopped
      ? []
      : await followRecreatedCourses(plan.ops, this.x.decisions, known, this.x.client);
    // Not splice(at, 0, ...followers): a course can bring more chapters than a call takes arguments.
    plan.ops = [...plan.ops.slice(0, firstDelete), ...followers, ...plan.ops.slice(firstDelete)];
    this.ordered = [
      ...this.ordered.slice(0, firstDelete),
      ...followers.map(() => undefined),
      ...this.ordered.slice(firstDelete),
    ];
    await runInPhases(plan.ops, firstDelete, plan.ops.length, concurrency, creates, write);
    this.finished = true;
  }

  private reportAt(index: number, change: Change): void {
    this.ordered[index] = change;
    for (
      ;
      this.reported < this.ordered.length && this.ordered[this.reported] !== undefined;
      this.reported++
    ) {
      this.x.report(this.ordered[this.reported]!);
    }
  }

  /** Read once the chapter writes are done: the chapters this push deleted are gone by then. */
  private chaptersNow(): Promise<WireRecord[]> {
    this.chapters ??= listChapters(this.x.client, this.x.known, deletedChapters(this.done));
    return this.chapters;
  }

  /** One write, held when a write it depends on is held, skipped once the run stopped. */
  private async write(op: PushOp, index: number): Promise<void> {
    const by = dependenciesOf(op, this.x.plan.ops, this.x.known.snapshot).find((d) =>
      this.heldNow.has(d.key),
    );
    if (by) {
      const change = heldWith(op, this.heldNow.get(by.key)!);
      this.heldNow.set(op.key, change);
      return this.reportAt(index, change);
    }
    if (this.stopped) return this.notApplied(op, index);
    try {
      await this.send(op, index);
    } catch (error) {
      this.failed(op, index, error);
    }
  }

  private notApplied(op: PushOp, index: number): void {
    const id = op.type === "create" ? undefined : op.id;
    this.reportAt(index, {
      kind: op.kind,
      id,
      path: op.path,
      outcome: "skipped",
      reason: `not applied: ${this.stopped}`,
    });
  }

  /** Re-read (unless the checked plan decided), apply, settle a conflict copy, report. */
  private async send(op: PushOp, index: number): Promise<void> {
    const { decisions, ctx } = this.x;
    let decision = decisions.get(op.key);
    if (!decision && op.type !== "create") {
      // Re-read just before the write: another writer's edit can slip in for one round trip only.
      const checked = await recheck(op, this.x.known, this.x.client, () => this.chaptersNow());
      if ("conflict" in checked) {
        this.heldNow.set(op.key, checked.conflict);
        return this.reportAt(index, checked.conflict);
      }
      decision = checked.decision;
      decisions.set(op.key, decision);
      if (this.stopped) return this.notApplied(op, index);
    }
    const line = await apply(op, decision, ctx);
    if (!line) {
      const id = op.type === "create" ? undefined : op.id;
      const reason = "the site already had it";
      return this.reportAt(index, { kind: op.kind, id, path: op.path, outcome: "unchanged", reason });
    }
    this.done.push(line);
    // The site now has this side: a conflict copy pull left beside the file is settled.
    await removeTreeFile(ctx.root, conflictCopyPath(recordFilePath(op.kind, op.path)), ctx.fs);
    const notes = { adopted: ctx.adopted.get(op.key), normalised: ctx.normalised.get(op.key) };
    this.reportAt(index, doneChange(op, line, decision, notes));
  }

  /** A write that threw: an interrupt or a failure stops the run; an ambiguous create is held. */
  private failed(op: PushOp, index: number, error: unknown): void {
    const { result } = this.x;
    const id = op.type === "create" ? undefined : op.id;
    if (error instanceof InterruptedError) {
      // Asked to stop: writes in flight finish, none starts; the next push sends the rest.
      this.stopped ??= "interrupted";
      result.interrupted ??= error;
      this.notApplied(op, index);
      return;
    }
    if (error instanceof AmbiguousCreate) {
      // Held as a conflict: what goes into this new course waits with it (see push/hold.ts).
      const conflict: Change = {
        kind: op.kind,
        id,
        path: op.path,
        outcome: "conflict",
        reason: error.message,
        resolution: "none",
        resolve:
          "delete the duplicate on the site, or put the id of the right one in the file, then push again",
      };
      this.heldNow.set(op.key, conflict);
      this.reportAt(index, conflict);
      return;
    }
    if (!(error instanceof UserError)) throw error;
    // No write starts after this one; those already sent finish and are reported.
    this.stopped ??= "an earlier write failed";
    if (isTransient(error) || isCredentialsRefused(error)) result.transient ??= error;
    this.reportAt(index, {
      kind: op.kind,
      id,
      path: op.path,
      outcome: "failed",
      reason: failureText(error, recordFilePath(op.kind, op.path)),
    });
  }
}

/** The ids of the chapters that journal lines confirm deleted. */
function deletedChapters(lines: readonly JournalLine[]): Set<number> {
  const deletes = lines.filter((l): l is Done => l.t === "done" && l.op === "delete" && l.kind === "chapter");
  return new Set(deletes.map((l) => l.id));
}
