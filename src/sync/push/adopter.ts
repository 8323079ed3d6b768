import type { Resource, WireRecord } from "../../api/wire.js";
import { ExitCode, UserError } from "../../errors.js";
import type { Kind } from "../reconcile.js";
import type { Intent } from "../state/journal.js";
import { type CreateMatch, createdCandidates } from "../state/recovery.js";
import type { Snapshot } from "../state/snapshot-model.js";
import { RESOURCE } from "./check.js";
import type { CreateFound } from "./decide.js";
import type { PushClient } from "./options.js";
import type { CreateOp } from "./plan.js";

// The look-ups of adoption: what the site holds that a create may already have made (a lost
// answer, an earlier run whose ids never came back). What to do with it is decideCreate's.

/** Finds a record a lost POST may have created, so it is adopted instead of created twice. */
export class Adopter {
  private lists = new Map<Resource, WireRecord[]>();
  private taken = new Set<string>();

  constructor(
    private readonly client: PushClient,
    private readonly snapshot: Snapshot,
    /** Those creates by key, with the fields they sent. */
    readonly intents: ReadonlyMap<string, Intent> = new Map(),
    /** What a site may store otherwise than sent (re-serialised content). */
    private readonly match: CreateMatch = {},
  ) {}

  /**
   * A record on the site that matches the fields sent and that no sync knows yet. Two that fit
   * equally well stop the push for this file (exit 3): taking either could keep a duplicate.
   */
  async find(
    kind: Kind,
    fields: Record<string, unknown>,
    fresh: boolean,
    where?: string,
    /** This run or the journal sent it: it may be older than the snapshot's newest record. */
    sent = false,
  ): Promise<WireRecord | undefined> {
    const resource = RESOURCE[kind];
    if (fresh || !this.lists.has(resource))
      this.lists.set(resource, (await this.client.listAll(resource)).records);
    const listed = this.lists.get(resource)!;
    const found = createdCandidates(listed, kind, fields, this.snapshot, this.taken, this.match, !sent);
    const [first, second] = found;
    if (first && second && where !== undefined && samePlace(first, second, fields)) {
      throw new AmbiguousCreate(kind, first.id, second.id);
    }
    if (first) this.taken.add(`${kind}:${first.id}`);
    return first;
  }

  /** A record this run made: no later look-up (a lost answer's, in any lane) may take it. */
  take(kind: Kind, id: number): void {
    this.taken.add(`${kind}:${id}`);
  }

  /**
   * Whether the site (as last listed) holds any record of this kind, in this course for a
   * chapter, that no sync knows and none took: else no earlier version of a file can be found
   * there, and git's history of it is not read (a restore creates thousands).
   */
  mayHold(kind: Kind, fields: Record<string, unknown>): boolean {
    const known = kind === "course" ? this.snapshot.courses : this.snapshot.chapters;
    return (this.lists.get(RESOURCE[kind]) ?? []).some(
      (r) =>
        !known[r.id] &&
        !this.taken.has(`${kind}:${r.id}`) &&
        (kind === "course" || Number(r.course_id) === Number(fields.course_id)),
    );
  }
}

/**
 * Two records on the site that a new file could have been created as by an earlier run: the
 * file is held (a conflict, exit 3), nothing is created for it.
 */
export class AmbiguousCreate extends UserError {
  constructor(kind: Kind, a: number, b: number) {
    super(
      `the site holds two ${kind}s this file could have been created as by an earlier push, that no sync knows (${kind} ${a} and ${kind} ${b}); nothing was created for it: delete the duplicate on the site, or put the id of the right one in the file (id: ${a}), then push again`,
      { exitCode: ExitCode.stopped },
    );
  }
}

/** Whether two candidates fit a create as well as each other (the ordinal decides otherwise). */
function samePlace(a: WireRecord, b: WireRecord, fields: Record<string, unknown>): boolean {
  if (!("ordinal" in fields)) return true;
  const at = (r: WireRecord) => Number(r.ordinal) === Number(fields.ordinal);
  return at(a) === at(b);
}

/**
 * The create fields of earlier versions of a new file (as git holds them, newest first), with
 * the course the file is in now: what an earlier run may have created it from.
 */
export type EarlierFields = (
  op: CreateOp,
  fields: Record<string, unknown>,
) => Promise<Array<Record<string, unknown>>>;

/**
 * What the site holds for a would-be create: a record equal to its fields that no sync knows,
 * else the record an earlier run made for the file (by the journal's create, then by the
 * versions git holds). Read-only but for the adopter's list of records taken.
 */
export async function lookForCreate(
  op: CreateOp,
  fields: Record<string, unknown>,
  adopter: Adopter,
  earlierFields: EarlierFields | undefined,
): Promise<CreateFound> {
  const journaled = adopter.intents.has(op.key);
  const equal = await adopter.find(op.kind, fields, false, op.path);
  if (equal) return { equal, journaled };
  return { earlier: await earlierCreate(op, fields, adopter, earlierFields), journaled };
}

/** The record an earlier run made for a new file: by the journal's create, then by versions git holds. */
async function earlierCreate(
  op: CreateOp,
  fields: Record<string, unknown>,
  adopter: Adopter,
  earlierFields: EarlierFields | undefined,
): Promise<WireRecord | undefined> {
  const earlier = adopter.intents.get(op.key);
  if (earlier) {
    const sent = await adopter.find(op.kind, earlier.fields, false, op.path, true);
    if (sent) return sent;
  }
  if (!adopter.mayHold(op.kind, fields)) return undefined;
  for (const version of (await earlierFields?.(op, fields)) ?? []) {
    const found = await adopter.find(op.kind, version, false, op.path);
    if (found) return found;
  }
  return undefined;
}
