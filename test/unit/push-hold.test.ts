import { describe, expect, it } from "vitest";
import type { ChapterValues, CourseValues } from "../../src/sync/model/entities.js";
import type { Change } from "../../src/sync/model/report.js";
import { holdDependents } from "../../src/sync/push/hold.js";
import type { PushOp } from "../../src/sync/push/plan.js";
import type { Snapshot } from "../../src/sync/state/snapshot-model.js";

/** A snapshot knowing course 1 with chapters 10 and 11, and course 2 with chapter 20. */
const SNAPSHOT: Snapshot = {
  version: 1,
  site: "https://site.test/api/v1",
  courses: {
    1: { path: "courses/web", hash: "h", record: { id: 1 } },
    2: { path: "courses/go", hash: "h", record: { id: 2 } },
  },
  chapters: {
    10: { path: "courses/web/01-a.md", hash: "h", record: { id: 10, course_id: 1 } },
    11: { path: "courses/web/02-b.md", hash: "h", record: { id: 11, course_id: 1 } },
    20: { path: "courses/go/01-c.md", hash: "h", record: { id: 20, course_id: 2 } },
  },
};

const newCourse: PushOp = {
  type: "create",
  kind: "course",
  key: "course:new:courses/new",
  path: "courses/new",
  values: { title: "New" } as CourseValues,
};
const chapterInNew: PushOp = {
  type: "create",
  kind: "chapter",
  key: "chapter:new:courses/new/01-x.md",
  path: "courses/new/01-x.md",
  values: { title: "X", ordinal: 1 } as ChapterValues,
  courseKey: newCourse.key,
};
const chapterInWeb: PushOp = {
  type: "create",
  kind: "chapter",
  key: "chapter:new:courses/web/03-y.md",
  path: "courses/web/03-y.md",
  values: { title: "Y", ordinal: 3 } as ChapterValues,
  courseKey: "course:1",
};
const update = (kind: "course" | "chapter", id: number, fields: string[], courseKey?: string): PushOp => ({
  type: "update",
  kind,
  id,
  key: `${kind}:${id}`,
  path: `${kind}-${id}`,
  fields,
  courseKey,
  diff: [],
});
const remove = (kind: "course" | "chapter", id: number): PushOp => ({
  type: "delete",
  kind,
  id,
  key: `${kind}:${id}`,
  path: `${kind}-${id}`,
});
const conflict = (op: PushOp): [string, Change] => [
  op.key,
  {
    kind: op.kind,
    id: op.type === "create" ? undefined : op.id,
    path: op.path,
    outcome: "conflict",
    reason: "r",
    resolve: "pull",
  },
];

const keys = (ops: readonly PushOp[]) => ops.map((op) => op.key);

describe("holdDependents: one conflict holds one record, and what cannot go without it", () => {
  it("holds a chapter created in, or moved into, a new course that is held; a create in a course the site has goes", () => {
    const moveIn = update("chapter", 20, ["course_id"], newCourse.key);
    const ops = [newCourse, chapterInNew, chapterInWeb, moveIn];
    const { send, held } = holdDependents(ops, new Map([conflict(newCourse)]), SNAPSHOT);
    expect(keys(send)).toEqual([chapterInWeb.key]);
    expect(held.map((h) => [h.op.key, h.change.outcome, h.change.heldBy])).toEqual([
      [newCourse.key, "conflict", undefined],
      [chapterInNew.key, "skipped", "courses/new"],
      [moveIn.key, "skipped", "courses/new"],
    ]);
    expect(held[1]?.change.reason).toBe("held with new course (courses/new), which is in conflict");
    expect(held[1]?.change.resolve).toBe("resolve courses/new first: pull");
  });

  it("holds a course delete when a write taking one of its chapters out of it is held, not otherwise", () => {
    const ops = [
      remove("chapter", 10),
      remove("chapter", 11),
      remove("chapter", 20),
      remove("course", 1),
      remove("course", 2),
    ];
    const { send, held } = holdDependents(ops, new Map([conflict(ops[0]!)]), SNAPSHOT);
    expect(keys(send)).toEqual(["chapter:11", "chapter:20", "course:2"]);
    expect(keys(held.map((h) => h.op))).toEqual(["chapter:10", "course:1"]);

    const moveOut = update("chapter", 11, ["course_id"], "course:2");
    const moved = holdDependents([moveOut, remove("course", 1)], new Map([conflict(moveOut)]), SNAPSHOT);
    expect(keys(moved.send)).toEqual([]);
  });

  it("a course whose own fields are in conflict holds nothing else: its chapters' updates and creates go", () => {
    const course = update("course", 1, ["excerpt"]);
    const ops = [chapterInWeb, course, update("chapter", 10, ["title"], "course:1")];
    const { send, held } = holdDependents(ops, new Map([conflict(course)]), SNAPSHOT);
    expect(keys(send)).toEqual([chapterInWeb.key, "chapter:10"]);
    expect(keys(held.map((h) => h.op))).toEqual(["course:1"]);
  });
});
