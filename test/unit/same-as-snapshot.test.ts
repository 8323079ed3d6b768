import { describe, expect, it } from "vitest";
import type { WireRecord } from "../../src/api/wire.js";
import { sameAsSnapshot, snapshotRecord } from "../../src/sync/model/entities.js";
import { jsonEqual } from "../../src/sync/reconcile.js";
import { sha256 } from "../../src/util/hash.js";

const listed: WireRecord = {
  id: 7,
  course_id: 1,
  title: "Intro",
  created_at: "2024-01-01T09:00:00.000+00:00",
  updated_at: "2024-01-02T09:00:00.000+00:00",
  ordinal: 1,
  content: "<p>Hello</p>",
};

describe("a listed record against the snapshot's", () => {
  it("is the same when every field and the text's hash agree, whether the text is held or spilled", () => {
    const known = snapshotRecord(listed);
    expect(sameAsSnapshot(listed, known)).toBe(true);
    const spilledText = { sha256: sha256("<p>Hello</p>"), spilledAt: 0, length: 12 };
    expect(sameAsSnapshot({ ...listed, content: spilledText }, known)).toBe(true);
  });

  it("differs on a field, a text, a field only one side has, and a record without a text compared whole", () => {
    const known = snapshotRecord(listed);
    expect(sameAsSnapshot({ ...listed, title: "Intro!" }, known)).toBe(false);
    expect(sameAsSnapshot({ ...listed, content: "<p>Hello!</p>" }, known)).toBe(false);
    expect(sameAsSnapshot({ ...listed, extra: 1 }, known)).toBe(false);
    const { ordinal: _ordinal, ...fewer } = listed;
    expect(sameAsSnapshot(fewer as WireRecord, known)).toBe(false);
    expect(sameAsSnapshot({ id: 1, title: "A" }, { id: 1, title: "A" })).toBe(true);
    expect(sameAsSnapshot({ id: 1, title: "A" }, { id: 1, title: "B" })).toBe(false);
  });

  it("answers as comparing the snapshot's copy would, over many records", () => {
    let seed = 11;
    const pick = <T>(values: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return values[seed % values.length]!;
    };
    const texts = ["<p>a</p>", "<p>b</p>", "x\ud800", undefined, null];
    for (let i = 0; i < 500; i++) {
      const make = (): WireRecord => {
        const record: WireRecord = { id: 1 };
        for (const key of ["title", "slug", "ordinal", "content_sha256"]) {
          const value = pick([undefined, null, "A", "B", 1]);
          if (value !== undefined) record[key] = value;
        }
        const text = pick(texts);
        if (text !== undefined) record.content = text;
        return record;
      };
      const record = make();
      const known = pick([true, false]) ? snapshotRecord(make()) : make();
      expect(sameAsSnapshot(record, known)).toBe(jsonEqual(snapshotRecord(record), known));
    }
  });
});
