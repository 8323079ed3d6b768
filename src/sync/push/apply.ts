import { readFile } from "node:fs/promises";
import type { CreateOptions } from "../../api/client.js";
import { WriteOutcomeUnknownError } from "../../api/errors.js";
import type { Resource, WireRecord } from "../../api/wire.js";
import { UserError } from "../../errors.js";
import type { BodyCodec } from "../../tree/bodies.js";
import { parseChapterFile, splitFrontMatter } from "../../tree/chapter-file.js";
import { parseCourseFile } from "../../tree/course-file.js";
import { abs, writeTreeFile } from "../../tree/fs-ops.js";
import { recordFilePath } from "../../tree/layout.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import {
  bodyKey,
  type ChapterValues,
  type CourseValues,
  courseFileText,
  courseValuesOfFile,
  fieldsEqual,
  isLiteral,
  renderChapter,
  valuesOfRecord,
} from "../entities.js";
import type { Done, Intent, Journal } from "../journal.js";
import type { LocalView } from "../local-view.js";
import type { PushClient } from "../push.js";
import { chapterInput, courseInput, type PushOp } from "../push-plan.js";
import { findCreated, matchesCreate, withId } from "../recovery.js";
import type { Snapshot } from "../snapshot.js";
import type { ContentCache } from "../state/content-cache.js";
import type { SiteIds } from "../state/id-map.js";
import { createdAnswerProblem } from "./answers.js";
import type { Decision } from "./decide.js";
import { RESOURCE } from "./recheck.js";
import { treeIdOfKey } from "./restore.js";

// Applying one write of a push: the request, the journal line, and the file it settles.

/** Whether two records' values say the same (a Markdown body's HTML by equivalence). */
function sameValues(a: object, b: object, bodies: BodyCodec): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return Object.keys({ ...x, ...y }).every((k) => {
    if (fieldsEqual(k, x[k], y[k])) return true;
    // A Markdown body's HTML is equivalent to what the site stored, not byte-equal.
    const [p, q] = [x[k], y[k]];
    return (
      k === "content" && typeof p === "string" && typeof q === "string" && bodies.equivalent?.(p, q) === true
    );
  });
}

/** Finds a record a lost POST may have created, so it is adopted instead of created twice. */
export class Adopter {
  private lists = new Map<Resource, WireRecord[]>();
  private taken = new Set<string>();

  constructor(
    private readonly client: PushClient,
    private readonly snapshot: Snapshot,
    /** Those creates by key, with the fields they sent. */
    readonly intents: ReadonlyMap<string, Intent> = new Map(),
  ) {}

  /** A record on the site that matches the fields sent and that no sync knows yet. */
  async find(
    kind: "course" | "chapter",
    fields: Record<string, unknown>,
    fresh: boolean,
  ): Promise<WireRecord | undefined> {
    const resource = RESOURCE[kind];
    if (fresh || !this.lists.has(resource))
      this.lists.set(resource, (await this.client.listAll(resource)).records);
    return findCreated(this.lists.get(resource)!, kind, fields, this.snapshot, this.taken);
  }
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
  /** Creates answered by adopting a record the site already had (by op key). */
  adopted: Set<string>;
  root: string;
  fs: TreeFs;
  bodies: BodyCodec;
  cache: ContentCache;
  /** A site other than the default one: its id map (a create maps the file's id; no file is written). */
  siteIds?: SiteIds | undefined;
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
    let record = await ctx.adopter.find(op.kind, fields, false);
    if (record && !ctx.adopter.intents.has(op.key)) ctx.adopted.add(op.key);
    const earlier = ctx.adopter.intents.get(op.key);
    if (!record && earlier) {
      // The create an earlier run sent, from the file as it was then, found by what it sent:
      // adopted, and what the file changed since goes as an update.
      const sent = await ctx.adopter.find(op.kind, earlier.fields, false);
      if (sent) {
        const since = Object.fromEntries(
          Object.entries(fields).filter(([k, v]) => !matchesCreate(sent, { [k]: v })),
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
          (await ctx.adopter.find(op.kind, fields, true)) ??
          (await client.create(resource, fields, { check }));
      }
      record ??= await ctx.adopter.find(op.kind, fields, true);
      if (!record)
        throw new UserError(
          `POST ${resource}: the site answered without the new record and it cannot be found`,
        );
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
  };
  await journal.append(line);
  return line;
}

/** How a file is to agree with the record the site holds, before anything is written. */
interface Settled {
  /** Hash of the file as it is to stand. */
  hash: string;
  /** Chapters: the body key of that file. */
  body?: string;
  /** Hash of the file as it stood when read. */
  from: string;
  /** The text to write, or undefined when the file already agrees. */
  text?: string;
  /** True when `text` is the file read plus the new id (and nothing else changed). */
  byId: boolean;
}

/**
 * Work out how the file is to agree with the record the site now holds: when the site took
 * exactly the local values, the file keeps its bytes (plus the new id); otherwise it is
 * rewritten from the record (fields changed only on the site come into the file). Writes nothing.
 */
/** A course.yaml's values, or undefined when it does not parse. */
function tryParseCourse(text: string, file: string): CourseValues | undefined {
  try {
    return courseValuesOfFile(parseCourseFile(text, file));
  } catch {
    return undefined;
  }
}

/** The fields of an object that are set (not missing, not null). */
function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<T>;
}

/** A snapshot hash no file has: the file is always read and compared with the record. */
const UNSETTLED = "unsettled";

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
 * Settle a written record's file with the site's answer, and say what the snapshot should hold
 * for it: it stores the chapter's new content in the content cache, writes the file (a new
 * record's id, fields the site filled in) unless it was saved again meanwhile, and returns the
 * hashes the snapshot records.
 */
async function settleFile(
  kind: "course" | "chapter",
  key: string,
  where: string,
  record: WireRecord,
  localValues: CourseValues | ChapterValues,
  created: boolean,
  ctx: ApplyContext,
): Promise<Settled> {
  const file = recordFilePath(kind, where);
  const siteValues = valuesOfRecord(kind, record);
  if (kind === "chapter" && typeof record.content === "string") {
    // The last synced text of this chapter, for later comparisons and merges.
    await ctx.cache.put(record.content);
  }
  const scanned = (kind === "course" ? ctx.local.courses : ctx.local.chapters).get(key)?.hash;
  const text = await readSettling(abs(ctx.root, file), created, ctx.sleep);
  if (text === undefined) {
    // Deleted while its write was under way: the record stands for no file (the next scan
    // sees it deleted here).
    return { hash: UNSETTLED, from: UNSETTLED, byId: true };
  }
  const from = sha256(text);
  // A record of the tree is never written by another site; a new file first created on another
  // site takes what that site filled in, as the default site's would (but no id: see fileId).
  if (ctx.siteIds && !(created && record.id < 0)) return keptFile(kind, file, text, scanned, created);
  const withNewId = (t: string) => (created && record.id >= 0 ? withId(t, record.id, kind) : t);
  if (scanned !== undefined && from !== scanned) {
    // Saved again while its write was under way: that save is kept as it is (a new record
    // only gains its id) and is not taken as synced, so the next push sends it.
    let next = withNewId(text);
    if (created && kind === "course") {
      // The fields the site filled in (and the new save does not set) come in as well.
      const saved = tryParseCourse(text, file);
      if (saved) next = courseFileText(record.id, { ...(siteValues as CourseValues), ...definedOnly(saved) });
    }
    return {
      hash: created ? UNSETTLED : scanned,
      from,
      byId: next === withNewId(text),
      ...(next === text ? {} : { text: next }),
    };
  }
  const wanted = { ...localValues } as Record<string, unknown>;
  if (kind === "chapter") wanted.course_id = (siteValues as ChapterValues).course_id;
  if (sameValues(siteValues, wanted, ctx.bodies)) {
    const next = withNewId(text);
    const write = next === text ? {} : { text: next };
    if (kind === "course") return { hash: sha256(next), from, byId: true, ...write };
    const { body } = splitFrontMatter(next, file);
    const format = parseChapterFile(next, file).format;
    return { hash: sha256(next), body: bodyKey(format, body), from, byId: true, ...write };
  }
  if (kind === "course") {
    const next = courseFileText(record.id, siteValues as CourseValues);
    return { hash: sha256(next), from, text: next, byId: false };
  }
  const rendered = renderChapter(record.id, siteValues as ChapterValues, ctx.bodies);
  return { hash: rendered.hash, body: rendered.body, from, text: rendered.text, byId: false };
}

/**
 * Settling a file with a site other than the default one: the file is never written (its id is
 * the default site's, its values the tree's); the site's record is what it stands for now. A
 * file saved again meanwhile is not taken as synced, so the next push sends it.
 */
function keptFile(
  kind: "course" | "chapter",
  file: string,
  text: string,
  scanned: string | undefined,
  created: boolean,
): Settled {
  const from = sha256(text);
  if (scanned !== undefined && from !== scanned)
    return { hash: created ? UNSETTLED : scanned, from, byId: true };
  if (kind === "course") return { hash: from, from, byId: true };
  const { body } = splitFrontMatter(text, file);
  return { hash: from, body: bodyKey(parseChapterFile(text, file).format, body), from, byId: true };
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
