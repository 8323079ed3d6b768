import type { CreateOptions, Listing, ListOptions } from "../../api/client.js";
import type { Resource, WireRecord } from "../../api/wire.js";

// Several sites share one tree: the ids in the files are the default site's (tree ids). The
// snapshot of any other site keeps its records under tree ids too, plus the map from each tree
// id to the id that site gave the record. Translation happens here, at the client, so that
// reconciling, planning and deciding all work on tree ids alone.

/** Tree id → a site's own id, per kind (the `ids` of a non-default site's snapshot). */
export interface IdMap {
  courses: Record<string, number>;
  chapters: Record<string, number>;
}

type Kind = "course" | "chapter";
const TABLE = { course: "courses", chapter: "chapters" } as const;
const KIND_OF = { courses: "course", chapters: "chapter" } as const satisfies Record<Resource, Kind>;

/** A map that knows nothing yet (a site restored into, before its first write). */
export function emptyIdMap(): IdMap {
  return { courses: {}, chapters: {} };
}

/**
 * The id map of one run: tree ids to the site's and back. A record of the site that no tree id
 * maps to is shown under the negative of its site id, which no tree id can be: it is never
 * mistaken for a record of the tree.
 */
export class SiteIds {
  readonly #toSite = { course: new Map<number, number>(), chapter: new Map<number, number>() };
  readonly #toTree = { course: new Map<number, number>(), chapter: new Map<number, number>() };

  constructor(map: IdMap) {
    for (const kind of ["course", "chapter"] as const)
      for (const [tree, site] of Object.entries(map[TABLE[kind]])) this.set(kind, Number(tree), site);
  }

  /** Record that the site holds tree record `tree` as `site`. */
  set(kind: Kind, tree: number, site: number): void {
    this.#toSite[kind].set(tree, site);
    this.#toTree[kind].set(site, tree);
  }

  /** The site's id of a tree id (a negative id is a site record the tree does not know). */
  toSite(kind: Kind, tree: number): number | undefined {
    return tree < 0 ? -tree : this.#toSite[kind].get(tree);
  }

  /** The tree id of a site id: its mapping, else the negative of the site id. */
  toTree(kind: Kind, site: number): number {
    return this.#toTree[kind].get(site) ?? -site;
  }

  /** A record as the tree sees it: its id and (for a chapter) its course id in tree ids. */
  recordToTree(kind: Kind, record: WireRecord): WireRecord {
    const out: WireRecord = { ...record, id: this.toTree(kind, record.id) };
    if (kind === "chapter" && isId(record.course_id))
      out.course_id = this.toTree("course", Number(record.course_id));
    return out;
  }

  /** Fields to send, with a chapter's course id in the site's ids. */
  fieldsToSite(kind: Kind, fields: Record<string, unknown>): Record<string, unknown> {
    if (kind !== "chapter" || !isId(fields.course_id)) return fields;
    const site = this.toSite("course", Number(fields.course_id));
    if (site === undefined) throw new Error(`course ${String(fields.course_id)} is not on the site yet`);
    return { ...fields, course_id: site };
  }
}

function isId(value: unknown): boolean {
  return (typeof value === "number" || typeof value === "string") && /^-?\d+$/.test(String(value));
}

/** What a mapped client wraps: the API client's record and list calls. */
export interface RecordClient {
  get(resource: Resource, id: number): Promise<WireRecord | undefined>;
  create(
    resource: Resource,
    fields: Record<string, unknown>,
    options?: CreateOptions,
  ): Promise<WireRecord | undefined>;
  update(resource: Resource, id: number, fields: Record<string, unknown>): Promise<WireRecord | undefined>;
  remove(resource: Resource, id: number): Promise<void>;
  listAll(path: string, options?: ListOptions): Promise<Listing>;
}

/**
 * The client of a non-default site as the tree sees it: ids in paths and bodies go out as the
 * site's, records come back under tree ids. A tree id the site does not hold reads as not
 * found; writing to one is a bug (it is created, never updated or deleted).
 */
export function mappedClient(inner: RecordClient, ids: SiteIds): RecordClient {
  const siteId = (resource: Resource, id: number, verb: string): number => {
    const site = ids.toSite(KIND_OF[resource], id);
    if (site === undefined) throw new Error(`${verb} ${resource}/${id}: the site does not hold it`);
    return site;
  };
  const toTree = (resource: Resource, record: WireRecord | undefined) =>
    record && ids.recordToTree(KIND_OF[resource], record);
  return {
    async get(resource, id) {
      const site = ids.toSite(KIND_OF[resource], id);
      return site === undefined ? undefined : toTree(resource, await inner.get(resource, site));
    },
    async create(resource, fields, options = {}) {
      const { check } = options;
      const record = await inner.create(resource, ids.fieldsToSite(KIND_OF[resource], fields), {
        ...(check ? { check: (answer) => check(ids.recordToTree(KIND_OF[resource], answer)) } : {}),
      });
      return toTree(resource, record);
    },
    async update(resource, id, fields) {
      const site = siteId(resource, id, "PATCH");
      return toTree(
        resource,
        await inner.update(resource, site, ids.fieldsToSite(KIND_OF[resource], fields)),
      );
    },
    remove: (resource, id) => inner.remove(resource, siteId(resource, id, "DELETE")),
    async listAll(path, options) {
      const listing = await inner.listAll(path, options);
      if (path !== "courses" && path !== "chapters") return listing;
      return {
        ...listing,
        records: listing.records.map((record) => ids.recordToTree(KIND_OF[path], record)),
      };
    },
  };
}
