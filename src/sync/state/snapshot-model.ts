import type { WireRecord } from "../../api/wire.js";
import type { IdMap } from "./id-map.js";

// The snapshot's shape, shared by its files (shards.ts), its folder (snapshot-folder.ts) and
// its loading and saving (snapshot.ts).

/** What the last sync knew of one course or chapter. */
export interface SnapshotEntry {
  /** Where it was written: a course's folder or a chapter's file, relative to the root, with /. */
  path: string;
  /** SHA-256 of the file as written from `record` (course.yaml or the chapter file). */
  hash: string;
  /**
   * Chapters: SHA-256 of the body's format and text as written. A file whose front matter
   * changed but whose body did not keeps the site's content without converting anything.
   */
  body?: string;
  /**
   * Chapters: git's blob id of the file text `hash` names (`git hash-object` of it). In a clone
   * whose content cache lacks the last sync's text (CI, a teammate), that text is read from
   * git's objects by this id: the base of a body merge is wherever the snapshot is.
   */
  blob?: string;
  /**
   * The whole remote record as last synced, every field kept. A chapter's `content` is kept
   * out of line: `content_sha256` names it in the content cache.
   */
  record: WireRecord;
  /**
   * A non-default site's record that the first pull from it matched to this file, but that
   * differs from it: there is no base to tell whose side changed. Pull reconciles it as with no
   * snapshot (equal: synced; else a conflict, both sides shown); push sends nothing for it.
   */
  conflict?: true;
}

/**
 * The base of three-way reconciliation: the folder `.coursesync/<site>/` (one file per course,
 * see state/shards.ts), or the single file `.coursesync/<site>.json` of earlier versions, which
 * the first save replaces.
 */
export interface Snapshot {
  version: 1;
  site: string;
  /** How chapter bodies were written (coursesync.yaml's `body`); absent means html. */
  body?: "markdown" | "html";
  courses: Record<string, SnapshotEntry>;
  chapters: Record<string, SnapshotEntry>;
  /**
   * A site other than the default one: its records are kept under the tree's ids (those in the
   * files), and this maps each tree id to the site's own. Absent for the default site.
   */
  ids?: IdMap;
  /**
   * The newest time (the site's own clock, as it sent it) of any record the last full listing
   * of the site held: a record made before it that no sync knows was seen by that pull, so it
   * is not one a run of this tree made (see recovery.ts, createdCandidates).
   */
  listed?: string;
}

/** A snapshot that knows nothing yet. */
export function emptySnapshot(site: string): Snapshot {
  return { version: 1, site, courses: {}, chapters: {} };
}
