import { diffArrays } from "diff";

/** A stretch of a three-way merge: items both sides agree on, or the three sides of a conflict. */
export type Region<T> =
  | { kind: "ok"; items: T[] }
  | {
      kind: "conflict";
      base: T[];
      local: T[];
      remote: T[];
      localStart: number;
      remoteStart: number;
      baseStart: number;
    };

/** One side's change: base items [baseStart, baseEnd) became that side's [sideStart, sideEnd). */
interface Hunk {
  side: "local" | "remote";
  baseStart: number;
  baseEnd: number;
  sideStart: number;
  sideEnd: number;
}

/**
 * Past this much work (Myers: the lengths times the edit distance) a two-way diff gives up and the
 * sides become one conflict: a bound on the time a body rewritten throughout can take (about 0.1 s).
 */
const MAX_WORK = 100_000_000;

/** The changes from base to one side (jsdiff's Myers diff), or undefined when it gave up. */
function hunks<T>(base: T[], side: T[], name: Hunk["side"]): Hunk[] | undefined {
  const maxEditLength = Math.max(50, Math.floor(MAX_WORK / (base.length + side.length + 1)));
  const changes = diffArrays(base, side, { maxEditLength });
  if (changes === undefined) return undefined;
  const out: Hunk[] = [];
  let b = 0;
  let s = 0;
  let changing = false;
  for (const change of changes) {
    if (!change.added && !change.removed) {
      b += change.count;
      s += change.count;
      changing = false;
      continue;
    }
    // jsdiff splits a replacement into a removal and an addition: one hunk.
    if (!changing) out.push({ side: name, baseStart: b, baseEnd: b, sideStart: s, sideEnd: s });
    changing = true;
    const hunk = out.at(-1)!;
    if (change.removed) hunk.baseEnd = b += change.count;
    else hunk.sideEnd = s += change.count;
  }
  return out;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** One side's items over base [start, end), given its hunks there (none: the base's own items). */
function sideSpan<T>(base: T[], side: T[], own: Hunk[], start: number, end: number): [number, T[]] {
  const first = own[0];
  const last = own.at(-1);
  if (first === undefined || last === undefined) return [start, base.slice(start, end)];
  // Outside its hunks a side holds the base's items one for one.
  const from = first.sideStart - (first.baseStart - start);
  return [from, side.slice(from, last.sideEnd + (end - last.baseEnd))];
}

/** A group of touching hunks over base [start, end): one side's items, or a conflict. */
function settle<T>(base: T[], local: T[], remote: T[], group: Hunk[], start: number, end: number): Region<T> {
  const mine = group.filter((h) => h.side === "local");
  const theirs = group.filter((h) => h.side === "remote");
  const [localStart, localItems] = sideSpan(base, local, mine, start, end);
  const [remoteStart, remoteItems] = sideSpan(base, remote, theirs, start, end);
  if (theirs.length === 0) return { kind: "ok", items: localItems };
  if (mine.length === 0 || sameItems(localItems, remoteItems)) return { kind: "ok", items: remoteItems };
  const baseItems = base.slice(start, end);
  return {
    kind: "conflict",
    base: baseItems,
    local: localItems,
    remote: remoteItems,
    localStart,
    remoteStart,
    baseStart: start,
  };
}

/**
 * Three-way merge of sequences (diff3's regions over jsdiff's two-way diffs). Changes of the two
 * sides are independent only when at least one unchanged `anchor` item of the base lies between
 * them; changes that overlap or touch, or have only non-anchors between them, are one region,
 * a conflict unless both sides made it alike.
 */
export function mergeSequences<T>(
  base: T[],
  local: T[],
  remote: T[],
  anchor: (item: T) => boolean = () => true,
): Region<T>[] {
  const mine = hunks(base, local, "local");
  const theirs = hunks(base, remote, "remote");
  if (mine === undefined || theirs === undefined) {
    return [{ kind: "conflict", base, local, remote, localStart: 0, remoteStart: 0, baseStart: 0 }];
  }
  // anchorsBefore[i]: anchors among base[0, i), so the anchors in a gap cost one subtraction.
  const anchorsBefore = [0];
  for (const item of base) anchorsBefore.push(anchorsBefore.at(-1)! + (anchor(item) ? 1 : 0));
  const separated = (end: number, next: number) => next > end && anchorsBefore[next]! > anchorsBefore[end]!;
  const all = [...mine, ...theirs].sort((x, y) => x.baseStart - y.baseStart);
  const out: Region<T>[] = [];
  let done = 0;
  for (let i = 0; i < all.length; ) {
    const group = [all[i++]!];
    const start = group[0]!.baseStart;
    let end = group[0]!.baseEnd;
    while (i < all.length && !separated(end, all[i]!.baseStart)) {
      end = Math.max(end, all[i]!.baseEnd);
      group.push(all[i++]!);
    }
    if (start > done) out.push({ kind: "ok", items: base.slice(done, start) });
    out.push(settle(base, local, remote, group, start, end));
    done = end;
  }
  if (done < base.length) out.push({ kind: "ok", items: base.slice(done) });
  return out;
}

/** How one side lines up with the base: where each of its items stands, and what it deleted. */
export interface Alignment {
  /** For each item of the side: its base index when kept, else the base index it was inserted at. */
  at: number[];
  /** For each item of the side: whether it is a base item kept. */
  kept: boolean[];
  /** For each base item: whether the side deleted (or replaced) it. */
  deleted: boolean[];
}

/** The side's items against the base's (the diff `mergeSequences` merges by), or undefined when it gave up. */
export function alignment<T>(base: T[], side: T[]): Alignment | undefined {
  const changes = hunks(base, side, "local");
  if (changes === undefined) return undefined;
  const out: Alignment = { at: [], kept: [], deleted: base.map(() => false) };
  let b = 0;
  const keep = (until: number) => {
    for (let s = out.at.length; s < until; s++) {
      out.at.push(b++);
      out.kept.push(true);
    }
  };
  for (const hunk of changes) {
    keep(hunk.sideStart);
    for (let s = hunk.sideStart; s < hunk.sideEnd; s++) {
      out.at.push(hunk.baseStart);
      out.kept.push(false);
    }
    for (let i = hunk.baseStart; i < hunk.baseEnd; i++) out.deleted[i] = true;
    b = hunk.baseEnd;
  }
  keep(side.length);
  return out;
}
