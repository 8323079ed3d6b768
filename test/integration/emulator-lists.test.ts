import { describe, expect, it } from "vitest";
import type { AnsweredRequest } from "../../src/emulator/server.js";
import { manualClock, useEmulators } from "../helpers/emulator.js";

const start = useEmulators();

const ids = (body: unknown) => (body as Array<{ id: number }>).map((record) => record.id);

/** An emulator of five courses (ids 1 to 5) made at one instant, on pages of two. */
async function fiveCourses(options: Parameters<typeof start>[0] = {}) {
  const emulator = await start({ pageSize: 2, now: manualClock().now, ...options });
  for (let i = 1; i <= 5; i++) emulator.state.createCourse({ course: { title: `Course ${i}` } });
  return emulator;
}

describe("list order", () => {
  it("lists by updated_at with listOrder: updated_at: an edit moves a record to the end", async () => {
    const emulator = await fiveCourses({ listOrder: "updated_at" });
    // Made at the same instant: in id order.
    expect(ids((await emulator.api("GET", "/courses?page=1")).body)).toEqual([1, 2]);
    expect((await emulator.api("PATCH", "/courses/1", { json: { course: { title: "One" } } })).status).toBe(
      200,
    );
    emulator.state.edit("courses", 3, { excerpt: "x" });
    expect(ids((await emulator.api("GET", "/courses?page=1")).body)).toEqual([2, 4]);
    expect(ids((await emulator.api("GET", "/courses?page=2")).body)).toEqual([5, 1]);
    expect(ids((await emulator.api("GET", "/courses?page=3")).body)).toEqual([3]);
  });

  it("lists by id by default, edits or not", async () => {
    const emulator = await fiveCourses();
    emulator.state.edit("courses", 1, { title: "One" });
    expect(ids((await emulator.api("GET", "/courses?page=1")).body)).toEqual([1, 2]);
  });

  it("refuses another list order", async () => {
    await expect(start({ listOrder: "newest" as "id" })).rejects.toThrow(
      'emulator option listOrder must be "id" or "updated_at", not "newest"',
    );
  });
});

describe("onAnswered", () => {
  it("is told each answered request, and what it changes in the store the next page shows", async () => {
    const told: AnsweredRequest[] = [];
    let removed = false;
    const emulator = await fiveCourses({
      onAnswered: (request) => {
        told.push(request);
        if (request.page === 1 && !removed) {
          removed = true;
          emulator.state.remove("courses", 1);
        }
      },
    });
    expect(ids((await emulator.api("GET", "/courses?page=1")).body)).toEqual([1, 2]);
    // Course 3 slid onto page 1: an offset pager never sees it.
    expect(ids((await emulator.api("GET", "/courses?page=2")).body)).toEqual([4, 5]);
    expect((await emulator.api("GET", "/courses/1")).status).toBe(404);
    expect(told).toEqual([
      { method: "GET", path: "/api/v1/courses", page: 1, status: 200 },
      { method: "GET", path: "/api/v1/courses", page: 2, status: 200 },
      { method: "GET", path: "/api/v1/courses/1", page: undefined, status: 404 },
    ]);
  });

  it("is not told of a request a fault answered", async () => {
    const told: AnsweredRequest[] = [];
    const emulator = await fiveCourses({ onAnswered: (request) => told.push(request) });
    emulator.faults.update({ failNext: 1 });
    expect((await emulator.api("GET", "/courses")).status).toBeGreaterThanOrEqual(500);
    expect((await emulator.api("GET", "/courses")).status).toBe(200);
    expect(told).toHaveLength(1);
  });
});
