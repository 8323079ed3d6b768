import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import type { JsonObject } from "../../src/api/wire.js";
import type { Snapshot, SnapshotEntry } from "../../src/sync/state/snapshot-model.js";
import { COMPARE_SHARE, RemoteWatcher, WrittenLog } from "../../src/sync/watch/remote.js";
import { filesBefore, guardSaves, SavedDuringPull } from "../../src/sync/watch/save-guard.js";
import {
  EchoLog,
  NAMED_MAX,
  newEvents,
  oldestFirst,
  readEvent,
  workOf,
} from "../../src/sync/watch/site-events.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const entry = (file: string): SnapshotEntry => ({ path: file, hash: "", record: { id: 0 } });

/** Course 1 in courses/web with chapter 10; course 2 in courses/go with chapter 20. */
const snapshot: Snapshot = {
  version: 1,
  site: "https://x/api/v1",
  courses: { "1": entry("courses/web"), "2": entry("courses/go") },
  chapters: { "10": entry("courses/web/01-intro.md"), "20": entry("courses/go/01-tour.md") },
};

const event = (id: number, type: string, resource: number, extra: JsonObject = {}): JsonObject => ({
  id,
  type,
  resource_id: resource,
  ...extra,
});

describe("the site's events", () => {
  it("reads course and chapter events, leaves other kinds aside, and flags what it cannot place", () => {
    expect(readEvent(event(1, "chapter.updated", 10, { course_id: 1 }))).toEqual({
      kind: "chapter",
      action: "updated",
      id: 10,
      courseId: 1,
    });
    expect(readEvent(event(2, "course.destroyed", 2))).toEqual({ kind: "course", action: "deleted", id: 2 });
    expect(readEvent(event(3, "customer.created", 5))).toBe("other");
    expect(readEvent({ id: 4, type: "chapter.updated" })).toBe("unreadable");
    expect(readEvent({ id: 5 })).toBe("unreadable");
  });

  it("takes the events before the first one seen; none seen on the page is a gap", () => {
    const page = [
      event(5, "chapter.updated", 10),
      event(4, "chapter.updated", 20),
      event(3, "course.updated", 1),
    ];
    expect(newEvents(page, new Set([4, 3]))).toEqual([page[0]]);
    expect(newEvents(page, new Set([5]))).toEqual([]);
    expect(newEvents(page, new Set([1, 2]))).toBeUndefined();
    expect(newEvents([], new Set([1]))).toEqual([]);
    expect(oldestFirst([event(1, "x", 1), event(2, "x", 1)])).toBe(true);
    expect(oldestFirst(page)).toBe(false);
  });

  it("names the records the events touch, with the course folders the last sync filed them in", () => {
    const none = () => false;
    expect(
      workOf(
        [event(3, "chapter.updated", 20), event(2, "chapter.updated", 10, { course_id: 2 })],
        snapshot,
        none,
      ),
    ).toEqual({ kind: "records", courses: [], chapters: [10, 20], folders: ["courses/go", "courses/web"] });
    expect(workOf([event(3, "chapter.created", 30, { course_id: 1 })], snapshot, none)).toEqual({
      kind: "records",
      courses: [],
      chapters: [30],
      folders: ["courses/web"],
    });
    // What the snapshot cannot place is read all the same: its record says where it goes.
    expect(workOf([event(3, "chapter.created", 30)], snapshot, none)).toEqual({
      kind: "records",
      courses: [],
      chapters: [30],
      folders: [],
    });
    expect(workOf([event(3, "course.created", 3), event(2, "course.updated", 1)], snapshot, none)).toEqual({
      kind: "records",
      courses: [1, 3],
      chapters: [],
      folders: ["courses/web"],
    });
    expect(workOf([event(3, "chapter.deleted", 99)], snapshot, none)).toEqual({
      kind: "records",
      courses: [],
      chapters: [99],
      folders: [],
    });
    expect(workOf([event(3, "customer.created", 1)], snapshot, none)).toEqual({ kind: "none" });
  });

  it("beyond NAMED_MAX reads, pulls the folders; a full comparison when one of them cannot be placed", () => {
    const none = () => false;
    const many = Array.from({ length: NAMED_MAX }, (_, i) => event(100 - i, "chapter.updated", 10));
    // The same record named again costs no more reads.
    expect(workOf(many, snapshot, none).kind).toBe("records");
    const known = [
      event(200, "chapter.updated", 10),
      ...Array.from({ length: NAMED_MAX }, (_, i) =>
        event(100 - i, "chapter.created", 1000 + i, { course_id: 2 }),
      ),
    ];
    expect(workOf(known, snapshot, none)).toEqual({
      kind: "folders",
      folders: ["courses/go", "courses/web"],
    });
    expect(workOf([...known, event(1, "course.created", 3)], snapshot, none)).toEqual({
      kind: "full",
      why: "course 3 is new on the site",
    });
    // A deleted course is read with each chapter the last sync filed in it.
    const big: Snapshot = {
      ...snapshot,
      chapters: Object.fromEntries(
        Array.from({ length: NAMED_MAX }, (_, i) => [
          String(200 + i),
          { ...entry(`courses/go/${i}.md`), record: { id: 200 + i, course_id: 2 } },
        ]),
      ),
    };
    expect(workOf([event(1, "course.deleted", 2)], big, none)).toEqual({
      kind: "folders",
      folders: ["courses/go"],
    });
    expect(workOf([event(1, "course.deleted", 1)], big, none).kind).toBe("records");
  });

  it("drops watch's own writes coming back, once each", () => {
    const echoes = new EchoLog();
    echoes.wrote("chapter", 10, "updated");
    const take = (e: Parameters<EchoLog["take"]>[0]) => echoes.take(e);
    const twice = [event(4, "chapter.updated", 10), event(3, "chapter.updated", 10)];
    expect(workOf(twice, snapshot, take)).toEqual({
      kind: "records",
      courses: [],
      chapters: [10],
      folders: ["courses/web"],
    });
    echoes.wrote("chapter", 10, "updated");
    expect(workOf([twice[0]!], snapshot, take)).toEqual({ kind: "none" });
  });
});

describe("the pace of the polls", () => {
  const noEvents = {
    listItems: async () => {
      throw new ApiError({ method: "GET", path: "/api/v1/events", status: 404 });
    },
  };

  it("on a site without events, waits at least COMPARE_SHARE times what the last comparison took", async () => {
    const remote = new RemoteWatcher(noEvents, { pollMs: 10_000 });
    const poll = await remote.poll(async () => snapshot);
    expect(poll.work).toEqual({ kind: "full", why: "start" });
    poll.done();
    expect(remote.nextWait()).toBe(10_000);
    // A comparison that took 5 s: the next poll waits 20 s, not 10.
    remote.compared(5_000);
    expect(remote.nextWait()).toBe(COMPARE_SHARE * 5_000);
    remote.compared(1_000);
    expect(remote.nextWait()).toBe(10_000);
  });

  it("on a site with events, a long comparison does not slow the polls", async () => {
    const remote = new RemoteWatcher({ listItems: async () => ({ records: [], pages: 1, requests: 1 }) });
    (await remote.poll(async () => snapshot)).done();
    remote.compared(60_000);
    expect(remote.nextWait()).toBe(10_000);
  });
});

describe("a save during a pull", () => {
  it("stops the pull before it replaces or removes a file saved since it began", async () => {
    const root = await testdir({ "courses/web/01-a.md": "a\n", "courses/web/02-b.md": "b\n" });
    const folder = path.join(root, "courses/web");
    const a = path.join(folder, "01-a.md");
    const b = path.join(folder, "02-b.md");
    const fs = guardSaves(await filesBefore([folder]));
    // The pull's own writes go through, and what it wrote is the file's version from then on.
    await fs.writeFile(`${a}.tmp`, "a, pulled\n");
    await fs.rename(`${a}.tmp`, a);
    await fs.writeFile(`${a}.tmp`, "a, pulled again\n");
    await fs.rename(`${a}.tmp`, a);
    expect(await readFile(a, "utf8")).toBe("a, pulled again\n");
    // The author saves b: neither a write over it nor its removal goes through.
    await writeFile(b, "b, saved meanwhile, longer\n");
    await fs.writeFile(`${b}.tmp`, "b, pulled\n");
    await expect(fs.rename(`${b}.tmp`, b)).rejects.toBeInstanceOf(SavedDuringPull);
    await expect(fs.rm(b)).rejects.toBeInstanceOf(SavedDuringPull);
    expect(await readFile(b, "utf8")).toBe("b, saved meanwhile, longer\n");
    // The stop names what the pull had written: the watcher takes those for the pull's, not saves.
    const stop = await fs.rm(b).catch((error: unknown) => error);
    expect(stop).toBeInstanceOf(SavedDuringPull);
    expect((stop as SavedDuringPull).written).toContain(a);
    expect((stop as SavedDuringPull).written).not.toContain(b);
    const log = new WrittenLog(root);
    await log.recordFiles((stop as SavedDuringPull).written);
    expect(await log.ours("courses/web/01-a.md")).toBe(true);
    expect(await log.ours("courses/web/02-b.md")).toBe(false);
  });
});
