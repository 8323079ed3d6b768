import { describe, expect, it } from "vitest";
import type { StateDump } from "../../src/emulator/server.js";
import { call, manualClock, useEmulators } from "../helpers/emulator.js";

const start = useEmulators();

const newCourse = (title: string) => ({ json: { course: { title } } });

describe("control routes", () => {
  it("GET /__admin/ lists every route with its method and body, and each one listed is served", async () => {
    const emulator = await start({ admin: true });
    const index = await emulator.admin("GET", "/");
    expect(index.status).toBe(200);
    const routes = (
      index.body as { routes: Array<{ method: string; path: string; body?: string; does: string }> }
    ).routes;
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /__admin/",
      "POST /__admin/reset",
      "GET /__admin/state",
      "GET /__admin/requests",
      "DELETE /__admin/requests",
      "POST /__admin/edit",
      "POST /__admin/renumber",
      "POST /__admin/delete",
      "GET /__admin/faults",
      "POST /__admin/faults",
      "POST /__admin/expire-tokens",
    ]);
    expect(routes.find((r) => r.path === "/__admin/edit")?.body).toMatch(/resource.*id.*fields/);
    for (const route of routes) {
      expect(route.does.length, route.path).toBeGreaterThan(0);
      const answer = await emulator.admin(route.method, route.path.slice("/__admin".length));
      expect(answer.status, `${route.method} ${route.path}`).not.toBe(404);
    }
    expect((await emulator.admin("GET", "")).status).toBe(200);
  });

  it("are not served unless admin is on", async () => {
    const emulator = await start();
    for (const [method, path] of [
      ["GET", "/state"],
      ["POST", "/reset"],
      ["GET", "/requests"],
      ["POST", "/faults"],
    ] as const) {
      const response = await emulator.admin(method, path, method === "POST" ? {} : undefined);
      expect(response.status, path).toBe(404);
    }
    expect(emulator.state.requests).toEqual([]);
  });

  it("dump the whole state: courses, chapters, events", async () => {
    const emulator = await start({ admin: true, now: manualClock().now });
    await emulator.api("POST", "/courses", newCourse("A"));
    await emulator.api("POST", "/chapters", { json: { chapter: { course_id: 1, title: "C" } } });
    const state = await emulator.admin("GET", "/state");
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({
      courses: [{ id: 1, title: "A" }],
      chapters: [{ id: 1, course_id: 1, title: "C" }],
      events: [
        { id: 1, type: "course.created" },
        { id: 2, type: "chapter.created" },
      ],
    });
    expect(state.body).toEqual(emulator.state.dump());
  });

  it("reset to the starting state, or to a state given in the body with id counters above it", async () => {
    const emulator = await start({ admin: true });
    await emulator.api("POST", "/courses", newCourse("Gone after reset"));
    const reset = await emulator.admin("POST", "/reset");
    expect(reset.status).toBe(200);
    expect(emulator.state.dump()).toEqual({ courses: [], chapters: [], events: [] });

    const given: StateDump = {
      courses: [
        {
          id: 40,
          title: "Given",
          slug: "given",
          status: "scheduled",
          created_at: "2025-01-01T00:00:00.000+02:00",
          updated_at: "2025-01-01T00:00:00.000+02:00",
          scheduled_at: "2026-01-01T00:00:00.000+02:00",
          published_at: null,
          excerpt: "x",
          free: true,
          questions_enabled: false,
          legacy_code: "L-1",
        },
      ],
      chapters: [
        {
          id: 7,
          course_id: 40,
          title: "Seven",
          content: "<p>7</p>",
          created_at: "2025-01-01T00:00:00.000+02:00",
          updated_at: "2025-01-01T00:00:00.000+02:00",
          ordinal: 3,
        },
      ],
      events: [
        { id: 12, type: "course.created", resource_id: 40, created_at: "2025-01-01T00:00:00.000+02:00" },
      ],
    };
    expect((await emulator.admin("POST", "/reset", given)).body).toEqual({
      courses: 1,
      chapters: 1,
      events: 1,
    });
    expect((await emulator.api("GET", "/courses/40")).body).toEqual(given.courses[0]);
    const course = await emulator.api("POST", "/courses", newCourse("Given"));
    const chapter = await emulator.api("POST", "/chapters", {
      json: { chapter: { course_id: 40, title: "Next" } },
    });
    expect(course.body).toMatchObject({ id: 41, slug: "given-2" });
    expect(chapter.body).toMatchObject({ id: 8, ordinal: 4 });
    expect(((await emulator.api("GET", "/events")).body as Array<{ id: number }>).map((e) => e.id)).toEqual([
      14, 13, 12,
    ]);

    const bad = await emulator.admin("POST", "/reset", { courses: [{ title: "no id" }] });
    expect(bad.status).toBe(422);
    const orphan = await emulator.admin("POST", "/reset", {
      courses: [],
      chapters: [{ id: 1, course_id: 5 }],
    });
    expect(orphan.status).toBe(422);
  });

  it("serve the request log without secrets, and clear it", async () => {
    const emulator = await start({ admin: true });
    await call(`${emulator.loginUrl}?email=demo@example.com&password=coursesync`, "POST");
    await emulator.api("GET", "/courses?page=2");
    await emulator.api("GET", "/courses/9");
    await emulator.admin("GET", "/state");
    const log = await emulator.admin("GET", "/requests");
    expect(log.body).toEqual([
      { method: "POST", path: "/api/login", query: "email=[redacted]&password=[redacted]", status: 200 },
      { method: "GET", path: "/api/v1/courses", query: "page=2", status: 200 },
      { method: "GET", path: "/api/v1/courses/9", query: "", status: 404 },
    ]);
    expect(log.text).not.toContain("coursesync");
    expect(emulator.state.requests).toEqual(log.body);
    expect((await emulator.admin("DELETE", "/requests")).status).toBe(204);
    expect((await emulator.admin("GET", "/requests")).body).toEqual([]);
  });

  it("edit a record as another user: any fields, extra ones served too, updated_at bumped, an event added", async () => {
    const clock = manualClock("2026-03-01T09:30:00.000Z");
    const emulator = await start({ admin: true, now: clock.now });
    await emulator.api("POST", "/courses", newCourse("Mine"));
    clock.advance(5000);
    const edited = await emulator.admin("POST", "/edit", {
      resource: "courses",
      id: 1,
      fields: { title: "Theirs", status: "archived", color: "blue" },
    });
    expect(edited.status).toBe(200);
    const shown = (await emulator.api("GET", "/courses/1")).body as Record<string, unknown>;
    expect(shown).toMatchObject({
      title: "Theirs",
      status: "archived",
      color: "blue",
      slug: "mine",
      updated_at: "2026-03-01T09:30:05.000+00:00",
    });
    expect(Object.keys(shown).at(-1)).toBe("color");
    expect(((await emulator.api("GET", "/events")).body as Array<{ type: string }>)[0]).toMatchObject({
      type: "course.updated",
      resource_id: 1,
    });
    await emulator.admin("POST", "/edit", { resource: "courses", id: 1, fields: { status: 1 } });
    expect(emulator.state.get("courses", 1)?.status).toBe("published");
    const odd = "2026-03-01T11:30:05.123+02:00";
    await emulator.admin("POST", "/edit", { resource: "courses", id: 1, fields: { updated_at: odd } });
    expect(emulator.state.get("courses", 1)?.updated_at).toBe(odd);

    expect((await emulator.admin("POST", "/edit", { resource: "courses", id: 9, fields: {} })).status).toBe(
      404,
    );
    expect((await emulator.admin("POST", "/edit", { resource: "users", id: 1, fields: {} })).status).toBe(
      422,
    );
    expect(
      (await emulator.admin("POST", "/edit", { resource: "courses", id: 1, fields: { id: 2 } })).status,
    ).toBe(422);
  });

  it("delete a record as another user, a course with its chapters", async () => {
    const emulator = await start({ admin: true });
    await emulator.api("POST", "/courses", newCourse("A"));
    await emulator.api("POST", "/chapters", { json: { chapter: { course_id: 1, title: "C" } } });
    expect((await emulator.admin("POST", "/delete", { resource: "courses", id: 1 })).status).toBe(204);
    expect(emulator.state.dump().chapters).toEqual([]);
    expect(
      emulator.state
        .dump()
        .events.map((e) => e.type)
        .slice(-2),
    ).toEqual(["chapter.deleted", "course.deleted"]);
    expect((await emulator.admin("POST", "/delete", { resource: "courses", id: 1 })).status).toBe(404);
  });

  it("change faults at runtime; control routes themselves are never faulted, limited or logged", async () => {
    const emulator = await start({ admin: true });
    const set = await emulator.admin("POST", "/faults", { failNext: 1, rate: 1 });
    expect(set.body).toMatchObject({ rate: 1, failNext: 1, latencyMs: 0, failRate: 0 });
    for (let i = 0; i < 3; i++) expect((await emulator.admin("GET", "/state")).status).toBe(200);
    expect((await emulator.api("GET", "/courses")).status).toBe(500);
    expect((await emulator.api("GET", "/courses")).status).toBe(429);
    await emulator.admin("POST", "/faults", { rate: null });
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
    expect((await emulator.admin("GET", "/faults")).body).toMatchObject({ rate: null, failNext: 0 });
    expect(emulator.state.requests.map((entry) => entry.path)).toEqual(Array(3).fill("/api/v1/courses"));

    const wrong = await emulator.admin("POST", "/faults", { failRate: 2, failnext: 1 });
    expect(wrong.status).toBe(422);
    expect(Object.keys((wrong.body as { errors: object }).errors).sort()).toEqual(["failRate", "failnext"]);
  });

  it("expire every token issued so far; logging in again works", async () => {
    const emulator = await start({ admin: true });
    expect((await emulator.admin("POST", "/expire-tokens")).status).toBe(204);
    const expired = await emulator.api("GET", "/courses");
    expect(expired.status).toBe(401);
    expect((expired.body as { error: string }).error).toMatch(/expired/);
    const login = await call(`${emulator.loginUrl}?email=demo@example.com&password=coursesync`, "POST");
    const token = (login.body as { auth_token: string }).auth_token;
    expect((await emulator.api("GET", "/courses", { token })).status).toBe(200);
  });
});

describe("in-process controls", () => {
  it("offer the same operations on RunningEmulator.state without HTTP", async () => {
    const emulator = await start();
    await emulator.api("POST", "/courses", newCourse("A"));
    expect(emulator.state.edit("courses", 1, { excerpt: "by hand" })).toMatchObject({ kind: "ok" });
    expect((await emulator.api("GET", "/courses/1")).body).toMatchObject({ excerpt: "by hand" });
    expect(emulator.state.remove("courses", 1)).toBe(true);
    expect(emulator.state.reset({ courses: [], chapters: [] })).toMatchObject({ ok: true });
    expect(
      emulator.state.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/courses"),
    ).toHaveLength(1);
    emulator.state.clearRequests();
    expect(emulator.state.requests).toEqual([]);
  });
});
