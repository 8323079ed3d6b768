import { describe, expect, it } from "vitest";
import type { Resource, WireRecord } from "../../src/api/wire.js";
import type { LocalView } from "../../src/sync/local/view.js";
import type { Change } from "../../src/sync/model/report.js";
import type { Held } from "../../src/sync/pull/held.js";
import {
  confirmUnlisted,
  listingMoved,
  planConfirmingDeletes,
  unlistedRecords,
} from "../../src/sync/pull/unlisted.js";
import type { Snapshot, SnapshotEntry } from "../../src/sync/state/snapshot-model.js";

const entry = (path: string, record: WireRecord): SnapshotEntry => ({ path, hash: "h", record });

/** Courses 1 and 2; chapters 10, 11 (course 1) and 20, 21 (course 2). */
const base: Snapshot = {
  version: 1,
  site: "https://example.com/api/v1",
  courses: { 1: entry("courses/one", { id: 1 }), 2: entry("courses/two", { id: 2 }) },
  chapters: {
    10: entry("courses/one/01-a.md", { id: 10, course_id: 1 }),
    11: entry("courses/one/02-b.md", { id: 11, course_id: 1 }),
    20: entry("courses/two/01-c.md", { id: 20, course_id: 2 }),
    21: entry("courses/two/02-d.md", { id: 21, course_id: 2 }),
  },
};

const noLocal = { courses: new Map(), chapters: new Map() } as unknown as LocalView;

/** A reader that answers the records `live` holds and 404 for the rest, and counts its reads. */
function reader(live: Record<Resource, number[]>) {
  const asked: string[] = [];
  return {
    asked,
    get: async (resource: Resource, id: number | string) => {
      asked.push(`${resource}/${id}`);
      return live[resource].includes(Number(id)) ? { id: Number(id) } : undefined;
    },
  };
}

describe("unlistedRecords", () => {
  it("names the unlisted records the plan deletes, drops, or calls deleted on the site; not those it leaves alone", () => {
    const plan = {
      // Course 2 and chapter 20 dropped; chapter 21 kept as a conflict; chapter 11 kept
      // untouched (held, or out of scope): no read for it.
      snapshot: {
        courses: { 1: base.courses[1]! },
        chapters: { 11: base.chapters[11]!, 21: base.chapters[21]! },
      },
      changes: [{ kind: "chapter", id: 21, path: "courses/two/02-d.md", outcome: "conflict" }] as Change[],
    };
    const listed = { courses: [{ id: 1 }], chapters: [{ id: 10 }] };
    expect(unlistedRecords(base, listed, plan)).toEqual({ courses: [2], chapters: [20, 21] });
  });

  it("names nothing when everything is listed, or there is no snapshot", () => {
    const listed = { courses: [{ id: 1 }, { id: 2 }], chapters: [10, 11, 20, 21].map((id) => ({ id })) };
    const plan = { snapshot: { courses: {}, chapters: {} }, changes: [] };
    expect(unlistedRecords(base, listed, plan)).toEqual({ courses: [], chapters: [] });
    expect(unlistedRecords(undefined, { courses: [], chapters: [] }, plan)).toEqual({
      courses: [],
      chapters: [],
    });
  });
});

describe("confirmUnlisted", () => {
  const courseOf = (id: number) => base.chapters[id]?.record.course_id as number | undefined;

  it("reads each record once; a chapter of a course that is gone is gone without a read", async () => {
    const site = reader({ courses: [], chapters: [11] });
    const confirmed = await confirmUnlisted({ courses: [2], chapters: [11, 20, 21] }, site, courseOf);
    expect(site.asked.sort()).toEqual(["chapters/11", "courses/2"]);
    expect(confirmed).toEqual({
      live: { courses: [], chapters: [11] },
      gone: { courses: [2], chapters: [20, 21] },
      reads: 2,
    });
  });

  it("reads the chapters of an unlisted course that is still there", async () => {
    const site = reader({ courses: [2], chapters: [21] });
    const confirmed = await confirmUnlisted({ courses: [2], chapters: [20, 21] }, site, courseOf);
    expect(site.asked.sort()).toEqual(["chapters/20", "chapters/21", "courses/2"]);
    expect(confirmed.live).toEqual({ courses: [2], chapters: [21] });
    expect(confirmed.gone).toEqual({ courses: [], chapters: [20] });
  });
});

describe("listingMoved", () => {
  const where = (kind: "course" | "chapter", id: number) => `${kind}-${id}`;

  it("is undefined when every unlisted record is gone: the listing was whole", () => {
    const gone = { courses: [2], chapters: [20] };
    expect(listingMoved({ live: { courses: [], chapters: [] }, gone }, where)).toBeUndefined();
  });

  it("names what the listing missed and the deletes that wait", () => {
    const moved = listingMoved(
      { live: { courses: [], chapters: [11] }, gone: { courses: [2], chapters: [20] } },
      where,
    );
    expect(moved).toEqual({
      missed: [{ kind: "chapter", id: 11, path: "chapter-11" }],
      waiting: [
        { kind: "course", id: 2, path: "course-2" },
        { kind: "chapter", id: 20, path: "chapter-20" },
      ],
    });
  });
});

describe("planConfirmingDeletes", () => {
  /** A planner that drops every unlisted entry, and remembers what it was asked to hold. */
  function planner() {
    const calls: { held: Held; kept: (file: string) => boolean }[] = [];
    const plan = (held: Held, select: ((file: string) => boolean) | undefined) => {
      calls.push({ held, kept: (file) => select?.(file) ?? true });
      return { snapshot: { ...base, chapters: { 10: base.chapters[10]! } }, changes: [] as Change[] };
    };
    return { calls, plan };
  }
  const listed = { courses: [{ id: 1 }, { id: 2 }], chapters: [{ id: 10 }] };
  const none: Held = { courses: new Set(), chapters: new Set([99]) };

  it("keeps the plan when every record it deletes is gone", async () => {
    const { calls, plan } = planner();
    const site = reader({ courses: [], chapters: [] });
    const out = await planConfirmingDeletes(plan, none, undefined, {
      base,
      listed,
      reader: site,
      local: noLocal,
    });
    expect(calls).toHaveLength(1);
    expect(out.check).toEqual({ moved: undefined, reads: 3 });
  });

  it("plans again holding every unlisted record, live or gone, and keeping their files out of reach", async () => {
    const { calls, plan } = planner();
    const site = reader({ courses: [], chapters: [20] });
    const out = await planConfirmingDeletes(plan, none, (file) => file !== "elsewhere.md", {
      base,
      listed,
      reader: site,
      local: noLocal,
    });
    expect(out.check.moved?.missed).toEqual([{ kind: "chapter", id: 20, path: "courses/two/01-c.md" }]);
    expect(calls).toHaveLength(2);
    const again = calls[1]!;
    expect([...again.held.chapters].sort()).toEqual([11, 20, 21, 99]);
    expect(again.kept("courses/one/02-b.md")).toBe(false);
    expect(again.kept("courses/one/01-a.md")).toBe(true);
    // The selection given still holds.
    expect(again.kept("elsewhere.md")).toBe(false);
  });
});
