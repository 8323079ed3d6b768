import { readFile } from "node:fs/promises";
import type { CreateOptions } from "../../api/client.js";
import { WriteOutcomeUnknownError } from "../../api/errors.js";
import type { WireRecord } from "../../api/wire.js";
import { UserError } from "../../errors.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { parseChapterFile } from "../../tree/chapter-file.js";
import { abs, writeTreeFile } from "../../tree/fs-ops.js";
import { recordFilePath } from "../../tree/layout.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import type { LocalChapter, LocalCourse, LocalView } from "../local/view.js";
import { type ChapterValues, isLiteral } from "../model/entities.js";
import type { Fields, Kind } from "../reconcile.js";
import type { ContentCache } from "../state/content-cache.js";
import type { SiteIds } from "../state/id-map.js";
import type { Done, Journal } from "../state/journal.js";
import type { Snapshot } from "../state/snapshot-model.js";
import { type Adopter, type EarlierFields, lookForCreate } from "./adopter.js";
import { createdAnswerProblem, normalisedFields } from "./answers.js";
import { RESOURCE } from "./check.js";
import { type CreateDecision, type Decision, type DecisionOf, decideCreate } from "./decide.js";
import type { PushClient } from "./options.js";
import { treeIdOfKey } from "./other-site.js";
import { type CreateOp, chapterInput, courseInput, type DeleteOp, type UpdateOp } from "./plan.js";
import { type Settled, settle } from "./settle.js";

// Applying one write of a push: the request, the journal line, and the file it settles.

export interface ApplyContext {
  /** Waits for a file an editor is saving (injected: tests use fake time). */
  sleep: (ms: number) => Promise<void>;
  client: PushClient;
  journal: Journal;
  local: LocalView;
  snapshot: Snapshot;
  createdCourse: Map<string, number>;
  /** Records this push created, as `kind:id`, with the file each went to. */
  created: Map<string, string>;
  adopter: Adopter;
  /**
   * Creates answered by adopting a record the site already had (by op key): equal to the file,
   * or made from an earlier version of it (then the edits since were sent to it).
   */
  adopted: Map<string, "equal" | "edited">;
  /** Creates the site stored otherwise than sent (by op key): taken as they are, and said. */
  normalised: Map<string, string[]>;
  root: string;
  fs: TreeFs;
  bodies: BodyCodec;
  cache: ContentCache;
  /** A site other than the default one: its id map (a create maps the file's id; no file is written). */
  siteIds?: SiteIds | undefined;
  /** What an earlier run may have created a new file from (see EarlierFields). */
  earlierFields?: EarlierFields | undefined;
}

/** Send one write (its decision made by re-reading the site), journal it, settle its file. */
export async function apply(
  op: CreateOp | UpdateOp | DeleteOp,
  decision: Decision | undefined,
  ctx: ApplyContext,
): Promise<Done | undefined> {
  if (op.type === "create") return applyCreate(op, ctx);
  if (op.type === "delete") return applyDelete(op, decision, ctx);
  return applyUpdate(updateTarget(op, decision, ctx.local), ctx);
}

/** A delete: sent unless the re-read found the record gone already. */
async function applyDelete(op: DeleteOp, decision: Decision | undefined, ctx: ApplyContext): Promise<Done> {
  if (!decision || decision.remote !== undefined) await ctx.client.remove(RESOURCE[op.kind], op.id);
  const line: Done = { t: "done", op: "delete", kind: op.kind, key: op.key, id: op.id, path: op.path };
  await ctx.journal.append(line);
  return line;
}

/** A create: adopted when the site holds it already (see decideCreate), else sent. */
async function applyCreate(op: CreateOp, ctx: ApplyContext): Promise<Done> {
  const fields = await createFields(op, ctx);
  const found = await lookForCreate(op, fields, ctx.adopter, ctx.earlierFields);
  const decided = decideCreate(found, fields);
  if (decided.type !== "create" && decided.adopted) ctx.adopted.set(op.key, decided.adopted);
  let record =
    decided.type === "create" ? await sendCreate(op, fields, ctx) : await adopt(op.kind, decided, ctx.client);
  let siteId: number | undefined;
  const treeId = treeIdOfKey(op.key);
  if (ctx.siteIds) {
    if (record.id >= 0) throw new Error(`${op.key}: the site answered with a record the map knows`);
    // The site's new record stands for the file's record: its tree id, mapped to the site's.
    // A file without an id keeps none: the record stays provisional (the negative of the
    // site's id) until the default site gives the file its id.
    if (treeId !== undefined) {
      siteId = -record.id;
      record = { ...record, id: treeId };
      ctx.siteIds.set(op.kind, treeId, siteId);
    }
  }
  if (op.kind === "course") ctx.createdCourse.set(op.key, record.id);
  ctx.created.set(`${op.kind}:${record.id}`, op.path);
  const settled = await settleWritten(op, record, op.values, true, ctx);
  const line: Done = {
    t: "done",
    op: "create",
    kind: op.kind,
    key: op.key,
    id: record.id,
    path: op.path,
    record,
    ...settledHashes(settled),
    from: settled.from,
    ...(settled.text === undefined || settled.byId ? {} : { text: settled.text }),
    ...(siteId === undefined ? {} : { site_id: siteId }),
  };
  // The journal learns of the record before the file gets its id: a file with an id the
  // snapshot does not know would be untracked after a crash, and its create never settled.
  await ctx.journal.append(line);
  if (settled.text !== undefined)
    await writeTreeFile(ctx.root, recordFilePath(op.kind, op.path), settled.text, ctx.fs);
  return line;
}

/** The fields a create sends (none null): a chapter's go into its course as created. */
async function createFields(op: CreateOp, ctx: ApplyContext): Promise<Record<string, unknown>> {
  let fields: Record<string, unknown>;
  if (op.kind === "course") fields = { ...courseInput(op.values, Object.keys(op.values)) };
  else {
    const courseId = ctx.createdCourse.get(op.courseKey);
    if (courseId === undefined)
      throw new UserError(`${op.path}: its course was not created, so neither is the chapter`);
    const values = { ...op.values, content: await contentText(op.values, op.path, ctx) };
    fields = { ...chapterInput(values, ["title", "ordinal", "content", "course_id"], courseId) };
  }
  for (const key of Object.keys(fields)) if (fields[key] === null) delete fields[key];
  return fields;
}

/** A record the site holds taken for a create: as it is, or with the file's edits since sent to it. */
async function adopt(
  kind: Kind,
  decided: Exclude<CreateDecision, { type: "create" }>,
  client: PushClient,
): Promise<WireRecord> {
  if (decided.type === "adopt") return decided.record;
  const resource = RESOURCE[kind];
  const { id } = decided.record;
  const record = (await client.update(resource, id, decided.since)) ?? (await client.get(resource, id));
  if (!record) throw new UserError(`PATCH ${resource}/${id}: the record is gone from the site`);
  return record;
}

/**
 * POST a create, journaled first (so a crash or a lost answer is looked for before the next
 * run creates it again); a lost answer is looked for before the create is sent again.
 */
async function sendCreate(
  op: CreateOp,
  fields: Record<string, unknown>,
  ctx: ApplyContext,
): Promise<WireRecord> {
  const { client, adopter } = ctx;
  const resource = RESOURCE[op.kind];
  const from = (op.kind === "course" ? ctx.local.courses : ctx.local.chapters).get(op.key)?.hash;
  await ctx.journal.append({
    t: "intent",
    op: "create",
    kind: op.kind,
    key: op.key,
    path: op.path,
    fields,
    ...(from ? { from } : {}),
  });
  const check = answerCheck(op.kind, op.path, fields, ctx);
  let record: WireRecord | undefined;
  try {
    record = await client.create(resource, fields, { check });
  } catch (error) {
    if (!(error instanceof WriteOutcomeUnknownError)) throw error;
    // The answer was lost: the record may exist. Look before sending it again.
    record =
      (await adopter.find(op.kind, fields, true, op.path, true)) ??
      (await client.create(resource, fields, { check }));
  }
  record ??= await adopter.find(op.kind, fields, true, op.path, true);
  if (!record)
    throw new UserError(`POST ${resource}: the site answered without the new record and it cannot be found`);
  adopter.take(op.kind, record.id);
  const stored = normalisedFields(op.kind, record, fields);
  if (stored.length > 0) ctx.normalised.set(op.key, stored);
  return record;
}

/** An update with the local file and the decision of its own kind. */
type UpdateTarget =
  | { kind: "course"; op: UpdateOp<"course">; mine: LocalCourse; decision?: DecisionOf<"course"> | undefined }
  | {
      kind: "chapter";
      op: UpdateOp<"chapter">;
      mine: LocalChapter;
      decision?: DecisionOf<"chapter"> | undefined;
    };

/** An update, its local file and its decision, checked to be of one kind. */
function updateTarget(op: UpdateOp, decision: Decision | undefined, local: LocalView): UpdateTarget {
  if (decision && decision.kind !== op.kind) throw new Error(`${op.key}: a decision of another kind`);
  if (op.kind === "course") {
    const mine = local.courses.get(op.key);
    if (!mine) throw new Error(`update of ${op.key} without a local file`);
    return { kind: "course", op, mine, decision: decision?.kind === "course" ? decision : undefined };
  }
  const mine = local.chapters.get(op.key);
  if (!mine) throw new Error(`update of ${op.key} without a local file`);
  return { kind: "chapter", op, mine, decision: decision?.kind === "chapter" ? decision : undefined };
}

/** The create that brings back a record the site deleted (--force), from the values it is to have. */
function recreateOp(target: UpdateTarget): CreateOp {
  const { op } = target;
  if (target.kind === "course")
    return {
      type: "create",
      kind: "course",
      key: op.key,
      path: op.path,
      values: target.decision?.merged ?? target.mine.values,
    };
  const values = target.decision?.merged ?? target.mine.values;
  return {
    type: "create",
    kind: "chapter",
    key: op.key,
    path: op.path,
    values,
    courseKey: op.courseKey ?? "",
  };
}

/** An update: the fields the re-read left to send (none: the site had them), then the file settled. */
async function applyUpdate(target: UpdateTarget, ctx: ApplyContext): Promise<Done | undefined> {
  const { op, decision } = target;
  // --force over a record deleted on the site: create it again from the local file.
  if (decision?.recreate) return applyCreate(recreateOp(target), ctx);
  const resource = RESOURCE[op.kind];
  const fields = decision ? decision.fields : op.fields;
  let record = decision?.remote;
  if (fields.length > 0) {
    const payload =
      target.kind === "course"
        ? { ...courseInput(target.decision?.merged ?? target.mine.values, fields) }
        : {
            ...chapterInput(
              target.decision?.merged ?? target.mine.values,
              fields,
              ctx.createdCourse.get(target.op.courseKey ?? ""),
            ),
          };
    record = (await ctx.client.update(resource, op.id, payload)) ?? (await ctx.client.get(resource, op.id));
    if (!record) throw new UserError(`PATCH ${resource}/${op.id}: the record is gone from the site`);
  }
  if (!record) return undefined;
  const settled = await settleWritten(op, record, target.mine.values, false, ctx);
  // The file first, then the journal: after a crash between them, the rerun re-reads the
  // record, finds the site already has the file's values, and settles it then.
  if (settled.text !== undefined)
    await writeTreeFile(ctx.root, recordFilePath(op.kind, op.path), settled.text, ctx.fs);
  const line: Done = {
    t: "done",
    op: "update",
    kind: op.kind,
    key: op.key,
    id: op.id,
    path: op.path,
    record,
    ...settledHashes(settled),
  };
  await ctx.journal.append(line);
  return line;
}

/** The hashes a journal line records of a settled file. */
function settledHashes(settled: Settled): Pick<Done, "hash" | "body" | "blob"> {
  return {
    hash: settled.hash,
    ...(settled.body === undefined ? {} : { body: settled.body }),
    ...(settled.blob === undefined ? {} : { blob: settled.blob }),
  };
}

/**
 * Settle a written record's file with the site's answer (see settle): the chapter's new content
 * goes into the content cache, the file is read as it is now. Writes no file.
 */
async function settleWritten(
  op: { kind: Kind; key: string; path: string },
  record: WireRecord,
  localValues: Fields,
  created: boolean,
  ctx: ApplyContext,
): Promise<Settled> {
  const file = recordFilePath(op.kind, op.path);
  if (op.kind === "chapter" && typeof record.content === "string") {
    // The last synced text of this chapter, for later comparisons and merges.
    await ctx.cache.put(record.content);
  }
  const scanned = (op.kind === "course" ? ctx.local.courses : ctx.local.chapters).get(op.key)?.hash;
  const text = await readSettling(abs(ctx.root, file), created, ctx.sleep);
  const otherSite = ctx.siteIds !== undefined;
  return settle({
    kind: op.kind,
    record,
    localValues,
    created,
    file,
    text,
    scanned,
    otherSite,
    bodies: ctx.bodies,
  });
}

/**
 * A file's text as push settles it; undefined when it is gone. A new record's file missing
 * for a moment (an editor that deletes and writes again to save) is waited for, up to a
 * second: its id must reach it.
 */
async function readSettling(
  file: string,
  created: boolean,
  sleep: (ms: number) => Promise<void>,
): Promise<string | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      if (!created || attempt >= 10) return undefined;
      await sleep(100);
    }
  }
}

/**
 * A chapter's content as text for a request. An unchanged body is known by its hash only:
 * its text is the last synced HTML from the cache, else what the file's body stands for.
 */
async function contentText(values: ChapterValues, where: string, ctx: ApplyContext): Promise<string> {
  if (typeof values.content === "string") return values.content;
  // Content that is not text is the site's own, never sent (a change of it is refused first).
  if (isLiteral(values.content)) throw new Error(`${where}: content that is not text is never sent`);
  const cached = await ctx.cache.get(values.content.sha256);
  if (cached !== undefined) return cached;
  const parsed = parseChapterFile(await readFile(abs(ctx.root, where), "utf8"), where);
  return ctx.bodies.toHtml(parsed.body, parsed.format, where);
}

/**
 * Refuses a create's answer that is not the record just sent (see createdAnswerProblem): the
 * file keeps its bytes, and the create's intent stays open in the journal, so the next run
 * looks for the record this POST may have made before creating one.
 */
function answerCheck(
  kind: Kind,
  where: string,
  sent: Record<string, unknown>,
  ctx: ApplyContext,
): CreateOptions["check"] {
  return (record) => {
    const problem = createdAnswerProblem(kind, record, sent, ctx);
    if (problem === undefined) return undefined;
    return {
      reason: `${problem}. Not taken as the new ${kind}: ${recordFilePath(kind, where)} is left as it is, and the next push looks for a ${kind} this POST may have made (and adopts it) before creating one`,
      hint: `Run \`coursesync push\` again, or \`coursesync pull\`; if the site keeps answering so, check what stands between coursesync and the site (a proxy, a cache).`,
    };
  };
}
