/**
 * Three-way reconciliation, the heart of the tool: one pure function that pull, status, push
 * and watch all use. Data in (base, local, remote per entity), plan out; no I/O.
 */

/** The two kinds of entity the tree mirrors. */
export type Kind = "course" | "chapter";

/** The comparable fields of one side of an entity (course or chapter values). */
export type Fields = Readonly<Record<string, unknown>>;

/** How one side stands against the base. */
export type SideState = "unchanged" | "modified" | "deleted" | "new" | "absent" | "unknown";

/** One entity as the three sides see it: its fields are T (course or chapter values). */
export interface EntityInput<T extends Fields = Fields, K extends Kind = Kind> {
  kind: K;
  /** Server id; undefined for something made locally and not yet created. */
  id: number | undefined;
  /** Unique within a plan: `course:12`, or `course:new:<path>` for a local creation. */
  key: string;
  /** What the last sync left (the snapshot); undefined when the snapshot does not know it. */
  base?: T | undefined;
  /** The local file's fields; undefined when there is no file for it. */
  local?: T | undefined;
  /** The site's fields; undefined when the site does not have it. */
  remote?: T | undefined;
  /** False when the site was not asked (offline status): the remote is taken to be the base. */
  remoteKnown: boolean;
}

/** What to do to the tree for an entity. */
export type LocalAction =
  | { type: "none" }
  | { type: "write"; fields: string[] }
  | { type: "create" }
  | { type: "delete" };

/** What to do to the site for an entity. */
export type RemoteAction =
  | { type: "none" }
  | { type: "update"; fields: string[] }
  | { type: "create" }
  | { type: "delete" };

/** A disagreement the tool will not settle on its own. */
export interface Conflict {
  /** Fields changed on both sides to different values; empty for delete/edit conflicts. */
  fields: string[];
  reason:
    | "both-changed"
    | "deleted-remotely-edited-locally"
    | "deleted-locally-edited-remotely"
    | "no-base"
    | "unknown-id";
}

/** The plan for one entity. */
export interface EntityPlan<T extends Fields = Fields, K extends Kind = Kind> {
  kind: K;
  id: number | undefined;
  key: string;
  localState: SideState;
  remoteState: SideState;
  /** The fields both sides should end with; undefined when the entity goes away. */
  merged: T | undefined;
  /** What to do to the tree (the file). */
  toTree: LocalAction;
  /** What to do to the site (the record). */
  toSite: RemoteAction;
  conflict: Conflict | undefined;
}

/** Which side wins conflicts, when the user said so explicitly. */
export type Winner = "local" | "remote";

/** Knobs of reconciliation: how fields compare and merge, and an explicit winner. */
export interface ReconcileOptions {
  /** Whether two values of a field are the same (default: deep equality of JSON values). */
  equal?: (field: string, a: unknown, b: unknown) => boolean;
  /**
   * Merge a text field changed on both sides (three-way); undefined when it does not merge
   * cleanly or cannot be merged (e.g. the base text is not known).
   */
  mergeText?: (field: string, base: unknown, local: unknown, remote: unknown) => unknown;
  /** `push --force`: local wins conflicts; `pull --theirs`: remote wins. */
  winner?: Winner | undefined;
}

/** Deep equality of JSON values (null and undefined count as the same: "not set"). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function changedFields(from: Fields, to: Fields, equal: (f: string, a: unknown, b: unknown) => boolean) {
  const keys = new Set([...Object.keys(from), ...Object.keys(to)]);
  return [...keys].filter((k) => !equal(k, from[k], to[k])).sort();
}

const NONE = { type: "none" } as const;

/**
 * Reconcile one entity: the per-field three-way rule of DESIGN section 4. The plan's merged
 * fields are of the input's type (course or chapter values), and its kind is the input's.
 */
export function reconcileEntity<T extends Fields, K extends Kind>(
  input: EntityInput<T, K>,
  options: ReconcileOptions = {},
): EntityPlan<T, K> {
  const equal = options.equal ?? ((_f: string, a: unknown, b: unknown) => jsonEqual(a, b));
  const { kind, id, key, base, local } = input;
  // Offline, the site is taken to be as the snapshot left it.
  const remote = input.remoteKnown ? input.remote : base;
  // Unless said otherwise: nothing to do on either side, nothing merged, no conflict.
  const plan = (
    p: Pick<EntityPlan<T, K>, "localState" | "remoteState"> &
      Partial<Pick<EntityPlan<T, K>, "merged" | "toTree" | "toSite" | "conflict">>,
  ): EntityPlan<T, K> => ({
    kind,
    id,
    key,
    merged: undefined,
    toTree: NONE,
    toSite: NONE,
    conflict: undefined,
    ...p,
  });

  // Made locally, never on the site: a create.
  if (id === undefined) {
    if (!local) throw new Error(`entity ${key} has neither an id nor a local file`);
    return plan({
      localState: "new",
      remoteState: "absent",
      merged: local,
      toSite: { type: "create" },
    });
  }

  if (!base) {
    if (local && remote) {
      const differing = changedFields(remote, local, equal);
      if (differing.length === 0) {
        return plan({
          localState: "unchanged",
          remoteState: "unchanged",
          merged: remote,
        });
      }
      if (options.winner === "local") {
        return plan({
          localState: "modified",
          remoteState: "modified",
          merged: local,
          toSite: { type: "update", fields: differing },
        });
      }
      if (options.winner === "remote") {
        return plan({
          localState: "modified",
          remoteState: "modified",
          merged: remote,
          toTree: { type: "write", fields: differing },
        });
      }
      return plan({
        localState: "modified",
        remoteState: "modified",
        conflict: { fields: differing, reason: "no-base" },
      });
    }
    if (remote) {
      return plan({
        localState: "absent",
        remoteState: "new",
        merged: remote,
        toTree: { type: "create" },
      });
    }
    if (local) {
      return plan({
        localState: "modified",
        remoteState: input.remoteKnown ? "absent" : "unknown",
        conflict: input.remoteKnown ? { fields: [], reason: "unknown-id" } : undefined,
      });
    }
    throw new Error(`entity ${key} is on no side`);
  }

  const localChanged = local ? changedFields(base, local, equal) : [];
  const remoteChanged = remote ? changedFields(base, remote, equal) : [];
  const localState: SideState = !local ? "deleted" : localChanged.length ? "modified" : "unchanged";
  const remoteState: SideState = !input.remoteKnown
    ? "unknown"
    : !remote
      ? "deleted"
      : remoteChanged.length
        ? "modified"
        : "unchanged";

  if (!local && !remote) {
    return plan({
      localState,
      remoteState,
    });
  }
  if (!remote && local) {
    if (localState === "unchanged" || options.winner === "remote") {
      return plan({
        localState,
        remoteState,
        toTree: { type: "delete" },
      });
    }
    if (options.winner === "local") {
      return plan({
        localState,
        remoteState,
        merged: local,
        toSite: { type: "create" },
      });
    }
    return plan({
      localState,
      remoteState,
      conflict: { fields: localChanged, reason: "deleted-remotely-edited-locally" },
    });
  }
  if (!local && remote) {
    if (remoteChanged.length === 0 || options.winner === "local") {
      return plan({
        localState,
        remoteState,
        toSite: { type: "delete" },
      });
    }
    if (options.winner === "remote") {
      return plan({
        localState,
        remoteState,
        merged: remote,
        toTree: { type: "create" },
      });
    }
    return plan({
      localState,
      remoteState,
      conflict: { fields: remoteChanged, reason: "deleted-locally-edited-remotely" },
    });
  }

  // Both sides have it: field by field.
  const l: Fields = local as T;
  const r: Fields = remote as T;
  // Every field is set below (but those in conflict, when nothing is merged).
  const fields: Record<string, unknown> = {};
  const conflicting: string[] = [];
  const keys = new Set([...Object.keys(base), ...Object.keys(l), ...Object.keys(r)]);
  for (const field of [...keys].sort()) {
    const lc = !equal(field, base[field], l[field]);
    const rc = !equal(field, base[field], r[field]);
    if (lc && rc && !equal(field, l[field], r[field])) {
      const text = options.mergeText?.(field, base[field], l[field], r[field]);
      if (text !== undefined) fields[field] = text;
      else if (options.winner === "local") fields[field] = l[field];
      else if (options.winner === "remote") fields[field] = r[field];
      else conflicting.push(field);
    } else {
      fields[field] = lc ? l[field] : r[field];
    }
  }
  if (conflicting.length > 0) {
    return plan({
      localState,
      remoteState,
      conflict: { fields: conflicting, reason: "both-changed" },
    });
  }
  const merged: T = { ...base, ...fields };
  const toLocal = changedFields(l, merged, equal);
  const toRemote = changedFields(r, merged, equal);
  return plan({
    localState,
    remoteState,
    merged,
    toTree: toLocal.length ? { type: "write", fields: toLocal } : NONE,
    toSite: toRemote.length ? { type: "update", fields: toRemote } : NONE,
  });
}
