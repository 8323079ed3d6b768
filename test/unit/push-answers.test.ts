import { describe, expect, it } from "vitest";
import { racedFields } from "../../src/sync/push/answers.js";
import { recordBuilders } from "../helpers/records.js";

const STAMP = "2026-03-01T09:30:00.000+00:00";
const { course, chapter } = recordBuilders(STAMP, (id) => ({ ordinal: id, content: `<p>chapter ${id}</p>` }));

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
