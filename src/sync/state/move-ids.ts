import type { WireRecord } from "../../api/wire.js";
import { recordFilePath } from "../../tree/layout.js";
import { sha256 } from "../../util/hash.js";
import type { IdMap } from "./id-map.js";
import { withId } from "./recovery.js";
import type { Snapshot, SnapshotEntry } from "./snapshot-model.js";

// Moving the files' ids from one site (`from`, whose snapshot holds them directly) to another
// (`to`, whose snapshot maps them to its own): the pure part. Every record must be placed:
// each file's id known to `from`, each of `from`'s records on `to`, each other site's record
// under an id the move knows. Then every id in the files becomes `to`'s, `to`'s snapshot holds
// its records directly, and every other site's snapshot (`from`'s among them) maps the new ids.

type Table = "courses" | "chapters";
const TABLES: readonly Table[] = ["courses", "chapters"];
const KIND = { courses: "course", chapters: "chapter" } as const;

/** A record file of the tree that carries an id, with its text as read. */
export interface IdFile {
  path: string;
  kind: "course" | "chapter";
  id: number;
  text: string;
}

/** A file whose id the move gives: the id it has, and the one it gets. */
export interface FileMove {
  path: string;
  kind: "course" | "chapter";
  from: number;
  to: number;
}

/** The move, decided: every site's new snapshot and every file's new id; or what stops it. */
export interface IdMovePlan {
  snapshots: Map<string, Snapshot>;
  files: FileMove[];
  /** Each record the move cannot place, as a line naming its file or site: nothing moves then. */
  problems: string[];
}

/** What a move starts from: the sites' snapshots as loaded, and the files with ids. */
export interface IdMoveInput {
  from: string;
  to: string;
  snapshots: ReadonlyMap<string, Snapshot>;
  files: readonly IdFile[];
}

/** The entry under its new id: its record's id and course id too, and the hash of its file rewritten. */
function movedEntry(
  entry: SnapshotEntry,
  table: Table,
  id: number,
  courseOf: (old: number) => number | undefined,
  texts: ReadonlyMap<string, string>,
): SnapshotEntry {
  const record: WireRecord = { ...entry.record, id };
  const course = entry.record.course_id;
  if (table === "chapters" && typeof course === "number" && course >= 0)
    record.course_id = courseOf(course) ?? course;
  const text = texts.get(recordFilePath(KIND[table], entry.path));
  // A file as the last sync wrote it stays so once its id line changes; an edited one stays edited.
  const hash =
    text !== undefined && sha256(text) === entry.hash ? sha256(withId(text, id, KIND[table])) : entry.hash;
  return { ...entry, record, hash };
}

/** One site's snapshot under the new ids; `map` gives each new id's value on that site (none: direct). */
function rekey(
  site: string,
  snapshot: Snapshot,
  to: IdMap,
  ownIds: ((table: Table, old: number) => number | undefined) | undefined,
  texts: ReadonlyMap<string, string>,
  problems: string[],
): Snapshot {
  const next: Snapshot = { ...snapshot, courses: {}, chapters: {} };
  const ids: IdMap = { courses: {}, chapters: {} };
  for (const table of TABLES) {
    for (const [key, entry] of Object.entries(snapshot[table])) {
      const old = Number(key);
      // A record a site holds that no file has an id for yet (provisional): under its own key.
      const id = old < 0 ? old : to[table][key];
      if (id === undefined) {
        problems.push(
          `${entry.path}: ${KIND[table]} ${old} of site "${site}" is not on the site the ids move to`,
        );
        continue;
      }
      next[table][id] = movedEntry(entry, table, id, (course) => to.courses[course], texts);
      const own = ownIds?.(table, old);
      if (own !== undefined && id >= 0) ids[table][id] = own;
    }
  }
  if (ownIds) next.ids = ids;
  else delete next.ids;
  return next;
}

/** Decide a move of the files' ids (pure): the new snapshots and file ids, or the problems. */
export function planIdMove(input: IdMoveInput): IdMovePlan {
  const { from, to } = input;
  const problems: string[] = [];
  const source = input.snapshots.get(from);
  const target = input.snapshots.get(to);
  if (!source || source.ids) problems.push(`site "${from}" has no snapshot that holds the files' ids`);
  if (!target?.ids)
    problems.push(
      `site "${to}" has no snapshot mapping the files' ids to its own: pull or push --site ${to} first`,
    );
  if (!source || !target?.ids || source.ids) return { snapshots: new Map(), files: [], problems };
  const map = target.ids;
  for (const table of TABLES) {
    for (const [key, entry] of Object.entries(target[table])) {
      if (entry.conflict)
        problems.push(
          `${entry.path}: the first pull from "${to}" found it different from the file; settle it first`,
        );
      if (Number(key) < 0)
        problems.push(
          `${entry.path}: only on "${to}", with no id in the files yet: push it to "${from}" first`,
        );
    }
    for (const [key, entry] of Object.entries(source[table]))
      if (map[table][key] === undefined)
        problems.push(`${entry.path}: ${KIND[table]} ${key} is not on "${to}" yet: push --site ${to} first`);
  }
  const files: FileMove[] = [];
  for (const file of input.files) {
    const table = file.kind === "course" ? "courses" : "chapters";
    const next = map[table][file.id];
    if (!source[table][file.id])
      problems.push(`${file.path}: id ${file.id} is not in the last sync with "${from}"`);
    else if (next !== undefined) files.push({ path: file.path, kind: file.kind, from: file.id, to: next });
  }
  if (problems.length > 0) return { snapshots: new Map(), files: [], problems };
  const texts = new Map(input.files.map((file) => [file.path, file.text]));
  const snapshots = new Map<string, Snapshot>();
  for (const [site, snapshot] of input.snapshots) {
    const own =
      site === to
        ? undefined
        : site === from
          ? (_: Table, old: number) => old
          : (table: Table, old: number) => snapshot.ids?.[table][old];
    snapshots.set(site, rekey(site, snapshot, map, own, texts, problems));
  }
  return problems.length > 0 ? { snapshots: new Map(), files: [], problems } : { snapshots, files, problems };
}
