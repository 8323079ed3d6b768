import type { SiteSnapshotInfo } from "../../sync/state/sites.js";
import { counted } from "../../util/words.js";

/** One site as `site list --json` prints it; never a token, only whether one is stored. */
export interface SiteRecord {
  name: string;
  url: string;
  default: boolean;
  token_stored: boolean;
  /** The last sync's snapshot; null when the site was never synced from this tree. */
  snapshot: SiteSnapshotInfo | null;
  /** Why the snapshot cannot be read, when it cannot. */
  snapshot_problem?: string;
}

/** The record of one site from its config entry, token store lookup and snapshot. */
export function siteRecord(
  name: string,
  url: string,
  isDefault: boolean,
  tokenStored: boolean,
  state: { snapshot?: SiteSnapshotInfo; problem?: string },
): SiteRecord {
  return {
    name,
    url,
    default: isDefault,
    token_stored: tokenStored,
    snapshot: state.snapshot ?? null,
    ...(state.problem === undefined ? {} : { snapshot_problem: state.problem }),
  };
}

function syncText(site: SiteRecord): string {
  if (site.snapshot_problem !== undefined) return `snapshot unreadable: ${site.snapshot_problem}`;
  const snapshot = site.snapshot;
  if (!snapshot) return "never synced";
  const records = `${counted(snapshot.courses, "course")}, ${counted(snapshot.chapters, "chapter")}`;
  const other = snapshot.url === site.url ? "" : `, snapshot made for ${snapshot.url}`;
  return `last sync ${snapshot.written_at} (${records}${other})`;
}

/**
 * `site list` for people: one line a site, in columns, then how credentials are found. The site
 * whose ids the files carry is marked when it is not the default one.
 */
export function siteLines(sites: readonly SiteRecord[], envToken: boolean, ids?: string): string[] {
  const owner = sites.find((site) => site.default)?.name === ids ? undefined : ids;
  const names = sites.map(
    (site) => `${site.name}${site.default ? " (default)" : ""}${site.name === owner ? " (ids)" : ""}`,
  );
  const nameWidth = Math.max(...names.map((name) => name.length));
  const urlWidth = Math.max(...sites.map((site) => site.url.length));
  const lines = sites.map((site, i) =>
    [
      (names[i] ?? site.name).padEnd(nameWidth),
      site.url.padEnd(urlWidth),
      syncText(site),
      site.token_stored ? "token stored" : "no token stored",
    ].join("  "),
  );
  if (owner !== undefined)
    lines.push(`The ids in the files are those of "${owner}" (ids: in coursesync.yaml).`);
  if (envToken) lines.push("COURSESYNC_TOKEN is set: every site is sent that token, before any stored one.");
  return lines;
}
