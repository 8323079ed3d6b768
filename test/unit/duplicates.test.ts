import { describe, expect, it } from "vitest";
import { likelyDuplicates } from "../../src/sync/duplicates.js";
import type { Snapshot, SnapshotEntry } from "../../src/sync/state/snapshot-model.js";

function chapter(id: number, course: number, title: unknown, at: string): SnapshotEntry {
  return {
    path: `courses/c${course}/${id}.md`,
    hash: "",
    record: { id, course_id: course, title, created_at: at },
  };
}

function site(chapters: SnapshotEntry[]): Snapshot {
  return {
    version: 1,
    site: "https://academy.example.com/api/v1",
    body: "markdown",
    courses: {},
    chapters: Object.fromEntries(chapters.map((entry) => [String(entry.record.id), entry])),
  };
}

describe("records that look made twice", () => {
  it("pairs one title in one course made within the window, titles as sites store them, groups in the order their first record comes", () => {
    const lines = likelyDuplicates(
      site([
        chapter(1, 1, "Later pair", "2024-01-01T10:00:00Z"),
        chapter(2, 1, "Intro", "2024-01-01T09:00:00Z"),
        chapter(3, 2, "Intro", "2024-01-01T09:00:30Z"),
        chapter(4, 1, "  Intro ", "2024-01-01T09:01:00Z"),
        chapter(5, 1, "Later  pair", "2024-01-01T10:05:00Z"),
        chapter(6, 1, "Intro", "2024-01-01T11:00:00Z"),
        chapter(7, 1, "Intro", "not a time"),
      ]),
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(
      'chapters 1 and 5 ("Later pair", at courses/c1/1.md and courses/c1/5.md), made 300 s apart',
    );
    expect(lines[1]).toContain(
      'chapters 2 and 4 ("Intro", at courses/c1/2.md and courses/c1/4.md), made 60 s apart',
    );
  });

  it("says nothing of a site whose titles differ", () => {
    const many = Array.from({ length: 50 }, (_, i) =>
      chapter(i + 1, 1 + (i % 3), `Chapter ${i}`, "2024-01-01T09:00:00Z"),
    );
    expect(likelyDuplicates(site(many))).toEqual([]);
  });
});
