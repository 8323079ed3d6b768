import { readFile } from "node:fs/promises";
import type { Listing } from "../../api/client.js";
import type { Resource, WireRecord } from "../../api/wire.js";
import { ExitCode, UserError } from "../../errors.js";
import { abs, writeTreeFile } from "../../tree/fs-ops.js";
import { recordFilePath } from "../../tree/layout.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";
import { courseFileText, courseValuesOfRecord, snapshotRecord } from "../model/entities.js";
import type { Change } from "../model/report.js";
import { type SiteNames, treeIdOfKey } from "../push/other-site.js";
import { emptyIdMap, type IdMap, SiteIds } from "../state/id-map.js";
import type { Intent } from "../state/journal.js";
import { findCreated } from "../state/recovery.js";
import type { Snapshot } from "../state/snapshot-model.js";

// A pull from a site other than the tree's default one: through its id map. A record made on
// that site alone has no tree id yet: it is pulled under its provisional key (the negative of
// its id on the site), as a file without an id line.

/** What pull needs of a non-default site: its names, its id map, and the listing filter. */
export interface OtherSite {
  names: SiteNames;
  ids: SiteIds;
  /** The listing under tree ids (records the default site does not have under negative ones, noted). */
  known(resource: Resource, listing: Listing): Listing;
  /** The id map of the snapshot a pull leaves: the records it still holds. */
  idsOf(next: Snapshot): IdMap;
  /** The site holds records and has no snapshot here: this pull maps it (pull/map-site.ts). */
  mapping?: boolean;
}

/**
 * The non-default site a pull reads, or undefined for the default site. One without a snapshot
 * of its own is mapped to the tree by this pull (`mapping`); one whose snapshot has no id map
 * (made before sites shared a tree) is refused: its ids are not the files' ids.
 */
export function otherSite(
  options: {
    site: string;
    siteUrl: string;
    idsSite?: string | undefined;
    onNote?: ((line: string) => void) | undefined;
  },
  snapshot: Snapshot | undefined,
): OtherSite | undefined {
  const names = {
    site: options.site,
    siteUrl: options.siteUrl,
    idsSite: options.idsSite ?? options.site,
  };
  if (names.site === names.idsSite) return undefined;
  if (!snapshot) {
    // Matched to the tree by content once the tree is read; an empty site maps to nothing.
    const ids = new SiteIds(emptyIdMap());
    return {
      names,
      ids,
      mapping: true,
      idsOf: (next) => next.ids ?? emptyIdMap(),
      known: () => {
        throw new Error("a site is mapped before its listing is read");
      },
    };
  }
  if (!snapshot.ids) {
    throw new UserError(
      `the snapshot of site "${names.site}" has no id map: its ids are not the files' ids (those of "${names.idsSite}"); nothing was changed`,
      {
        hint: `The snapshot was made before sites shared one tree. Move .coursesync/${names.site}.json away; then \`coursesync pull --site ${names.site}\` maps the site's records to the files by content.`,
        exitCode: ExitCode.usage,
      },
    );
  }
  const ids = new SiteIds(snapshot.ids);
  const map = snapshot.ids;
  const keep = (table: Record<string, number>, entries: object) =>
    Object.fromEntries(Object.entries(table).filter(([tree]) => tree in entries));
  return {
    idsOf: (next) => ({
      courses: keep(map.courses, next.courses),
      chapters: keep(map.chapters, next.chapters),
    }),
    names,
    ids,
    known(resource, listing) {
      const kind = resource === "courses" ? "course" : "chapter";
      const mapped = listing.records.map((record) => ids.recordToTree(kind, record));
      const made = mapped.filter((r) => r.id < 0).length;
      if (made > 0)
        options.onNote?.(
          `${made} ${resource} on "${names.site}" are not in the default site "${names.idsSite}" yet (made on "${names.site}", or first pushed there): pulled as files without an id, which a push to "${names.idsSite}" creates there`,
        );
      return { ...listing, records: mapped };
    },
  };
}

/**
 * Pull after a push to this site was killed between sending a create of a new file and hearing
 * back: the record the site holds that no sync knows, with exactly the fields sent, is that
 * file's provisional record (the file gets no id; a course.yaml still as sent takes the fields
 * the site filled in, as the push would have written it). Without this the pull would take it
 * for a record made on the site and write it a second file.
 */
export async function adoptProvisionalIntents(
  root: string,
  snapshot: Snapshot,
  intents: readonly Intent[],
  listed: Record<"course" | "chapter", readonly WireRecord[]>,
  fs: TreeFs,
): Promise<Snapshot> {
  const open = intents.filter((intent) => treeIdOfKey(intent.key) === undefined);
  if (open.length === 0) return snapshot;
  const next = { ...snapshot, courses: { ...snapshot.courses }, chapters: { ...snapshot.chapters } };
  const taken = new Set<string>();
  for (const intent of open) {
    const found = findCreated(listed[intent.kind], intent.kind, intent.fields, next, taken);
    if (!found || found.id >= 0) continue;
    const file = recordFilePath(intent.kind, intent.path);
    const text = await readFile(abs(root, file), "utf8").catch(() => undefined);
    // No hash is known for a file that is not as sent: it is read and compared with the record.
    let hash = "unsettled";
    if (intent.kind === "course" && text !== undefined && sha256(text) === intent.from) {
      const settled = courseFileText(found.id, courseValuesOfRecord(found));
      await writeTreeFile(root, file, settled, fs);
      hash = sha256(settled);
    }
    const entry = { path: intent.path, hash, record: snapshotRecord(found) };
    (intent.kind === "course" ? next.courses : next.chapters)[found.id] = entry;
  }
  return next;
}

/**
 * The base a pull plans with: without the entries a first mapping marked as conflicts, so that
 * those are reconciled as with no snapshot (equal: synced; else a conflict with both sides).
 */
export function withoutConflicts(snapshot: Snapshot): Snapshot {
  const keep = (table: Snapshot["courses"]) =>
    Object.fromEntries(Object.entries(table).filter(([, entry]) => !entry.conflict));
  return { ...snapshot, courses: keep(snapshot.courses), chapters: keep(snapshot.chapters) };
}

/** Entries marked as conflicts that are still conflicts after the pull: kept marked (and mapped). */
export function keepConflicts(
  snapshot: Snapshot,
  plan: { snapshot: Snapshot; changes: readonly Change[] },
): void {
  for (const change of plan.changes) {
    if (change.outcome !== "conflict" || change.id === undefined) continue;
    const table = change.kind === "course" ? "courses" : "chapters";
    const entry = snapshot[table][change.id];
    if (entry?.conflict && !plan.snapshot[table][change.id]) plan.snapshot[table][change.id] = entry;
  }
}
