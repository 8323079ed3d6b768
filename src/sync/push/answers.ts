import type { WireRecord } from "../../api/wire.js";
import type { LocalView } from "../local/view.js";
import { fieldsEqual, valuesOfRecord } from "../model/entities.js";
import type { Fields } from "../reconcile.js";
import { titleKey } from "../state/recovery.js";
import type { Snapshot } from "../state/snapshot-model.js";

// Whether the site's answer to a write describes the write (pure): a create answered with a
// record that is not the one just made, an update answered with a record someone else changed.

/** What a create's answer is checked against. */
export interface KnownIds {
  snapshot: Snapshot;
  local: LocalView;
  /** Records this push created so far, as `kind:id`, with the file each went to. */
  created: ReadonlyMap<string, string>;
}

/**
 * Fields a create sent that the site stored otherwise (a title trimmed, an ordinal placed at
 * the end), as `ordinal is 3, not 90`. A field the answer leaves out says nothing either way
 * (some sites answer with less than the record).
 */
export function normalisedFields(
  kind: "course" | "chapter",
  record: WireRecord,
  sent: Record<string, unknown>,
): string[] {
  const out: string[] = [];
  const differ = (field: string, same: (a: unknown, b: unknown) => boolean) => {
    if (!(field in sent) || !(field in record) || same(record[field], sent[field])) return;
    out.push(`${field} is ${JSON.stringify(record[field])}, not ${JSON.stringify(sent[field])}`);
  };
  differ("title", (a, b) => a === b);
  // Content is not compared: sites sanitise and re-serialise HTML (entities, attribute order,
  // whitespace, tags they strip), so a difference there is not worth a word.
  if (kind === "chapter") differ("ordinal", (a, b) => a !== null && Number(a) === Number(b));
  return out;
}

/**
 * Why a create's answer cannot be the record just made (undefined when it can be): its id is
 * one the last sync knows, another file carries, or this push created already; or it names
 * another title (beyond trimming and spacing) or another course than sent. What a site
 * normalises (a title's spacing, an ordinal it places itself, the HTML it re-serialises) is the
 * record all the same (see normalisedFields): refusing it would make the next push create it
 * again.
 */
export function createdAnswerProblem(
  kind: "course" | "chapter",
  record: WireRecord,
  sent: Record<string, unknown>,
  known: KnownIds,
): string | undefined {
  const entry = (kind === "course" ? known.snapshot.courses : known.snapshot.chapters)[record.id];
  if (entry) return `which the last sync already knows, at ${entry.path}`;
  const files = kind === "course" ? known.local.courses : known.local.chapters;
  const carrier = [...files.values()].find((file) => file.id === record.id);
  if (carrier) return `which ${carrier.file} already carries`;
  const made = known.created.get(`${kind}:${record.id}`);
  if (made !== undefined) return `which this push already created for ${made}`;
  const wrong: string[] = [];
  const differ = (field: string, same: (a: unknown, b: unknown) => boolean) => {
    if (field in sent && field in record && !same(record[field], sent[field]))
      wrong.push(`${field} is ${JSON.stringify(record[field])}, not ${JSON.stringify(sent[field])}`);
  };
  differ("title", (a, b) => a !== null && titleKey(a) === titleKey(b));
  if (kind === "chapter") differ("course_id", (a, b) => a !== null && Number(a) === Number(b));
  return wrong.length > 0 ? `whose ${wrong.join("; ")} as sent` : undefined;
}

/**
 * Fields someone else changed on the site between the re-read and the write: those the write
 * did not send whose value in the site's answer is not the one re-read. Fields the site may
 * derive from what was sent are left out (a course's dates from its status, a moved
 * chapter's position).
 */
export function racedFields(
  kind: "course" | "chapter",
  reread: WireRecord,
  answer: WireRecord,
  sent: readonly string[],
): string[] {
  const before: Fields = valuesOfRecord(kind, reread);
  const after: Fields = valuesOfRecord(kind, answer);
  const derived = new Set<string>(sent);
  if (sent.includes("status")) for (const field of ["published_at", "scheduled_at"]) derived.add(field);
  if (sent.includes("course_id")) derived.add("ordinal");
  return Object.keys(before).filter(
    (field) =>
      !derived.has(field) &&
      field in reread &&
      field in answer &&
      !fieldsEqual(field, before[field], after[field]),
  );
}
