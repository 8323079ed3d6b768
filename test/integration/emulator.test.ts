import { describe, expect, it } from "vitest";
import { call, manualClock, useEmulators } from "../helpers/emulator.js";

const start = useEmulators();

const course = (fields: Record<string, unknown>) => ({ course: fields });
const chapter = (fields: Record<string, unknown>) => ({ chapter: fields });

describe("login", () => {
  it("issues a token for the documented query parameters, and the token opens the API", async () => {
    const emulator = await start();
    const login = await call(`${emulator.loginUrl}?email=demo@example.com&password=coursesync`, "POST");
    expect(login.status).toBe(200);
    const token = (login.body as { auth_token: string }).auth_token;
    expect(Object.keys(login.body as object)).toEqual(["auth_token"]);
    expect(token).toMatch(/^\S{16,}$/);
    expect((await emulator.api("GET", "/courses", { token })).status).toBe(200);
  });

  it("serves login at the base path with /v1 replaced by /login", async () => {
    const emulator = await start();
    expect(emulator.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(emulator.loginUrl).toBe(emulator.baseUrl.replace(/\/v1$/, "/login"));
  });

  it("also takes the credentials in a JSON or form body", async () => {
    const emulator = await start({ email: "owner@school.test", password: "s3cret" });
    const json = await call(emulator.loginUrl, "POST", {
      json: { email: "owner@school.test", password: "s3cret" },
    });
    const form = await call(emulator.loginUrl, "POST", {
      raw: "email=owner%40school.test&password=s3cret",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect([json.status, form.status]).toEqual([200, 200]);
  });

  it("refuses wrong or missing credentials with 401 and the documented message", async () => {
    const emulator = await start();
    for (const query of [
      "?email=demo@example.com&password=wrong",
      "?email=other@example.com&password=coursesync",
      "",
    ]) {
      const response = await call(`${emulator.loginUrl}${query}`, "POST");
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: "Invalid email or password" });
    }
  });
});

describe("authorization", () => {
  it("answers 401 with a JSON error for a missing, malformed or unknown token", async () => {
    const emulator = await start();
    const cases = [
      await emulator.api("GET", "/courses", { token: null }),
      await emulator.api("GET", "/courses", { token: null, headers: { Authorization: "Token abc" } }),
      await emulator.api("GET", "/chapters/1", { token: "not-a-token" }),
      await emulator.api("POST", "/courses", { token: "not-a-token", json: course({ title: "X" }) }),
    ];
    for (const response of cases) {
      expect(response.status).toBe(401);
      expect(typeof (response.body as { error: unknown }).error).toBe("string");
    }
    expect(emulator.state.dump().courses).toEqual([]);
  });

  it("answers 404 for unknown routes and unknown ids", async () => {
    const emulator = await start();
    for (const path of ["/customers", "/courses/1", "/chapters/9", "/courses/abc", "/courses/1/chapters"]) {
      const response = await emulator.api("GET", path);
      expect(response.status, path).toBe(404);
      expect(response.body).toEqual({ error: "Not found" });
    }
    expect((await emulator.api("PUT", "/courses")).status).toBe(404);
    expect((await emulator.api("PATCH", "/courses/5", { json: course({ title: "x" }) })).status).toBe(404);
    expect((await emulator.api("DELETE", "/chapters/5")).status).toBe(404);
  });
});

describe("courses", () => {
  it("creates a course with 201 and serves every documented field", async () => {
    const clock = manualClock("2026-03-01T09:30:00.000Z");
    const emulator = await start({ now: clock.now });
    const created = await emulator.api("POST", "/courses", { json: course({ title: "Intro to Git" }) });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: 1,
      title: "Intro to Git",
      slug: "intro-to-git",
      status: "draft",
      created_at: "2026-03-01T09:30:00.000+00:00",
      updated_at: "2026-03-01T09:30:00.000+00:00",
      scheduled_at: null,
      published_at: null,
      excerpt: "",
      free: false,
      questions_enabled: false,
    });
    expect(created.headers.get("location")).toBe(`${emulator.baseUrl}/courses/1`);
    expect(Object.keys(created.body as object)).toEqual([
      "id",
      "title",
      "slug",
      "status",
      "created_at",
      "updated_at",
      "scheduled_at",
      "published_at",
      "excerpt",
      "free",
      "questions_enabled",
    ]);
    const shown = await emulator.api("GET", "/courses/1");
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(created.body);
  });

  it("maps status 0/1 to draft/published and keeps every other sent field", async () => {
    const emulator = await start();
    const sent = {
      title: "Published",
      status: 1,
      excerpt: "Short",
      free: true,
      questions_enabled: true,
      scheduled_at: "2026-04-01T08:00:00+02:00",
      published_at: "2026-03-01T10:00:00.000+00:00",
      unknown_field: "ignored",
    };
    const created = (await emulator.api("POST", "/courses", { json: course(sent) })).body as Record<
      string,
      unknown
    >;
    const { unknown_field: _ignored, ...known } = sent;
    expect(created).toMatchObject({ ...known, status: "published" });
    expect(created).not.toHaveProperty("unknown_field");
    const updated = await emulator.api("PATCH", `/courses/${created.id}`, { json: course({ status: 0 }) });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ status: "draft", title: "Published", excerpt: "Short" });
  });

  it("refuses a status that is not the integer 0 or 1", async () => {
    const emulator = await start();
    for (const status of ["published", "1", 2, true, null]) {
      const response = await emulator.api("POST", "/courses", { json: course({ title: "X", status }) });
      expect(response.status, JSON.stringify(status)).toBe(422);
      expect(response.body).toEqual({ errors: { status: [expect.any(String)] } });
    }
    expect(emulator.state.dump().courses).toEqual([]);
  });

  it("requires a title on create and refuses a blank one on update", async () => {
    const emulator = await start();
    for (const fields of [{}, { title: "" }, { title: "   " }, { title: null }]) {
      const response = await emulator.api("POST", "/courses", { json: course(fields) });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ errors: { title: ["can't be blank"] } });
    }
    await emulator.api("POST", "/courses", { json: course({ title: "Kept" }) });
    const blank = await emulator.api("PATCH", "/courses/1", { json: course({ title: " " }) });
    expect(blank.status).toBe(422);
    expect(blank.body).toEqual({ errors: { title: ["can't be blank"] } });
    expect(emulator.state.get("courses", 1)?.title).toBe("Kept");
  });

  it("refuses a body that is not a JSON object holding the resource key", async () => {
    const emulator = await start();
    const bodies = [
      { raw: "" },
      { raw: "not json" },
      { json: [1, 2] },
      { json: { title: "Flat" } },
      { json: { course: "text" } },
      { json: { chapter: { title: "Wrong key" } } },
    ];
    for (const body of bodies) {
      const response = await emulator.api("POST", "/courses", body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body).toHaveProperty("errors");
    }
    expect(emulator.state.dump().courses).toEqual([]);
  });

  it("derives unique lowercase ASCII slugs from titles and keeps a slug when the title changes", async () => {
    const emulator = await start();
    const slugs: unknown[] = [];
    for (const title of ["Café Crème: Basics!", "Café crème basics", "  ", "日本語"]) {
      const created = await emulator.api("POST", "/courses", {
        json: course({ title: title.trim() || "---" }),
      });
      slugs.push((created.body as { slug: unknown }).slug);
    }
    expect(slugs).toEqual(["cafe-creme-basics", "cafe-creme-basics-2", "course", "course-2"]);
    const renamed = await emulator.api("PATCH", "/courses/1", { json: course({ title: "New name" }) });
    expect(renamed.body).toMatchObject({ title: "New name", slug: "cafe-creme-basics" });
  });

  it("bumps updated_at on every update, by 1 ms when the clock has not moved", async () => {
    const clock = manualClock("2026-03-01T09:30:00.000Z");
    const emulator = await start({ now: clock.now });
    await emulator.api("POST", "/courses", { json: course({ title: "A" }) });
    const first = await emulator.api("PATCH", "/courses/1", { json: course({ excerpt: "one" }) });
    const second = await emulator.api("PATCH", "/courses/1", { json: course({ excerpt: "two" }) });
    clock.advance(60_000);
    const third = await emulator.api("PATCH", "/courses/1", { json: course({}) });
    const stamps = [first, second, third].map((r) => (r.body as { updated_at: string }).updated_at);
    expect(stamps).toEqual([
      "2026-03-01T09:30:00.001+00:00",
      "2026-03-01T09:30:00.002+00:00",
      "2026-03-01T09:31:00.000+00:00",
    ]);
    expect((third.body as { created_at: string }).created_at).toBe("2026-03-01T09:30:00.000+00:00");
  });

  it("deletes with 204 and takes the course's chapters with it", async () => {
    const emulator = await start();
    await emulator.api("POST", "/courses", { json: course({ title: "Doomed" }) });
    await emulator.api("POST", "/courses", { json: course({ title: "Kept" }) });
    await emulator.api("POST", "/chapters", { json: chapter({ course_id: 1, title: "One" }) });
    await emulator.api("POST", "/chapters", { json: chapter({ course_id: 2, title: "Other" }) });
    const deleted = await emulator.api("DELETE", "/courses/1");
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await emulator.api("GET", "/courses/1")).status).toBe(404);
    expect((await emulator.api("GET", "/chapters/1")).status).toBe(404);
    expect((await emulator.api("GET", "/chapters")).body).toMatchObject([{ id: 2, title: "Other" }]);
    expect((await emulator.api("DELETE", "/courses/1")).status).toBe(404);
  });
});

describe("chapters", () => {
  it("creates chapters appended after the last ordinal of their course", async () => {
    const clock = manualClock("2026-03-01T09:30:00.000Z");
    const emulator = await start({ now: clock.now });
    await emulator.api("POST", "/courses", { json: course({ title: "A" }) });
    await emulator.api("POST", "/courses", { json: course({ title: "B" }) });
    const first = await emulator.api("POST", "/chapters", {
      json: chapter({ course_id: 1, title: "Welcome", content: "<p>Hi</p>" }),
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: 1,
      course_id: 1,
      title: "Welcome",
      content: "<p>Hi</p>",
      created_at: "2026-03-01T09:30:00.000+00:00",
      updated_at: "2026-03-01T09:30:00.000+00:00",
      ordinal: 1,
    });
    await emulator.api("POST", "/chapters", { json: chapter({ course_id: 1, title: "Ten", ordinal: 10 }) });
    const appended = await emulator.api("POST", "/chapters", {
      json: chapter({ course_id: "1", title: "Next" }),
    });
    const otherCourse = await emulator.api("POST", "/chapters", {
      json: chapter({ course_id: "2", title: "B1" }),
    });
    expect(appended.body).toMatchObject({ course_id: 1, ordinal: 11, content: "" });
    expect(otherCourse.body).toMatchObject({ course_id: 2, ordinal: 1 });
  });

  it("refuses a missing or unknown course_id, a blank title and a non-integer ordinal", async () => {
    const emulator = await start();
    await emulator.api("POST", "/courses", { json: course({ title: "A" }) });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: "No course" }, "course_id"],
      [{ course_id: 99, title: "Unknown course" }, "course_id"],
      [{ course_id: "abc", title: "Bad course id" }, "course_id"],
      [{ course_id: 1 }, "title"],
      [{ course_id: 1, title: "Half", ordinal: 1.5 }, "ordinal"],
      [{ course_id: 1, title: "Text", ordinal: "2" }, "ordinal"],
    ];
    for (const [fields, field] of cases) {
      const response = await emulator.api("POST", "/chapters", { json: chapter(fields) });
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(Object.keys((response.body as { errors: object }).errors)).toEqual([field]);
    }
    expect(emulator.state.dump().chapters).toEqual([]);
  });

  it("updates any subset of fields, moves a chapter to another course, and ignores unknown fields", async () => {
    const emulator = await start();
    await emulator.api("POST", "/courses", { json: course({ title: "A" }) });
    await emulator.api("POST", "/courses", { json: course({ title: "B" }) });
    await emulator.api("POST", "/chapters", {
      json: chapter({ course_id: 1, title: "Ch", content: "<p>x</p>" }),
    });
    const moved = await emulator.api("PATCH", "/chapters/1", {
      json: chapter({ course_id: "2", ordinal: 4, slug: "nope", id: 77 }),
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: 1, course_id: 2, ordinal: 4, title: "Ch", content: "<p>x</p>" });
    expect(moved.body).not.toHaveProperty("slug");
    const unknownCourse = await emulator.api("PATCH", "/chapters/1", { json: chapter({ course_id: 42 }) });
    expect(unknownCourse.status).toBe(422);
    expect(unknownCourse.body).toEqual({ errors: { course_id: ["must exist"] } });
    const badOrdinal = await emulator.api("PATCH", "/chapters/1", { json: chapter({ ordinal: "first" }) });
    expect(badOrdinal.status).toBe(422);
    expect((await emulator.api("DELETE", "/chapters/1")).status).toBe(204);
    expect((await emulator.api("GET", "/chapters/1")).status).toBe(404);
  });

  it("keeps content byte for byte, lone surrogates included", async () => {
    const emulator = await start();
    await emulator.api("POST", "/courses", { json: course({ title: "A" }) });
    const content = '<p class="x">Tab\there &amp; \u00e9 \ud83d\ude00 lone \ud800 end</p>\r\n';
    await emulator.api("POST", "/chapters", { json: chapter({ course_id: 1, title: "T", content }) });
    const shown = await emulator.api("GET", "/chapters/1");
    expect((shown.body as { content: string }).content).toBe(content);
  });
});

describe("lists", () => {
  async function seeded(count: number, pageSize: number, options: Parameters<typeof start>[0] = {}) {
    const emulator = await start({ pageSize, ...options });
    for (let i = 1; i <= count; i++) {
      await emulator.api("POST", "/courses", { json: course({ title: `Course ${i}` }) });
    }
    return emulator;
  }

  const ids = (body: unknown) => (body as Array<{ id: number }>).map((record) => record.id);

  it("pages by pageSize from page 1, ordered by id, with an empty array past the end", async () => {
    const emulator = await seeded(5, 2);
    await emulator.api("DELETE", "/courses/2");
    expect(ids((await emulator.api("GET", "/courses")).body)).toEqual([1, 3]);
    expect(ids((await emulator.api("GET", "/courses?page=1")).body)).toEqual([1, 3]);
    expect(ids((await emulator.api("GET", "/courses?page=2")).body)).toEqual([4, 5]);
    const past = await emulator.api("GET", "/courses?page=3");
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
  });

  it("answers Not Found past the last page with pastLastPage: 404 (an empty list is still page 1)", async () => {
    const emulator = await seeded(4, 2, { pastLastPage: "404" });
    expect(ids((await emulator.api("GET", "/courses?page=2")).body)).toEqual([3, 4]);
    expect((await emulator.api("GET", "/courses?page=3")).status).toBe(404);
    expect((await emulator.api("GET", "/chapters?page=1")).body).toEqual([]);
    expect((await emulator.api("GET", "/chapters?page=2")).status).toBe(404);
  });

  it("defaults to 25 records a page", async () => {
    const emulator = await seeded(26, 25, {});
    expect(ids((await emulator.api("GET", "/courses")).body)).toHaveLength(25);
    expect(ids((await emulator.api("GET", "/courses?page=2")).body)).toEqual([26]);
  });

  it("refuses a page that is not a positive integer with 422", async () => {
    const emulator = await start();
    for (const page of ["0", "-1", "two", "1.5", ""]) {
      const response = await emulator.api("GET", `/courses?page=${page}`);
      expect(response.status, page).toBe(422);
      expect(response.body).toEqual({ errors: { page: [expect.any(String)] } });
    }
    expect((await emulator.api("GET", "/chapters?page=x")).status).toBe(422);
    expect((await emulator.api("GET", "/events?page=0")).status).toBe(422);
  });

  it("pages chapters the same way", async () => {
    const emulator = await start({ pageSize: 2 });
    await emulator.api("POST", "/courses", { json: course({ title: "A" }) });
    for (const title of ["a", "b", "c"]) {
      await emulator.api("POST", "/chapters", { json: chapter({ course_id: 1, title }) });
    }
    expect(ids((await emulator.api("GET", "/chapters?page=2")).body)).toEqual([3]);
    expect((await emulator.api("GET", "/chapters?page=3")).body).toEqual([]);
  });

  it("adds Link rel=next/last headers when asked", async () => {
    const emulator = await seeded(5, 2, { pagingHeaders: "link" });
    const origin = new URL(emulator.baseUrl).origin;
    const first = await emulator.api("GET", "/courses");
    expect(first.headers.get("link")).toBe(
      `<${origin}/api/v1/courses?page=2>; rel="next", <${origin}/api/v1/courses?page=3>; rel="last"`,
    );
    const last = await emulator.api("GET", "/courses?page=3");
    expect(last.headers.get("link")).toBe(`<${origin}/api/v1/courses?page=3>; rel="last"`);
    expect(first.headers.get("x-total-count")).toBeNull();
  });

  it("adds X-Total-Count and X-Total-Pages when asked, and no paging headers by default", async () => {
    const withTotals = await seeded(5, 2, { pagingHeaders: "total" });
    const response = await withTotals.api("GET", "/courses?page=2");
    expect([response.headers.get("x-total-count"), response.headers.get("x-total-pages")]).toEqual([
      "5",
      "3",
    ]);
    expect(response.headers.get("link")).toBeNull();
    const plain = await seeded(1, 2);
    const headers = (await plain.api("GET", "/courses")).headers;
    expect([headers.get("link"), headers.get("x-total-count")]).toEqual([null, null]);
  });
});

describe("events", () => {
  it("records every create, update and delete, served newest first and paged; a chapter's names its course", async () => {
    const clock = manualClock("2026-03-01T09:30:00.000Z");
    const emulator = await start({ now: clock.now, pageSize: 3 });
    await emulator.api("POST", "/courses", { json: course({ title: "A" }) });
    await emulator.api("POST", "/chapters", { json: chapter({ course_id: 1, title: "C1" }) });
    await emulator.api("PATCH", "/chapters/1", { json: chapter({ title: "C1 renamed" }) });
    clock.advance(1000);
    await emulator.api("PATCH", "/courses/1", { json: course({ status: 1 }) });
    await emulator.api("DELETE", "/courses/1");
    await emulator.api("POST", "/courses", { json: course({ title: "" }) });
    const first = await emulator.api("GET", "/events");
    const second = await emulator.api("GET", "/events?page=2");
    const events = [...(first.body as object[]), ...(second.body as object[])];
    const courseKeys = ["id", "type", "resource_id", "created_at"];
    const chapterKeys = ["id", "type", "resource_id", "course_id", "created_at"];
    expect(events.map((event) => Object.keys(event))).toEqual([
      courseKeys,
      chapterKeys,
      courseKeys,
      chapterKeys,
      chapterKeys,
      courseKeys,
    ]);
    expect(events[1]).toMatchObject({ type: "chapter.deleted", resource_id: 1, course_id: 1 });
    expect(events.map((e) => [(e as { id: number }).id, (e as { type: string }).type])).toEqual([
      [6, "course.deleted"],
      [5, "chapter.deleted"],
      [4, "course.updated"],
      [3, "chapter.updated"],
      [2, "chapter.created"],
      [1, "course.created"],
    ]);
    expect(events[0]).toEqual({
      id: 6,
      type: "course.deleted",
      resource_id: 1,
      created_at: "2026-03-01T09:30:01.000+00:00",
    });
    expect((await emulator.api("GET", "/events?page=3")).body).toEqual([]);
  });
});

describe("response shapes", () => {
  it("wraps show, create and update bodies under the resource key when asked", async () => {
    const emulator = await start({ responseShape: "wrapped" });
    const created = await emulator.api("POST", "/courses", { json: course({ title: "W" }) });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ course: expect.objectContaining({ id: 1, title: "W" }) });
    const updated = await emulator.api("PATCH", "/courses/1", { json: course({ title: "W2" }) });
    expect(updated.body).toEqual({ course: expect.objectContaining({ title: "W2" }) });
    expect((await emulator.api("GET", "/courses/1")).body).toEqual({
      course: expect.objectContaining({ id: 1 }),
    });
    await emulator.api("POST", "/chapters", { json: chapter({ course_id: 1, title: "C" }) });
    expect((await emulator.api("GET", "/chapters/1")).body).toEqual({
      chapter: expect.objectContaining({ id: 1 }),
    });
    expect(Array.isArray((await emulator.api("GET", "/courses")).body)).toBe(true);
  });

  it("answers create with an empty 201 plus Location and update with 204 when asked, show stays bare", async () => {
    const emulator = await start({ responseShape: "empty" });
    const created = await emulator.api("POST", "/courses", { json: course({ title: "E" }) });
    expect([created.status, created.text]).toEqual([201, ""]);
    expect(created.headers.get("location")).toBe(`${emulator.baseUrl}/courses/1`);
    const updated = await emulator.api("PATCH", "/courses/1", { json: course({ title: "E2" }) });
    expect([updated.status, updated.text]).toEqual([204, ""]);
    expect((await emulator.api("GET", "/courses/1")).body).toMatchObject({ id: 1, title: "E2" });
    const invalid = await emulator.api("PATCH", "/courses/1", { json: course({ title: "" }) });
    expect(invalid.status).toBe(422);
  });

  it("refuses unknown option values with a message naming the option", async () => {
    await expect(start({ responseShape: "odd" as "bare" })).rejects.toThrow(/responseShape/);
    await expect(start({ pageSize: 0 })).rejects.toThrow(/pageSize/);
    await expect(start({ failRate: 2 })).rejects.toThrow(/failRate/);
  });
});
