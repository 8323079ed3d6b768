import type { Listing } from "../../api/client.js";
import { ExitCode, UserError } from "../../errors.js";
import { counted } from "../../util/words.js";
import { guardSnapshotSite } from "../guards.js";
import type { LocalChapter, LocalCourse, LocalView } from "../local/view.js";
import { emptyIdMap } from "../state/id-map.js";
import { emptySnapshot, type Snapshot } from "../state/snapshot-model.js";
import type { SiteState } from "../state/workspace.js";
import type { PushOp, PushPlan } from "./plan.js";

// A push to a site other than the tree's default one: the files carry the default site's ids,
// and this site's snapshot maps them to its own. A site with no snapshot yet is restored into
// when it is empty; one that holds records is refused (nothing is ever created twice).

/** What the API cannot take on create, so a restore cannot bring it back. */
export const NOT_RESTORED =
  "ids (the new site gives its own; the files keep the default site's, and the new site's snapshot maps them), slugs, created_at and updated_at, and events";

/** The sites of one push: the one written to and the tree's default one. */
export interface SiteNames {
  site: string;
  siteUrl: string;
  idsSite: string;
  /** How the tree writes chapter bodies (a new snapshot records it, as a pull would). */
  body?: "markdown" | "html" | undefined;
}

/**
 * The snapshot a push starts from: the site's own; for a non-default site without one, an empty
 * one when the site is empty (a restore). Never another site's, and never none.
 */
export async function openSnapshot(
  state: SiteState,
  names: SiteNames,
  client: { listAll(path: string): Promise<Listing> },
): Promise<{ snapshot: Snapshot; restore: boolean; other: boolean }> {
  const loaded = await state.loadSnapshot();
  const other = names.site !== names.idsSite;
  if (loaded) {
    guardSnapshotSite(
      "the snapshot",
      loaded.site,
      names.siteUrl,
      "Push to the site the tree was pulled from (--site).",
    );
  }
  if (other) return { ...(await otherSiteSnapshot(loaded, names, (r) => client.listAll(r))), other };
  if (!loaded) {
    throw new UserError(`no snapshot for site "${names.site}": push needs a pull first`, {
      hint: "Run `coursesync pull`: without the last sync, coursesync cannot tell your edits from the site's.",
    });
  }
  return { snapshot: loaded, restore: false, other };
}

/** The snapshot of a non-default site: the one on disk, or an empty one for a restore. */
async function otherSiteSnapshot(
  loaded: Snapshot | undefined,
  names: SiteNames,
  list: (resource: "courses" | "chapters") => Promise<Listing>,
): Promise<{ snapshot: Snapshot; restore: boolean }> {
  if (loaded) {
    if (loaded.ids === undefined) {
      throw new UserError(
        `the snapshot of site "${names.site}" has no id map: it was made before sites shared one tree, and its ids are not the files' ids`,
        {
          hint: `Move .coursesync/${names.site}.json away; then \`coursesync push --site ${names.site}\` restores into the site if it is empty.`,
          exitCode: ExitCode.usage,
        },
      );
    }
    return { snapshot: loaded, restore: false };
  }
  const [courses, chapters] = await Promise.all([list("courses"), list("chapters")]);
  const held = courses.records.length + chapters.records.length;
  if (held > 0) {
    throw new UserError(
      `site "${names.site}" (${names.siteUrl}) holds ${counted(courses.records.length, "course")} and ${counted(chapters.records.length, "chapter")} but has no snapshot in this tree; nothing was sent`,
      {
        hint: `Pushing would create every record again beside those. Run \`coursesync pull --site ${names.site}\` first: it maps the site's records to the files by content (and lists what differs); then push --site ${names.site} sends only the differences.`,
        exitCode: ExitCode.usage,
      },
    );
  }
  const body = names.body === undefined ? {} : { body: names.body };
  return { snapshot: { ...emptySnapshot(names.siteUrl), ...body, ids: emptyIdMap() }, restore: true };
}

/**
 * The local view as a non-default site sees it: a file whose id the site's snapshot does not
 * know is a record the site has not received yet (to create, under its tree id). A file without
 * an id is new, as for any site; created on this site first, it becomes a provisional record
 * (see state/provisional.ts), and the default site gives it its id later.
 */
export function siteView(local: LocalView, snapshot: Snapshot): LocalView {
  const unsent = <T extends LocalCourse | LocalChapter>(entry: T, known: Snapshot["courses"]): T =>
    entry.id !== undefined && !known[entry.id] ? { ...entry, id: undefined } : entry;
  const courses = new Map<string, LocalCourse>();
  for (const [key, course] of local.courses) courses.set(key, unsent(course, snapshot.courses));
  const chapters = new Map<string, LocalChapter>();
  for (const [key, chapter] of local.chapters)
    if (courses.has(chapter.courseKey)) chapters.set(key, unsent(chapter, snapshot.chapters));
  return { ...local, courses, chapters };
}

/** The tree id a record key names (`course:12` → 12); undefined for a new file's key. */
export function treeIdOfKey(key: string): number | undefined {
  const id = /^(?:course|chapter):(\d+)$/.exec(key)?.[1];
  return id === undefined ? undefined : Number(id);
}

/**
 * Records a first mapping pull matched to a file but found different (entries marked
 * `conflict`) are not written by push: neither side is known to be the newer one. They are
 * kept out of the plan and reported, until a pull finds them equal or `pull --theirs` takes
 * the site's side.
 */
export function holdConflicts(plan: PushPlan, snapshot: Snapshot, site: string): void {
  const marked = (op: PushOp) =>
    op.type !== "create" && (op.kind === "course" ? snapshot.courses : snapshot.chapters)[op.id]?.conflict;
  const held = plan.ops.filter(marked);
  if (held.length === 0) return;
  plan.ops = plan.ops.filter((op) => !held.includes(op));
  plan.kept = [
    ...(plan.kept ?? []),
    ...held.map((op) => ({
      kind: op.kind,
      path: op.path,
      conflict: true as const,
      reason: `the first pull from "${site}" matched it to a record there that differs from it, so nothing is sent for it: make the file equal to the site's version (written beside it) and pull --site ${site}, or take the site's with \`coursesync pull --site ${site} --theirs\`, then push your change`,
    })),
  ];
}
