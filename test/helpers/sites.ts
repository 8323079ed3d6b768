import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import type { ChapterRecord, CourseRecord, StateDump } from "../../src/emulator/records.js";
import type { RunningEmulator } from "../../src/emulator/server.js";
import { COURSE_KEYS } from "../../src/tree/course-file.js";
import { equivalentNodes, parseHtml } from "../../src/tree/markdown/gate.js";
import { manualClock, type TestEmulator } from "./emulator.js";
import { type PulledSite, pulledSite, type StartEmulator } from "./site.js";

/** Add a site to the tree's coursesync.yaml, as `coursesync site add <name> --url` does. */
export async function addSite(root: string, name: string, url: string): Promise<void> {
  const config = path.join(root, "coursesync.yaml");
  const text = await readFile(config, "utf8");
  if (!/^sites:\s*$/m.test(text)) throw new Error("coursesync.yaml has no block `sites:`");
  const at = text.search(/^sites:\s*$/m);
  const end = at + text.slice(at).indexOf("\n") + 1;
  const next = `${text.slice(0, end)}  ${name}:\n    url: ${url}\n${text.slice(end)}`;
  await writeFile(config, next);
}

/** The fields of a course a restore brings back: those of course.yaml but the id. */
const COURSE_FIELDS = COURSE_KEYS.filter((key) => key !== "id");

/** A course's restorable fields. */
function courseFields(course: CourseRecord): Record<string, unknown> {
  return Object.fromEntries(COURSE_FIELDS.map((field) => [field, course[field] ?? null]));
}

/**
 * Assert that `copy` holds every course and chapter of `source` and nothing else, field for
 * field (a course by its title; chapters by course, ordinal and title): content byte for byte,
 * or, where `markdown(chapter)` says the tree holds it as Markdown, equal under the gate.
 */
export function expectSameRecords(
  source: StateDump,
  copy: StateDump,
  markdown: (chapter: ChapterRecord) => boolean = () => false,
): void {
  expect(copy.courses.length).toBe(source.courses.length);
  expect(copy.chapters.length).toBe(source.chapters.length);
  const key = (course: CourseRecord) => `${course.title}`;
  const copies = new Map(copy.courses.map((course) => [key(course), course]));
  expect(copies.size).toBe(copy.courses.length);
  for (const course of source.courses) {
    const twin = copies.get(key(course));
    expect(twin, course.title).toBeDefined();
    expect(courseFields(twin!), course.title).toEqual(courseFields(course));
    const chapters = (dump: StateDump, id: number) =>
      dump.chapters
        .filter((chapter) => chapter.course_id === id)
        .sort((a, b) => a.ordinal - b.ordinal || a.title.localeCompare(b.title));
    const mine = chapters(source, course.id);
    const theirs = chapters(copy, twin!.id);
    expect(theirs.map((c) => [c.title, c.ordinal])).toEqual(mine.map((c) => [c.title, c.ordinal]));
    mine.forEach((chapter, i) => {
      const other = theirs[i]!;
      if (markdown(chapter)) {
        const equal = equivalentNodes(
          parseHtml(other.content).childNodes,
          parseHtml(chapter.content).childNodes,
        );
        expect(equal, `${course.title} / ${chapter.title}`).toBe(true);
      } else expect(other.content, `${course.title} / ${chapter.title}`).toBe(chapter.content);
    });
  }
}

/** The writes a site took, as `METHOD path`. */
export function writesTo(emulator: RunningEmulator): string[] {
  return emulator.state.requests
    .filter((r) => r.method !== "GET" && r.path !== "/api/login")
    .map((r) => `${r.method} ${r.path}`);
}

/**
 * Production (the default site) pulled into a tree (html bodies: courses Web and Go, chapters
 * 1 Intro and 2 Tags in Web, 3 Tour in Go), and an empty staging site restored from it, whose
 * ids differ from production's. Both sites' request logs start empty.
 */
export async function productionAndStaging(
  start: StartEmulator,
): Promise<{ s: PulledSite; staging: TestEmulator }> {
  const s = await pulledSite(start, {
    body: "html",
    options: { now: manualClock().now },
    courses: [{ title: "Web", status: 1, excerpt: "All of it", free: true }, { title: "Go" }],
    chapters: [
      { course_id: 1, title: "Intro", ordinal: 1, content: "<p>one</p>" },
      { course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
      { course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
    ],
  });
  const staging = await secondSite(start, s.root, "staging");
  const restored = await s.cli("push", "--site", "staging", "--yes");
  expect(restored.code, restored.stderr).toBe(0);
  staging.state.clearRequests();
  s.emulator.state.clearRequests();
  return { s, staging };
}

/**
 * An empty site added to the tree under `name`, whose ids differ from the default site's (one
 * record was made and deleted there first), with a clock of its own.
 */
export async function secondSite(start: StartEmulator, root: string, name: string): Promise<TestEmulator> {
  const site = await start({ seedDir: null, now: manualClock("2026-04-01T08:00:00.000Z").now });
  site.state.createCourse({ course: { title: "scratch" } });
  site.state.remove("courses", 1);
  await addSite(root, name, site.baseUrl);
  return site;
}
