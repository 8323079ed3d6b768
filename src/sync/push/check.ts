import type { WireRecord } from "../../api/wire.js";
import { UserError } from "../../errors.js";
import { guardEmptyListing } from "../guards.js";
import type { Change } from "../model/report.js";
import {
  type Checked,
  courseDeleteConflict,
  type Decision,
  decideWrite,
  type Known,
  type TargetOp,
} from "./decide.js";
import { holdBack } from "./hold.js";
import type { PushClient } from "./options.js";
import { showSiteValues } from "./overwrites.js";
import type { PushOp, PushPlan } from "./plan.js";

// Reading the site for push's writes: every record before the question (the checked plan), and
// each once more just before its own write, so another writer's edit can only slip in during
// one round trip (the API has no conditional update).

/** The API's resource for each kind of record. */
export const RESOURCE = { course: "courses", chapter: "chapters" } as const;

/** The part of the API client the re-reads use. */
export type ReadClient = Pick<PushClient, "get" | "listAll">;

/**
 * Every chapter the site lists now. An empty listing while the site should still hold chapters
 * the snapshot knows (all but `gone`, those this push deleted) is an error, never "everything
 * was deleted": it would hide the chapters a course delete takes along.
 */
export async function listChapters(
  client: ReadClient,
  known: Known,
  gone: ReadonlySet<number> = new Set(),
): Promise<WireRecord[]> {
  const { records } = await client.listAll("chapters");
  const held = Object.keys(known.snapshot.chapters).filter((id) => !gone.has(Number(id))).length;
  guardEmptyListing(
    "chapters",
    records.length,
    { count: held, said: `${held}` },
    gone.size > 0 ? "no course was deleted" : "nothing was sent",
    "An empty listing is not taken as 'everything was deleted'. Check the site and the account, then run `coursesync pull` to see the site as it is.",
  );
  return records;
}

/** The ids of the chapters the writes delete or move to another course. */
function chaptersLeaving(ops: readonly PushOp[]): Set<number> {
  return new Set(
    ops
      .filter(
        (op): op is TargetOp =>
          op.type === "delete" || (op.type === "update" && op.fields.includes("course_id")),
      )
      .filter((op) => op.kind === "chapter")
      .map((op) => op.id),
  );
}

/** What re-reading the site before the question found: conflicts, and the site's record per write. */
export interface CheckedPlan {
  conflicts: Change[];
  /** The decision for each write (by op key) that met no conflict. */
  decisions: Map<string, Decision>;
}

/**
 * Before the question (and for --dry-run), like `terraform plan`: re-read every record the plan
 * writes to (one GET each; a push that deletes a course lists the chapters once) and decide,
 * so conflicts are known before anything is asked or sent. Each write still re-reads its own
 * record just before it is sent (see `recheck`): the plan may wait on a person.
 */
export async function checkPlan(
  ops: readonly PushOp[],
  known: Known,
  client: ReadClient,
): Promise<CheckedPlan> {
  const targets = ops.filter((op): op is TargetOp => op.type !== "create");
  const deletesCourse = targets.some((op) => op.kind === "course" && op.type === "delete");
  const listed = deletesCourse ? await listChapters(client, known) : [];
  const leaving = chaptersLeaving(ops);
  const checked = await Promise.all(
    targets.map(async (op) => {
      const record = await client.get(RESOURCE[op.kind], op.id);
      const decided = decideWrite(op, record, known);
      const conflict =
        "conflict" in decided ? decided.conflict : courseDeleteConflict(op, listed, leaving, known.force);
      return { op, decided, conflict };
    }),
  );
  const result: CheckedPlan = { conflicts: [], decisions: new Map() };
  for (const { op, decided, conflict } of checked) {
    if (conflict) result.conflicts.push(conflict);
    else if ("decision" in decided) result.decisions.set(op.key, decided.decision);
  }
  return result;
}

/**
 * Re-read one record just before its write (one GET) and decide what to send. A course delete
 * also looks at the chapters the site lists then (`chaptersNow`, shared by the course deletes
 * of a push, read once the chapter writes are done): one still in the course is a conflict.
 */
export async function recheck(
  op: TargetOp,
  known: Known,
  client: ReadClient,
  chaptersNow: () => Promise<WireRecord[]>,
): Promise<Checked> {
  const record = await client.get(RESOURCE[op.kind], op.id);
  const checked = decideWrite(op, record, known);
  if ("conflict" in checked || !record || op.kind !== "course" || op.type !== "delete") return checked;
  const conflict = courseDeleteConflict(op, await chaptersNow(), new Set(), known.force);
  return conflict ? { conflict } : checked;
}

/**
 * `push --force` creates again a course the site deleted: the chapters of its folder that the
 * plan leaves alone (unedited) and that the site deleted with it come back too, created again
 * in the new course, not only the edited ones. (A chapter the site still has is left as it is.)
 * Returns their writes (each an update whose decision, set in `decisions`, is to create again),
 * to run after the plan's updates.
 */
export async function followRecreatedCourses(
  ops: readonly PushOp[],
  decisions: Map<string, Decision>,
  known: Known,
  client: ReadClient,
): Promise<PushOp[]> {
  const recreated = new Set(
    ops.filter((op) => op.kind === "course" && decisions.get(op.key)?.recreate).map((op) => op.key),
  );
  if (recreated.size === 0) return [];
  const planned = new Set(ops.map((op) => op.key));
  const chapters = [...known.local.chapters.values()]
    .filter((c) => c.id !== undefined && recreated.has(c.courseKey) && !planned.has(c.key))
    .sort((a, b) => (a.file < b.file ? -1 : 1));
  const remote = await Promise.all(chapters.map((c) => client.get("chapters", c.id as number)));
  const gone = chapters.filter((_, i) => remote[i] === undefined);
  for (const chapter of gone)
    decisions.set(chapter.key, {
      kind: "chapter",
      fields: [],
      merged: chapter.values,
      remote: undefined,
      recreate: true,
    });
  return gone.map((chapter) => ({
    type: "update",
    kind: "chapter",
    id: chapter.id as number,
    key: chapter.key,
    path: chapter.file,
    fields: [],
    courseKey: chapter.courseKey,
    diff: [],
  }));
}

/**
 * Check a run's plan against the site before anything is asked: the writes in conflict, and
 * those waiting on them, are held (taken out of the plan and returned, to report); --force shows
 * the site's values it overwrites. A dry run that cannot read the site says why, unchecked.
 * (Each write still re-reads its own record just before it is sent: the plan may wait on a person.)
 */
export async function checkRun(
  plan: PushPlan,
  known: Known,
  client: ReadClient,
  dryRun: boolean,
): Promise<{ held: Change[]; unchecked?: string }> {
  let early: Change[] = [];
  let unchecked: string | undefined;
  try {
    const checked = await checkPlan(plan.ops, known, client);
    early = checked.conflicts;
    showSiteValues(plan, checked.decisions, known);
  } catch (error) {
    if (!(dryRun && error instanceof UserError)) throw error;
    unchecked = error.message;
  }
  const held = holdBack(plan, early, known.snapshot);
  return { held, ...(unchecked === undefined ? {} : { unchecked }) };
}
