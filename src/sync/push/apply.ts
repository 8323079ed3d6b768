import { readFile } from "node:fs/promises";
import type { CreateOptions } from "../../api/client.js";
import { WriteOutcomeUnknownError } from "../../api/errors.js";
import type { Resource, WireRecord } from "../../api/wire.js";
import { ExitCode, UserError } from "../../errors.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { parseChapterFile } from "../../tree/chapter-file.js";
import { abs, writeTreeFile } from "../../tree/fs-ops.js";
import { recordFilePath } from "../../tree/layout.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import type { LocalView } from "../local/view.js";
import { type ChapterValues, type CourseValues, isLiteral } from "../model/entities.js";
import type { ContentCache } from "../state/content-cache.js";
import type { SiteIds } from "../state/id-map.js";
import type { Done, Intent, Journal } from "../state/journal.js";
import { type CreateMatch, createdCandidates, matchesCreate } from "../state/recovery.js";
import type { Snapshot } from "../state/snapshot.js";
import { createdAnswerProblem, normalisedFields } from "./answers.js";
import type { Decision } from "./decide.js";
import type { PushClient } from "./options.js";
import { treeIdOfKey } from "./other-site.js";
import { chapterInput, courseInput, type PushOp } from "./plan.js";
import { RESOURCE } from "./recheck.js";
import { settleFile } from "./settle.js";

// Applying one write of a push: the request, the journal line, and the file it settles.

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
    kind: "course" | "chapter",
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
  take(kind: "course" | "chapter", id: number): void {
    this.taken.add(`${kind}:${id}`);
  }

  /**
   * Whether the site (as last listed) holds any record of this kind, in this course for a
   * chapter, that no sync knows and none took: else no earlier version of a file can be found
   * there, and git's history of it is not read (a restore creates thousands).
   */
  mayHold(kind: "course" | "chapter", fields: Record<string, unknown>): boolean {
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
  constructor(kind: "course" | "chapter", a: number, b: number) {
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
  /**
   * The create fields of earlier versions of a new file (as git holds them, newest first),
   * with the course the file is in now: what an earlier run may have created it from.
   */
  earlierFields?:
    | ((op: CreateOp, fields: Record<string, unknown>) => Promise<Array<Record<string, unknown>>>)
    | undefined;
}

type CreateOp = Extract<PushOp, { type: "create" }>;

/** The record an earlier run made for a new file: by the journal's create, then by versions git holds. */
async function earlierCreate(
  op: CreateOp,
  fields: Record<string, unknown>,
  ctx: ApplyContext,
): Promise<WireRecord | undefined> {
  const earlier = ctx.adopter.intents.get(op.key);
  if (earlier) {
    const sent = await ctx.adopter.find(op.kind, earlier.fields, false, op.path, true);
    if (sent) return sent;
  }
  if (!ctx.adopter.mayHold(op.kind, fields)) return undefined;
  for (const version of (await ctx.earlierFields?.(op, fields)) ?? []) {
    const found = await ctx.adopter.find(op.kind, version, false, op.path);
    if (found) return found;
  }
  return undefined;
}

export async function apply(
  op: PushOp,
  decision: Decision | undefined,
  ctx: ApplyContext,
): Promise<Done | undefined> {
  const { client, journal } = ctx;
  const resource = RESOURCE[op.kind];
  if (op.type === "create") {
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
    // A record the site has that no sync knows, equal to this one: made by an earlier run whose
    // ids never reached this clone (CI that did not commit them back). Adopted, not made twice.
    let record = await ctx.adopter.find(op.kind, fields, false, op.path);
    if (record && !ctx.adopter.intents.has(op.key)) ctx.adopted.set(op.key, "equal");
    if (!record) {
      // Made by an earlier run from the file as it was then (the journal's create, or a version
      // of the file git holds): adopted, and what the file changed since goes as an update.
      const sent = await earlierCreate(op, fields, ctx);
      if (sent) {
        if (!ctx.adopter.intents.has(op.key)) ctx.adopted.set(op.key, "edited");
        const since = Object.fromEntries(
          Object.entries(fields).filter(([k, v]) =>
            k === "ordinal" ? Number(sent.ordinal) !== Number(v) : !matchesCreate(sent, { [k]: v }),
          ),
        );
        record =
          Object.keys(since).length === 0
            ? sent
            : ((await client.update(resource, sent.id, since)) ?? (await client.get(resource, sent.id)));
        if (!record) throw new UserError(`PATCH ${resource}/${sent.id}: the record is gone from the site`);
      }
    }
    if (!record) {
      const from = (op.kind === "course" ? ctx.local.courses : ctx.local.chapters).get(op.key)?.hash;
      await journal.append({
        t: "intent",
        op: "create",
        kind: op.kind,
        key: op.key,
        path: op.path,
        fields,
        ...(from ? { from } : {}),
      });
      const check = answerCheck(op.kind, op.path, fields, ctx);
      try {
        record = await client.create(resource, fields, { check });
      } catch (error) {
        if (!(error instanceof WriteOutcomeUnknownError)) throw error;
        // The answer was lost: the record may exist. Look before sending it again.
        record =
          (await ctx.adopter.find(op.kind, fields, true, op.path, true)) ??
          (await client.create(resource, fields, { check }));
      }
      record ??= await ctx.adopter.find(op.kind, fields, true, op.path, true);
      if (!record)
        throw new UserError(
          `POST ${resource}: the site answered without the new record and it cannot be found`,
        );
      ctx.adopter.take(op.kind, record.id);
      const stored = normalisedFields(op.kind, record, fields);
      if (stored.length > 0) ctx.normalised.set(op.key, stored);
    }
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
    const settled = await settleFile(op.kind, op.key, op.path, record, op.values, true, ctx);
    const line: Done = {
      t: "done",
      op: "create",
      kind: op.kind,
      key: op.key,
      id: record.id,
      path: op.path,
      record,
      hash: settled.hash,
      ...(settled.body === undefined ? {} : { body: settled.body }),
      ...(settled.blob === undefined ? {} : { blob: settled.blob }),
      from: settled.from,
      ...(settled.text === undefined || settled.byId ? {} : { text: settled.text }),
      ...(siteId === undefined ? {} : { site_id: siteId }),
    };
    // The journal learns of the record before the file gets its id: a file with an id the
    // snapshot does not know would be untracked after a crash, and its create never settled.
    await journal.append(line);
    if (settled.text !== undefined)
      await writeTreeFile(ctx.root, recordFilePath(op.kind, op.path), settled.text, ctx.fs);
    return line;
  }
  if (op.type === "delete") {
    if (decision && decision.remote === undefined) {
      const line: Done = { t: "done", op: "delete", kind: op.kind, key: op.key, id: op.id, path: op.path };
      await journal.append(line);
      return line;
    }
    await client.remove(resource, op.id);
    const line: Done = { t: "done", op: "delete", kind: op.kind, key: op.key, id: op.id, path: op.path };
    await journal.append(line);
    return line;
  }
  // update
  const mine = op.kind === "course" ? ctx.local.courses.get(op.key) : ctx.local.chapters.get(op.key);
  if (!mine) throw new Error(`update of ${op.key} without a local file`);
  const merged = (decision?.merged ?? mine.values) as CourseValues | ChapterValues;
  if (decision?.recreate) {
    // --force over a record deleted on the site: create it again from the local file.
    return apply(
      op.kind === "course"
        ? { type: "create", kind: "course", key: op.key, path: op.path, values: merged as CourseValues }
        : {
            type: "create",
            kind: "chapter",
            key: op.key,
            path: op.path,
            values: merged as ChapterValues,
            courseKey: op.courseKey ?? "",
          },
      undefined,
      ctx,
    );
  }
  const fields = decision ? decision.fields : op.fields;
  let record = decision?.remote;
  if (fields.length > 0) {
    const courseId = op.kind === "chapter" ? ctx.createdCourse.get(op.courseKey ?? "") : undefined;
    const payload =
      op.kind === "course"
        ? courseInput(merged as CourseValues, fields)
        : chapterInput(merged as ChapterValues, fields, courseId);
    record =
      (await client.update(resource, op.id, payload as Record<string, unknown>)) ??
      (await client.get(resource, op.id));
    if (!record) throw new UserError(`PATCH ${resource}/${op.id}: the record is gone from the site`);
  }
  if (!record) return undefined;
  const settled = await settleFile(op.kind, op.key, op.path, record, mine.values, false, ctx);
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
    hash: settled.hash,
    ...(settled.body === undefined ? {} : { body: settled.body }),
    ...(settled.blob === undefined ? {} : { blob: settled.blob }),
  };
  await journal.append(line);
  return line;
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
  kind: "course" | "chapter",
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
