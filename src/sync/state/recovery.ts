import { readFile } from "node:fs/promises";
import type { WireRecord } from "../../api/wire.js";
import { abs, hashTreeFile, writeTreeFile } from "../../tree/fs-ops.js";
import { recordFilePath } from "../../tree/layout.js";
import { guardedFs, type TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import { courseFileText, courseValuesOfRecord, fieldsEqual, snapshotRecord } from "../entities.js";
import type { Done, Intent, JournalLine } from "./journal.js";
import type { Snapshot } from "./snapshot.js";

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

/**
 * Whether a record on the site is what a create sent: every field sent has the value sent
 * (status goes in as 0/1 and comes out as a word, so it is not compared).
 */
export function matchesCreate(record: WireRecord, fields: Record<string, unknown>): boolean {
  return Object.entries(fields).every(([k, v]) => {
    if (k === "status") return true;
    if (k === "course_id") return Number(record[k]) === Number(v);
    return fieldsEqual(k, record[k], v);
  });
}

/**
 * The record a create made, among those listed: one no sync knows and none taken yet (by an
 * earlier create of this run) that has exactly the fields sent; the newest when several do.
 * It is marked taken.
 */
export function findCreated(
  listed: readonly WireRecord[],
  kind: "course" | "chapter",
  fields: Record<string, unknown>,
  snapshot: Snapshot,
  taken: Set<string>,
): WireRecord | undefined {
  const known = kind === "course" ? snapshot.courses : snapshot.chapters;
  const found = listed
    .filter((r) => !known[r.id] && !taken.has(`${kind}:${r.id}`) && matchesCreate(r, fields))
    .sort((a, b) => b.id - a.id)[0];
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
