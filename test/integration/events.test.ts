import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulators } from "../helpers/emulator.js";
import { initTree, seedSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

/** A tree made by init, not yet pulled, for a site of three draft courses and nine chapters. */
async function setup(options: { eventIds?: boolean; now?: () => Date } = {}) {
  const emulator = await start({ seedDir: null, pageSize: 5, ...options });
  seedSite(emulator, {
    courses: [1, 2, 3].map((i) => ({ title: `Course ${i}`, status: 0 })),
    chapters: [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => ({
      course_id: 1 + (i % 3),
      title: `Ch ${i}`,
      content: "<p>x</p>",
    })),
  });
  const { root: tree, env } = await initTree(emulator);
  const pull = (...args: string[]) => runCli(["pull", "--events", ...args], { cwd: tree, env });
  const eventRequests = () => emulator.state.requests.filter((r) => r.path.endsWith("/events")).length;
  const archived = async () =>
    (await readFile(path.join(tree, "events.ndjson"), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: number; type: string });
  return { emulator, tree, pull, eventRequests, archived };
}

describe("pull --events", () => {
  it("archives every event oldest first, then only new ones, paging no further than needed", async () => {
    const { emulator, tree, pull, eventRequests, archived } = await setup();
    const first = await pull();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("events: 12 new archived in events.ndjson");
    const events = await archived();
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const line = (await readFile(path.join(tree, "events.ndjson"), "utf8")).split("\n")[0]!;
    expect(line).toBe(JSON.stringify(JSON.parse(line), Object.keys(JSON.parse(line)).sort()));

    emulator.state.clearRequests();
    const again = await pull();
    expect(again.stdout).toContain("events: 0 new archived");
    // Newest first: the first page already reaches archived events.
    expect(eventRequests()).toBe(1);

    emulator.state.edit("courses", 1, { title: "Renamed" });
    emulator.state.remove("chapters", 4);
    emulator.state.clearRequests();
    const third = await pull();
    expect(third.stdout).toContain("events: 2 new archived");
    expect(eventRequests()).toBe(1);
    const all = await archived();
    expect(all.map((e) => e.id)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    expect(all.slice(-2).map((e) => e.type)).toEqual(["course.updated", "chapter.deleted"]);
  });

  it("repairs a line cut off by a killed run, and dry runs append nothing", async () => {
    const { emulator, tree, pull, archived } = await setup();
    await pull();
    await appendFile(path.join(tree, "events.ndjson"), '{"id":13,"ty');
    emulator.state.edit("courses", 2, { title: "Again" });
    const dry = await pull("--dry-run");
    expect(dry.stdout).toContain("events: 1 new to archive");
    expect((await readFile(path.join(tree, "events.ndjson"), "utf8")).endsWith('{"id":13,"ty')).toBe(true);
    await pull();
    const all = await archived();
    expect(all.map((e) => e.id)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
  });

  it("archives events that carry no ids, known by their whole JSON and ordered by time", async () => {
    // A clock that moves a second at each reading: every event has its own time.
    let ms = Date.parse("2026-03-01T09:30:00Z");
    const now = () => {
      ms += 1000;
      return new Date(ms);
    };
    const { emulator, tree, pull, eventRequests, archived } = await setup({ eventIds: false, now });
    const first = await pull();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("events: 12 new archived in events.ndjson");
    const events = await archived();
    expect(events.every((e) => !("id" in e))).toBe(true);
    // The site's events, oldest first, as the emulator holds them (without their ids).
    const held = emulator.state
      .dump()
      .events.map(({ id: _id, ...rest }) => rest)
      .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    expect(events).toEqual(held);

    emulator.state.edit("courses", 1, { title: "Renamed" });
    emulator.state.clearRequests();
    const again = await pull();
    expect(again.stdout).toContain("events: 1 new archived");
    // Listed newest first (by time): the first page already reaches archived events.
    expect(eventRequests()).toBe(1);
    const all = await archived();
    expect(all).toHaveLength(13);
    expect(all.at(-1)).toMatchObject({ type: "course.updated", resource_id: 1 });
    expect(new Set(all.map((e) => JSON.stringify(e))).size).toBe(13);
    expect((await readFile(path.join(tree, "events.ndjson"), "utf8")).split("\n")).toHaveLength(14);
  });
});
