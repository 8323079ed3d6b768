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

/** The parts of a plan a rule decides; the rest (kind, id, key, no action, no conflict) is filled in. */
type PlanParts<T extends Fields> = Pick<EntityPlan<T>, "localState" | "remoteState"> &
  Partial<Pick<EntityPlan<T>, "merged" | "toTree" | "toSite" | "conflict">>;

type Equal = (field: string, a: unknown, b: unknown) => boolean;

/**
 * Reconcile one entity: the per-field three-way rule of DESIGN section 4. The plan's merged
 * fields are of the input's type (course or chapter values), and its kind is the input's.
 */
export function reconcileEntity<T extends Fields, K extends Kind>(
  input: EntityInput<T, K>,
  options: ReconcileOptions = {},
): EntityPlan<T, K> {
  const equal: Equal = options.equal ?? ((_f: string, a: unknown, b: unknown) => jsonEqual(a, b));
  const { kind, id, key, base, local } = input;
  // Offline, the site is taken to be as the snapshot left it.
  const remote = input.remoteKnown ? input.remote : base;
  let parts: PlanParts<T>;
  if (id === undefined) {
    // Made locally, never on the site: a create.
    if (!local) throw new Error(`entity ${key} has neither an id nor a local file`);
    parts = { localState: "new", remoteState: "absent", merged: local, toSite: { type: "create" } };
  } else if (!base) {
    parts = reconcileWithoutBase(key, local, remote, input.remoteKnown, equal, options.winner);
  } else {
    parts = reconcileWithBase(base, local, remote, input.remoteKnown, equal, options);
  }
  // Unless said otherwise: nothing to do on either side, nothing merged, no conflict.
  return { kind, id, key, merged: undefined, toTree: NONE, toSite: NONE, conflict: undefined, ...parts };
}

/** The snapshot does not know the entity: compare the two sides directly. */
function reconcileWithoutBase<T extends Fields>(
  key: string,
  local: T | undefined,
  remote: T | undefined,
  remoteKnown: boolean,
  equal: Equal,
  winner: Winner | undefined,
): PlanParts<T> {
  if (local && remote) {
    const differing = changedFields(remote, local, equal);
    if (differing.length === 0) {
      return { localState: "unchanged", remoteState: "unchanged", merged: remote };
    }
    if (winner === "local") {
      return {
        localState: "modified",
        remoteState: "modified",
        merged: local,
        toSite: { type: "update", fields: differing },
      };
    }
    if (winner === "remote") {
      return {
        localState: "modified",
        remoteState: "modified",
        merged: remote,
        toTree: { type: "write", fields: differing },
      };
    }
    return {
      localState: "modified",
      remoteState: "modified",
      conflict: { fields: differing, reason: "no-base" },
    };
  }
  if (remote) {
    return { localState: "absent", remoteState: "new", merged: remote, toTree: { type: "create" } };
  }
  if (local) {
    return {
      localState: "modified",
      remoteState: remoteKnown ? "absent" : "unknown",
      conflict: remoteKnown ? { fields: [], reason: "unknown-id" } : undefined,
    };
  }
  throw new Error(`entity ${key} is on no side`);
}

/** The snapshot knows the entity: each side against the base. */
function reconcileWithBase<T extends Fields>(
  base: T,
  local: T | undefined,
  remote: T | undefined,
  remoteKnown: boolean,
  equal: Equal,
  options: ReconcileOptions,
): PlanParts<T> {
  const localChanged = local ? changedFields(base, local, equal) : [];
  const remoteChanged = remote ? changedFields(base, remote, equal) : [];
  const localState: SideState = !local ? "deleted" : localChanged.length ? "modified" : "unchanged";
  const remoteState: SideState = !remoteKnown
    ? "unknown"
    : !remote
      ? "deleted"
      : remoteChanged.length
        ? "modified"
        : "unchanged";
  const states = { localState, remoteState };
  const winner = options.winner;

  if (!local && !remote) return states;
  if (!remote && local) {
    if (localState === "unchanged" || winner === "remote") return { ...states, toTree: { type: "delete" } };
    if (winner === "local") return { ...states, merged: local, toSite: { type: "create" } };
    return { ...states, conflict: { fields: localChanged, reason: "deleted-remotely-edited-locally" } };
  }
  if (!local && remote) {
    if (remoteChanged.length === 0 || winner === "local") return { ...states, toSite: { type: "delete" } };
    if (winner === "remote") return { ...states, merged: remote, toTree: { type: "create" } };
    return { ...states, conflict: { fields: remoteChanged, reason: "deleted-locally-edited-remotely" } };
  }
  return { ...states, ...mergeBothSides(base, local as T, remote as T, equal, options) };
}

/** Both sides have the entity: merge field by field. */
function mergeBothSides<T extends Fields>(
  base: T,
  l: Fields,
  r: Fields,
  equal: Equal,
  options: ReconcileOptions,
): Partial<PlanParts<T>> {
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
    return { conflict: { fields: conflicting, reason: "both-changed" } };
  }
  const merged: T = { ...base, ...fields };
  const toLocal = changedFields(l, merged, equal);
  const toRemote = changedFields(r, merged, equal);
  return {
    merged,
    toTree: toLocal.length ? { type: "write", fields: toLocal } : NONE,
    toSite: toRemote.length ? { type: "update", fields: toRemote } : NONE,
  };
}
