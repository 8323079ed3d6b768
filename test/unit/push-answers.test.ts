import { afterEach, describe, expect, it } from "vitest";
import { createdAnswerProblem, racedFields } from "../../src/sync/push/answers.js";
import { recordBuilders, syncedWorld } from "../helpers/records.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const STAMP = "2026-03-01T09:30:00.000+00:00";
const { course, chapter } = recordBuilders(STAMP, (id) => ({ ordinal: id, content: `<p>chapter ${id}</p>` }));

/** A synced course 1 with chapter 10, plus a file of chapter 12 the last sync does not know. */
async function known(created: Record<string, string> = {}) {
  const { snapshot, local } = await syncedWorld([course(1)], [chapter(10, 1)]);
  local.chapters.set("new:x", {
    ...local.chapters.get("chapter:10")!,
    id: 12,
    key: "new:x",
    file: "courses/course-1/12-stray.md",
  });
  return { snapshot, local, created: new Map(Object.entries(created)) };
}

const SENT = { title: "New", ordinal: 3, content: "<p>new</p>", course_id: 1 };

describe("a create's answer", () => {
  it.each([
    [
      "the record sent, its HTML re-serialised by the site",
      chapter(20, 1, { ...SENT, content: "<p>new</p>\n" }),
      undefined,
    ],
    ["the record sent, its title trimmed", chapter(20, 1, { ...SENT, title: "  New " }), undefined],
    [
      "a record the last sync knows",
      chapter(10, 1, SENT),
      "which the last sync already knows, at courses/course-1/10-chapter-10.md",
    ],
    [
      "a record another file carries",
      chapter(12, 1, SENT),
      "which courses/course-1/12-stray.md already carries",
    ],
    ["another title", chapter(20, 1, { ...SENT, title: "Old" }), 'whose title is "Old", not "New" as sent'],
    [
      "another course",
      chapter(20, 2, { ...SENT, course_id: 2, ordinal: 1 }),
      "whose course_id is 2, not 1 as sent",
    ],
    // A site that places new records itself (acts_as_list) made this one: it is taken.
    ["another position", chapter(20, 1, { ...SENT, ordinal: 1 }), undefined],
    ["a title trimmed", chapter(20, 1, { ...SENT, title: " New " }), undefined],
    [
      "a null title",
      { id: 20, title: null, course_id: 1, ordinal: 3 },
      'whose title is null, not "New" as sent',
    ],
    ["an answer that does not say its fields", { id: 20 }, undefined],
  ])("is checked: %s", async (_, record, problem) => {
    expect(createdAnswerProblem("chapter", record, SENT, await known())).toBe(problem);
  });

  it("naming a record this push created already is refused", async () => {
    const answer = chapter(20, 1, SENT);
    expect(
      createdAnswerProblem(
        "chapter",
        answer,
        SENT,
        await known({ "chapter:20": "courses/course-1/03-new.md" }),
      ),
    ).toBe("which this push already created for courses/course-1/03-new.md");
    // A course and a chapter may share a number: only the same kind counts.
    expect(
      createdAnswerProblem(
        "course",
        course(20, { title: "New" }),
        { title: "New" },
        await known({ "chapter:20": "x" }),
      ),
    ).toBe(undefined);
  });

  it("of a course is checked by its title only (the site fills in the rest)", async () => {
    const sent = { title: "Rust", status: 0 };
    expect(
      createdAnswerProblem("course", course(5, { title: "Rust", status: "draft" }), sent, await known()),
    ).toBe(undefined);
    expect(createdAnswerProblem("course", course(1, { title: "Rust" }), sent, await known())).toBe(
      "which the last sync already knows, at courses/course-1",
    );
    expect(createdAnswerProblem("course", course(5, { title: "Go" }), sent, await known())).toBe(
      'whose title is "Go", not "Rust" as sent',
    );
  });
});

describe("an update's answer", () => {
  const reread = chapter(10, 1, { title: "Intro", content: "<p>a</p>" });
  const { content: _, ...withoutContent } = chapter(10, 1, { title: "Mine" });

  it.each([
    ["the fields sent, nothing else", chapter(10, 1, { title: "Mine", content: "<p>a</p>" }), ["title"], []],
    [
      "a site-side normalisation of a field sent",
      chapter(10, 1, { title: "Mine ", content: "<p>a</p>" }),
      ["title"],
      [],
    ],
    ["another writer's body", chapter(10, 1, { title: "Mine", content: "<p>b</p>" }), ["title"], ["content"]],
    [
      "another writer's position",
      chapter(10, 1, { title: "Mine", content: "<p>a</p>", ordinal: 9 }),
      ["title"],
      ["ordinal"],
    ],
    [
      "a new position after a move",
      chapter(10, 2, { content: "<p>a</p>", title: "Intro", ordinal: 1 }),
      ["course_id"],
      [],
    ],
    ["no content in the answer", { ...withoutContent, id: 10 }, ["title"], []],
  ])("names what someone else changed in between: %s", (_, answer, sent, raced) => {
    expect(racedFields("chapter", reread, answer, sent)).toEqual(raced);
  });

  it("leaves out a course's dates when its status was sent", () => {
    const before = course(1, { status: "draft" });
    const after = course(1, { status: "published", published_at: STAMP });
    expect(racedFields("course", before, after, ["status"])).toEqual([]);
    expect(racedFields("course", before, { ...after, excerpt: "theirs" }, ["status"])).toEqual(["excerpt"]);
  });
});
