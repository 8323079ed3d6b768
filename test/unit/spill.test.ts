import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WireRecord } from "../../src/api/wire.js";
import { snapshotRecord } from "../../src/sync/model/entities.js";
import { readContent } from "../../src/sync/model/spilled.js";
import { ContentSpill, spilled } from "../../src/sync/pull/spill.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const long = (n: number) => `<p>${"chapter text ".repeat(60)}${n}</p>`;
const record = (id: number, title: string, content: string): WireRecord => ({
  id,
  course_id: 1,
  title,
  ordinal: id,
  content,
  updated_at: "2026-01-01T00:00:00Z",
});

describe("the content spill of a pull's listing", () => {
  it("gives back each record with its fields and its exact text, equal to the last sync where it was", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "coursesync-spill-"));
    dirs.push(dir);
    const spill = new ContentSpill(dir);
    const [one, two, short] = [
      record(1, "One", long(1)),
      record(2, "Two, edited", long(2)),
      record(3, "S", "<p>s</p>"),
    ];
    // The last sync knew 1 as it is now, and 2 under its old title with its old text.
    const known = new Map([
      [1, snapshotRecord(one)],
      [2, snapshotRecord(record(2, "Two", long(20)))],
    ]);
    const page = [one, two, short].map((r) => ({ ...r }));
    spill.take(page, (id) => known.get(id));
    try {
      expect(page.map(spilled)).toEqual([true, true, false]);
      // Every field as listed (an edited one is the site's new value, not the last sync's) and
      // the text read back exactly.
      expect(page.map((r) => ({ ...r, content: readContent(r.content, spill) }))).toEqual([one, two, short]);
      expect(page.map(snapshotRecord)).toEqual([one, two, short].map(snapshotRecord));
      expect(snapshotRecord(page[0]!)).toEqual(known.get(1));
      expect(snapshotRecord(page[1]!)).not.toEqual(known.get(2));
    } finally {
      spill.close();
    }
  });
});
