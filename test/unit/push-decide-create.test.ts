import { describe, expect, it } from "vitest";
import { decideCreate } from "../../src/sync/push/decide.js";
import { settle } from "../../src/sync/push/settle.js";
import { htmlBodies } from "../../src/tree/codecs.js";

// The pure steps of a push's write: what a would-be create does with what the site holds, and
// what a written file is to hold once the site answered.

const FIELDS = { title: "Intro", ordinal: 2, content: "<p>hi</p>", course_id: 1 };
const record = (fields: Record<string, unknown>) => ({ id: 40, ...fields });

describe("decideCreate", () => {
  it("creates when the site holds nothing the file could be", () => {
    expect(decideCreate({ journaled: false }, FIELDS)).toEqual({ type: "create" });
  });

  it("adopts an equal record no sync knows", () => {
    const equal = record(FIELDS);
    expect(decideCreate({ equal, journaled: false }, FIELDS)).toEqual({
      type: "adopt",
      record: equal,
      adopted: "equal",
    });
  });

  it("takes a record its own journaled create made without calling it adopted", () => {
    const equal = record(FIELDS);
    expect(decideCreate({ equal, journaled: true }, FIELDS)).toEqual({ type: "adopt", record: equal });
  });

  it("adopts a record made from an earlier version, then patches what the file changed since", () => {
    const earlier = record({ ...FIELDS, title: "Intro (draft)", ordinal: 5 });
    expect(decideCreate({ earlier, journaled: false }, FIELDS)).toEqual({
      type: "patch",
      record: earlier,
      since: { title: "Intro", ordinal: 2 },
      adopted: "edited",
    });
  });

  it("adopts an earlier version's record as it is when nothing changed since", () => {
    const earlier = record(FIELDS);
    expect(decideCreate({ earlier, journaled: false }, FIELDS)).toMatchObject({
      type: "adopt",
      adopted: "edited",
    });
  });
});

describe("settle", () => {
  const base = {
    kind: "course" as const,
    record: { id: 7, title: "Intro", status: "draft" },
    localValues: { title: "Intro" },
    created: true,
    file: "courses/intro/course.yaml",
    scanned: undefined,
    otherSite: false,
    bodies: htmlBodies,
  };

  it("says a file deleted meanwhile stands for no file", () => {
    expect(settle({ ...base, text: undefined })).toEqual({
      hash: "unsettled",
      from: "unsettled",
      byId: true,
    });
  });

  it("never writes the file of a record another site holds", () => {
    const settled = settle({
      ...base,
      record: { ...base.record, id: 3 },
      otherSite: true,
      text: "title: Intro\n",
    });
    expect(settled.text).toBeUndefined();
    expect(settled.byId).toBe(true);
  });
});
