import { describe, expect, it } from "vitest";
import type { EventRecord, StateDump } from "../../src/emulator/server.js";
import { manualClock, type TestEmulator, useEmulators } from "../helpers/emulator.js";

const start = useEmulators();

const course = (title: string) => ({ json: { course: { title } } });
const chapter = (course_id: number, title: string, ordinal?: number) => ({
  json: { chapter: { course_id, title, ...(ordinal === undefined ? {} : { ordinal }) } },
});

/** Every event GET /events serves, page after page, newest first. */
async function allEvents(emulator: TestEmulator): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  for (let page = 1; ; page++) {
    const answer = await emulator.api("GET", `/events?page=${page}`);
    expect(answer.status).toBe(200);
    const items = answer.body as EventRecord[];
    if (items.length === 0) return events;
    events.push(...items);
  }
}

const brief = (events: EventRecord[]) =>
  events.map((e) => [e.type, e.resource_id, e.course_id ?? null] as const).reverse();

describe("events feed", () => {
  it("records one event per record changed, through the API and the control routes alike", async () => {
    const clock = manualClock();
    const emulator = await start({ admin: true, now: clock.now, pageSize: 4 });
    await emulator.api("POST", "/courses", course("A"));
    await emulator.api("POST", "/courses", course("B"));
    await emulator.api("POST", "/chapters", chapter(1, "One"));
    await emulator.api("POST", "/chapters", chapter(1, "Two"));
    clock.advance(1000);
    await emulator.api("PATCH", "/chapters/2", { json: { chapter: { course_id: 2 } } });
    await emulator.admin("POST", "/edit", { resource: "chapters", id: 1, fields: { title: "Theirs" } });
    await emulator.admin("POST", "/edit", { resource: "courses", id: 2, fields: { excerpt: "x" } });
    await emulator.admin("POST", "/delete", { resource: "courses", id: 2 });
    await emulator.api("DELETE", "/chapters/1");
    const events = await allEvents(emulator);
    expect(brief(events)).toEqual([
      ["course.created", 1, null],
      ["course.created", 2, null],
      ["chapter.created", 1, 1],
      ["chapter.created", 2, 1],
      // A move names the course the chapter went to.
      ["chapter.updated", 2, 2],
      ["chapter.updated", 1, 1],
      ["course.updated", 2, null],
      ["chapter.deleted", 2, 2],
      ["course.deleted", 2, null],
      ["chapter.deleted", 1, 1],
    ]);
    expect(events.map((e) => e.id)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(events).toEqual([...emulator.state.dump().events].reverse());
  });

  it("dates an update's event with the updated_at it gave the record", async () => {
    const clock = manualClock("2026-03-01T09:30:00.000Z");
    const emulator = await start({ admin: true, now: clock.now });
    await emulator.api("POST", "/courses", course("A"));
    // The clock stands still: each update still moves updated_at on by 1 ms, and its event too.
    await emulator.api("PATCH", "/courses/1", { json: { course: { title: "B" } } });
    await emulator.admin("POST", "/edit", { resource: "courses", id: 1, fields: { title: "C" } });
    const [edit, patch] = await allEvents(emulator);
    expect(patch?.created_at).toBe("2026-03-01T09:30:00.001+00:00");
    expect(edit?.created_at).toBe("2026-03-01T09:30:00.002+00:00");
    expect(emulator.state.get("courses", 1)?.updated_at).toBe(edit?.created_at);
  });
});

describe("events: false", () => {
  it("answers GET /events 404 as an unknown path, and records none", async () => {
    const emulator = await start({ admin: true, events: false });
    expect((await emulator.api("POST", "/courses", course("A"))).status).toBe(201);
    await emulator.admin("POST", "/edit", { resource: "courses", id: 1, fields: { title: "B" } });
    const events = await emulator.api("GET", "/events");
    const unknown = await emulator.api("GET", "/nothing-here");
    expect(events.status).toBe(404);
    expect([events.body, events.headers.get("content-type")]).toEqual([
      unknown.body,
      unknown.headers.get("content-type"),
    ]);
    expect(events.body).toEqual({ error: "Not found" });
    expect((await emulator.api("GET", "/events?page=2")).status).toBe(404);
    expect(emulator.state.dump().events).toEqual([]);
    expect((await emulator.api("GET", "/courses/1")).body).toMatchObject({ title: "B" });
  });
});

describe("eventsKept", () => {
  it("keeps the newest N events; paging and totals count only those, ids go on", async () => {
    const emulator = await start({ eventsKept: 3, pageSize: 2, pagingHeaders: "total" });
    for (const title of ["A", "B", "C", "D", "E"]) await emulator.api("POST", "/courses", course(title));
    const first = await emulator.api("GET", "/events");
    expect((first.body as EventRecord[]).map((e) => e.id)).toEqual([5, 4]);
    expect([first.headers.get("x-total-count"), first.headers.get("x-total-pages")]).toEqual(["3", "2"]);
    expect(((await emulator.api("GET", "/events?page=2")).body as EventRecord[]).map((e) => e.id)).toEqual([
      3,
    ]);
    expect((await emulator.api("GET", "/events?page=3")).body).toEqual([]);
    expect(emulator.state.dump().events.map((e) => e.id)).toEqual([3, 4, 5]);

    // A reader that last saw event 3 finds it gone once two more changes come: a gap.
    await emulator.api("PATCH", "/courses/1", { json: { course: { title: "A2" } } });
    await emulator.api("DELETE", "/courses/2");
    expect((await allEvents(emulator)).map((e) => e.id)).toEqual([7, 6, 5]);
  });

  it("applies to a state given to reset too, and the next id stays above every one given", async () => {
    const emulator = await start({ admin: true, eventsKept: 2 });
    const at = "2026-03-01T09:30:00.000+00:00";
    const given: StateDump = {
      courses: [],
      chapters: [],
      events: [9, 3, 7, 1].map((id) => ({ id, type: "course.created", resource_id: id, created_at: at })),
    };
    expect((await emulator.admin("POST", "/reset", given)).body).toMatchObject({ events: 2 });
    expect(emulator.state.dump().events.map((e) => e.id)).toEqual([7, 9]);
    await emulator.api("POST", "/courses", course("New"));
    expect((await allEvents(emulator)).map((e) => e.id)).toEqual([10, 9]);
  });

  it("must be a whole number, 1 or more", async () => {
    await expect(start({ eventsKept: 0 })).rejects.toThrow(/eventsKept/);
    await expect(start({ eventsKept: 1.5 })).rejects.toThrow(/eventsKept/);
  });
});

describe("silent changes", () => {
  it("an edit with silent: true bumps updated_at and records no event", async () => {
    const clock = manualClock("2026-03-01T09:30:00.000Z");
    const emulator = await start({ admin: true, now: clock.now });
    await emulator.api("POST", "/courses", course("A"));
    clock.advance(5000);
    const edited = await emulator.admin("POST", "/edit", {
      resource: "courses",
      id: 1,
      fields: { title: "Quietly" },
      silent: true,
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ title: "Quietly", updated_at: "2026-03-01T09:30:05.000+00:00" });
    expect(brief(await allEvents(emulator))).toEqual([["course.created", 1, null]]);
    const wrong = await emulator.admin("POST", "/edit", {
      resource: "courses",
      id: 1,
      fields: {},
      silent: 1,
    });
    expect(wrong.status).toBe(422);
    expect(Object.keys((wrong.body as { errors: object }).errors)).toEqual(["silent"]);
  });

  it("renumber puts a course's chapters 1, 2, 3… as acts_as_list does, bumping only those moved, no event", async () => {
    const clock = manualClock("2026-03-01T09:30:00.000Z");
    const emulator = await start({ admin: true, now: clock.now });
    await emulator.api("POST", "/courses", course("A"));
    await emulator.api("POST", "/courses", course("B"));
    for (const [title, ordinal] of [
      ["One", 1],
      ["Five", 5],
      ["Nine", 9],
    ] as const) {
      await emulator.api("POST", "/chapters", chapter(1, title, ordinal));
    }
    await emulator.api("POST", "/chapters", chapter(2, "Other", 7));
    const before = emulator.state.dump();
    clock.advance(60_000);
    const moved = "2026-03-01T09:31:00.000+00:00";

    const closed = await emulator.admin("POST", "/renumber", { course_id: 1 });
    expect(closed.status).toBe(200);
    expect((closed.body as Array<{ id: number; ordinal: number }>).map((c) => [c.id, c.ordinal])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    const shown = async (id: number) =>
      (await emulator.api("GET", `/chapters/${id}`)).body as { ordinal: number; updated_at: string };
    expect(await shown(1)).toEqual(before.chapters[0]);
    expect(await shown(2)).toMatchObject({ ordinal: 2, updated_at: moved });
    expect(await shown(3)).toMatchObject({ ordinal: 3, updated_at: moved });
    expect(await shown(4)).toEqual(before.chapters[3]);

    const ordered = await emulator.admin("POST", "/renumber", { course_id: 1, order: [3] });
    expect((ordered.body as Array<{ id: number }>).map((c) => c.id)).toEqual([3, 1, 2]);
    expect((await shown(1)).ordinal).toBe(2);
    expect(emulator.state.dump().events).toEqual(before.events);
    expect((await allEvents(emulator)).length).toBe(6);
  });

  it("renumber refuses an unknown course (404) and an order naming another course's chapter (422)", async () => {
    const emulator = await start({ admin: true });
    await emulator.api("POST", "/courses", course("A"));
    await emulator.api("POST", "/courses", course("B"));
    await emulator.api("POST", "/chapters", chapter(1, "One"));
    await emulator.api("POST", "/chapters", chapter(2, "Other"));
    expect((await emulator.admin("POST", "/renumber", { course_id: 9 })).status).toBe(404);
    const foreign = await emulator.admin("POST", "/renumber", { course_id: 1, order: [2] });
    expect(foreign.status).toBe(422);
    expect(foreign.body).toEqual({ errors: { order: ["2 is not a chapter of this course"] } });
    const twice = await emulator.admin("POST", "/renumber", { course_id: 1, order: [1, 1] });
    expect(twice.body).toEqual({ errors: { order: ["1 appears twice"] } });
    const bad = await emulator.admin("POST", "/renumber", { course_id: "1", order: "1" });
    expect(Object.keys((bad.body as { errors: object }).errors).sort()).toEqual(["course_id", "order"]);
    // The same in-process, for tests that change the site between requests.
    expect(emulator.state.renumber(1, [1])).toMatchObject({ kind: "ok", value: [{ id: 1, ordinal: 1 }] });
  });
});
