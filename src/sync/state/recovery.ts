import { readFile } from "node:fs/promises";
import type { WireRecord } from "../../api/wire.js";
import { abs, hashTreeFile, writeTreeFile } from "../../tree/fs-ops.js";
import { recordFilePath } from "../../tree/layout.js";
import { guardedFs, type TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import { courseFileText, courseValuesOfRecord, fieldsEqual, snapshotRecord } from "../model/entities.js";
import type { Done, Intent, JournalLine } from "./journal.js";
import type { Snapshot } from "./snapshot-model.js";

// What a run does with the push journal an earlier run left: fold it into the snapshot and
// finish the files of the creates it confirmed; and how a create is known on the site.

/** An `id:` line of a file's fields (empty, null, or an id the site no longer has). */
const ID_LINE = /^id:[^\r\n]*/m;

/** The fields of a file: a course.yaml whole, a chapter's front matter. */
function fieldsOf(text: string, kind: "course" | "chapter"): string {
  return kind === "course" ? text : (text.split("\n---")[0] ?? text);
}

/** Whether a file's fields hold an id (`id: N`; not an empty or null one). */
function hasIdLine(text: string, kind: "course" | "chapter"): boolean {
  return /^id:[ \t]*\d+[ \t]*\r?$/m.test(fieldsOf(text, kind));
}

/**
 * Put `id: N` into a file's fields, leaving every other byte as it was: an `id:` line already
 * there (`id:`, `id: null`, or the old id of a record created again) gets the new value, so the
 * file never ends up with the key twice; otherwise the line goes at the top of the fields.
 */
export function withId(text: string, id: number, kind: "course" | "chapter"): string {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = bom ? text.slice(1) : text;
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  if (kind === "course") {
    if (ID_LINE.test(body)) return `${bom}${body.replace(ID_LINE, `id: ${id}`)}`;
    return `${bom}id: ${id}${eol}${body}`;
  }
  const first = body.indexOf("\n") + 1;
  const close = body.slice(first).search(/^---[ \t]*\r?$/m);
  const end = close < 0 ? body.length : first + close;
  const fields = body.slice(first, end);
  if (ID_LINE.test(fields))
    return `${bom}${body.slice(0, first)}${fields.replace(ID_LINE, `id: ${id}`)}${body.slice(end)}`;
  return `${bom}${body.slice(0, first)}id: ${id}${eol}${body.slice(first)}`;
}

/** Fold confirmed writes of a journal into a snapshot (pure). */
export function foldJournal(snapshot: Snapshot, lines: readonly JournalLine[]): Snapshot {
  const next: Snapshot = {
    ...snapshot,
    courses: { ...snapshot.courses },
    chapters: { ...snapshot.chapters },
    ...(snapshot.ids
      ? { ids: { courses: { ...snapshot.ids.courses }, chapters: { ...snapshot.ids.chapters } } }
      : {}),
  };
  for (const line of lines) {
    if (line.t !== "done") continue;
    const table = line.kind === "course" ? next.courses : next.chapters;
    const ids = next.ids?.[line.kind === "course" ? "courses" : "chapters"];
    if (ids && line.op === "delete") delete ids[line.id];
    if (ids && line.site_id !== undefined) ids[line.id] = line.site_id;
    // `push --force` created again a record the site had deleted: the old id is gone for good.
    const replaced = line.op === "create" ? /^(?:course|chapter):(\d+)$/.exec(line.key)?.[1] : undefined;
    if (replaced !== undefined && Number(replaced) !== line.id) delete table[replaced];
    if (line.op === "delete") delete table[line.id];
    else if (line.record && line.hash)
      table[line.id] = {
        path: line.path,
        hash: line.hash,
        ...(line.body ? { body: line.body } : {}),
        ...(line.blob ? { blob: line.blob } : {}),
        record: snapshotRecord(line.record),
      };
  }
  return next;
}

/**
 * After a crash: a confirmed create whose file was not yet settled is settled now. A file as
 * it stood at the create gets the text the create meant for it; one edited since keeps the
 * edit and only gains its id (the edit is then pushed as an update).
 */
export async function restoreIds(
  root: string,
  lines: readonly JournalLine[],
  fs: TreeFs = guardedFs(root),
): Promise<void> {
  for (const line of lines) {
    if (line.t !== "done" || line.op !== "create") continue;
    const file = recordFilePath(line.kind, line.path);
    let text: string;
    try {
      text = await readFile(abs(root, file), "utf8");
    } catch {
      continue;
    }
    const hash = sha256(text);
    if (hash === line.hash) continue;
    // A provisional record (negative id) of a non-default site: its file carries no id, and
    // takes only what the site filled in.
    const provisional = line.id < 0;
    if (line.from !== undefined && hash === line.from && (line.text !== undefined || !provisional)) {
      await writeTreeFile(root, file, line.text ?? withId(text, line.id, line.kind), fs);
      continue;
    }
    if (provisional) continue;
    if (new RegExp(`^id:[ \\t]*${line.id}[ \\t]*\\r?$`, "m").test(fieldsOf(text, line.kind))) continue;
    await writeTreeFile(root, file, withId(text, line.id, line.kind), fs);
  }
}

/**
 * Confirmed creates whose file does not hold what the create wrote into it (the write failed,
 * e.g. on a full disk): kept in the journal, so that `restoreIds` gives the file its id next time.
 */
export async function unsettledCreates(root: string, lines: readonly JournalLine[]): Promise<Done[]> {
  const out: Done[] = [];
  for (const line of lines) {
    if (line.t !== "done" || line.op !== "create") continue;
    const hash = await hashTreeFile(root, recordFilePath(line.kind, line.path));
    // A provisional record's file is settled only from the file as sent (it gets no id).
    if (line.id < 0 ? line.text !== undefined && hash === line.from : hash !== line.hash) out.push(line);
  }
  return out;
}

/** How a site may store a create otherwise than it was sent, forgiven when looking for it. */
export interface CreateMatch {
  /** Whether two contents say the same (sites re-serialise HTML); default: byte-equal. */
  sameContent?: ((a: string, b: string) => boolean) | undefined;
}

/** A title as any site keeps it: trimmed, white space collapsed, Unicode composed. */
export function titleKey(value: unknown): string {
  return String(value ?? "")
    .normalize("NFC")
    .trim()
    .replace(/\s+/g, " ");
}

/**
 * Whether a record on the site is what a create sent: every field sent has the value sent, as a
 * site may store it (a title trimmed, content re-serialised), and what the create left out has
 * the site's default (a course sent without a status is a draft). An ordinal is not compared:
 * sites that place records (acts_as_list) store another; the caller prefers one that agrees.
 */
export function matchesCreate(
  record: WireRecord,
  fields: Record<string, unknown>,
  match: CreateMatch = {},
): boolean {
  return Object.entries(fields).every(([k, v]) => {
    if (k === "status") return statusMatches(record.status, v);
    if (k === "ordinal") return true;
    if (k === "course_id") return Number(record[k]) === Number(v);
    if (k === "title") return titleKey(record[k]) === titleKey(v);
    if (k === "content" && typeof v === "string" && typeof record[k] === "string")
      return record[k] === v || match.sameContent?.(record[k] as string, v) === true;
    return fieldsEqual(k, record[k], v);
  });
}

/** Whether what a create left out has the site's default there (a course without a status is a draft). */
function defaultsMatch(
  kind: "course" | "chapter",
  record: WireRecord,
  fields: Record<string, unknown>,
): boolean {
  return kind === "chapter" || "status" in fields || statusMatches(record.status, undefined);
}

/** A course's status as stored against the one sent (0/1; not sent is a draft). */
function statusMatches(stored: unknown, sent: unknown): boolean {
  const word = sent === 1 || sent === "published" ? "published" : "draft";
  return (
    stored === undefined || stored === null || stored === word || stored === (word === "published" ? 1 : 0)
  );
}

/**
 * The time before which no record unknown to the snapshot can be one a run of this tree made:
 * that of the last full listing (a pull), which saw every record the site had then. Records a
 * push wrote since do not count: a push sees only its own writes, not what others made. Undefined
 * when no pull recorded it (a snapshot of an older version): then any age may be it.
 */
export function lastSeen(snapshot: Snapshot): number | undefined {
  const time = Date.parse(snapshot.listed ?? "");
  return Number.isFinite(time) ? time : undefined;
}

/** The newest time any of these records carries, as the site wrote it (for `Snapshot.listed`). */
export function newestTime(records: Iterable<WireRecord>): string | undefined {
  let newest: { at: number; text: string } | undefined;
  for (const record of records) {
    for (const field of ["created_at", "updated_at"]) {
      const text = record[field];
      const at = typeof text === "string" ? Date.parse(text) : Number.NaN;
      if (Number.isFinite(at) && (newest === undefined || at > newest.at))
        newest = { at, text: text as string };
    }
  }
  return newest?.text;
}

/** Whether a record could have been made after the snapshot's last sync (no time on it: it could). */
function youngEnough(record: WireRecord, since: number | undefined): boolean {
  if (since === undefined) return true;
  const made = Date.parse(String(record.created_at ?? ""));
  return !Number.isFinite(made) || made >= since;
}

/**
 * The records a create could have made, among those listed: ones no sync knows and none taken
 * yet (by an earlier create of this run), made after the snapshot's last sync, with the fields
 * sent; those whose ordinal is the one sent first, then the newest.
 */
export function createdCandidates(
  listed: readonly WireRecord[],
  kind: "course" | "chapter",
  fields: Record<string, unknown>,
  snapshot: Snapshot,
  taken: ReadonlySet<string>,
  match: CreateMatch = {},
  /** Only records made since the snapshot's last full listing; false where a journal proves the create was sent. */
  young = true,
): WireRecord[] {
  const known = kind === "course" ? snapshot.courses : snapshot.chapters;
  const since = young ? lastSeen(snapshot) : undefined;
  const placed = (r: WireRecord) =>
    !("ordinal" in fields) || Number(r.ordinal) === Number(fields.ordinal) ? 0 : 1;
  return listed
    .filter(
      (r) =>
        !known[r.id] &&
        !taken.has(`${kind}:${r.id}`) &&
        youngEnough(r, since) &&
        matchesCreate(r, fields, match) &&
        defaultsMatch(kind, r, fields),
    )
    .sort((a, b) => placed(a) - placed(b) || b.id - a.id);
}

/**
 * The record a create made, among those listed (see createdCandidates): the first candidate,
 * marked taken.
 */
export function findCreated(
  listed: readonly WireRecord[],
  kind: "course" | "chapter",
  fields: Record<string, unknown>,
  snapshot: Snapshot,
  taken: Set<string>,
  match: CreateMatch = {},
): WireRecord | undefined {
  const found = createdCandidates(listed, kind, fields, snapshot, taken, match)[0];
  if (found) taken.add(`${kind}:${found.id}`);
  return found;
}

/**
 * Pull after a push killed between sending a create and hearing back: a record the site
 * holds that no sync knows and that has exactly the fields sent is that create's. Its file
 * gets the id (when it has none), and the pull adopts it as a file equal to the site.
 */
export async function adoptIntents(
  root: string,
  intents: readonly Intent[],
  snapshot: Snapshot,
  listed: Record<"course" | "chapter", readonly WireRecord[]>,
  fs: TreeFs = guardedFs(root),
): Promise<void> {
  const taken = new Set<string>();
  for (const intent of intents) {
    const found = findCreated(listed[intent.kind], intent.kind, intent.fields, snapshot, taken);
    if (!found) continue; // never applied: the file is still new, and the next push creates it
    const file = recordFilePath(intent.kind, intent.path);
    let text: string;
    try {
      text = await readFile(abs(root, file), "utf8");
    } catch {
      continue;
    }
    if (hasIdLine(text, intent.kind)) continue;
    // A course.yaml as it was sent takes the fields the site filled in, as push would have
    // written it; otherwise (a chapter sends every field; a file edited since) only the id.
    const asSent = intent.from !== undefined && sha256(text) === intent.from;
    await writeTreeFile(
      root,
      file,
      intent.kind === "course" && asSent
        ? courseFileText(found.id, courseValuesOfRecord(found))
        : withId(text, found.id, intent.kind),
      fs,
    );
  }
}
