import { describe, expect, it } from "vitest";
import { type EntityInput, reconcileEntity } from "../../src/sync/reconcile.js";
import { mergeLines } from "../../src/tree/bodies/merge.js";

const base = { title: "Intro", ordinal: 1, course_id: 1, content: "<p>a</p>\n<p>b</p>\n<p>c</p>" };

function chapter(sides: Partial<EntityInput>): EntityInput {
  return {
    kind: "chapter",
    id: 7,
    key: "chapter:7",
    base,
    local: base,
    remote: base,
    remoteKnown: true,
    ...sides,
  };
}

const mergeText = (_f: string, b: unknown, l: unknown, r: unknown) =>
  typeof b === "string" && typeof l === "string" && typeof r === "string" ? mergeLines(b, l, r) : undefined;

describe("reconcile: one entity, three sides", () => {
  it.each([
    ["nothing changed", {}, "none", "none", undefined],
    ["local edit", { local: { ...base, title: "New" } }, "none", "update:title", undefined],
    ["remote edit", { remote: { ...base, title: "New" } }, "write:title", "none", undefined],
    [
      "both to the same value",
      { local: { ...base, title: "X" }, remote: { ...base, title: "X" } },
      "none",
      "none",
      undefined,
    ],
    [
      "disjoint fields",
      { local: { ...base, title: "L" }, remote: { ...base, ordinal: 4 } },
      "write:ordinal",
      "update:title",
      undefined,
    ],
    [
      "same field, different values",
      { local: { ...base, title: "L" }, remote: { ...base, title: "R" } },
      "none",
      "none",
      "both-changed:title",
    ],
    ["local revert to base", { local: { ...base } }, "none", "none", undefined],
    ["local delete", { local: undefined }, "none", "delete", undefined],
    ["remote delete", { remote: undefined }, "delete", "none", undefined],
    [
      "local delete vs remote edit",
      { local: undefined, remote: { ...base, title: "R" } },
      "none",
      "none",
      "deleted-locally-edited-remotely:title",
    ],
    [
      "remote delete vs local edit",
      { remote: undefined, local: { ...base, title: "L" } },
      "none",
      "none",
      "deleted-remotely-edited-locally:title",
    ],
    ["deleted on both sides", { local: undefined, remote: undefined }, "none", "none", undefined],
    ["remote create", { base: undefined, local: undefined }, "create", "none", undefined],
    ["no base, equal sides: adopt", { base: undefined }, "none", "none", undefined],
    [
      "no base, different sides",
      { base: undefined, local: { ...base, title: "L" } },
      "none",
      "none",
      "no-base:title",
    ],
    ["an id the site does not have", { base: undefined, remote: undefined }, "none", "none", "unknown-id:"],
    ["move to another course", { local: { ...base, course_id: 2 } }, "none", "update:course_id", undefined],
  ] as const)("%s", (_name, sides, local, remote, conflict) => {
    const plan = reconcileEntity(chapter(sides as Partial<EntityInput>));
    const show = (a: { type: string; fields?: string[] }) =>
      a.type === "none" || !a.fields ? a.type : `${a.type}:${a.fields.join(",")}`;
    expect(show(plan.toTree)).toBe(local);
    expect(show(plan.toSite)).toBe(remote);
    expect(plan.conflict ? `${plan.conflict.reason}:${plan.conflict.fields.join(",")}` : undefined).toBe(
      conflict,
    );
  });

  it("creates what has no id yet", () => {
    const plan = reconcileEntity({
      kind: "course",
      id: undefined,
      key: "course:new:courses/x",
      local: { title: "X" },
      remoteKnown: true,
    });
    expect(plan.toSite).toEqual({ type: "create" });
    expect(plan.localState).toBe("new");
  });

  it("merges bodies edited on both sides in different places", () => {
    const plan = reconcileEntity(
      chapter({
        local: { ...base, content: "<p>A</p>\n<p>b</p>\n<p>c</p>" },
        remote: { ...base, content: "<p>a</p>\n<p>b</p>\n<p>C</p>" },
      }),
      { mergeText },
    );
    expect(plan.conflict).toBeUndefined();
    expect(plan.merged?.content).toBe("<p>A</p>\n<p>b</p>\n<p>C</p>");
    expect(plan.toTree).toEqual({ type: "write", fields: ["content"] });
    expect(plan.toSite).toEqual({ type: "update", fields: ["content"] });
  });

  it("reports a conflict where the bodies do not merge", () => {
    const plan = reconcileEntity(
      chapter({
        local: { ...base, content: "<p>A1</p>\n<p>b</p>\n<p>c</p>" },
        remote: { ...base, content: "<p>A2</p>\n<p>b</p>\n<p>c</p>" },
      }),
      { mergeText },
    );
    expect(plan.conflict).toEqual({ fields: ["content"], reason: "both-changed" });
  });

  it("lets an explicit winner settle conflicts", () => {
    const sides = { local: { ...base, title: "L" }, remote: { ...base, title: "R", ordinal: 2 } };
    const theirs = reconcileEntity(chapter(sides), { winner: "remote" });
    expect(theirs.merged).toEqual({ ...base, title: "R", ordinal: 2 });
    expect(theirs.toTree).toEqual({ type: "write", fields: ["ordinal", "title"] });
    const ours = reconcileEntity(chapter(sides), { winner: "local" });
    expect(ours.merged).toEqual({ ...base, title: "L", ordinal: 2 });
    expect(ours.toSite).toEqual({ type: "update", fields: ["title"] });
    expect(
      reconcileEntity(chapter({ remote: undefined, local: sides.local }), { winner: "remote" }).toTree,
    ).toEqual({
      type: "delete",
    });
  });

  it("offline, takes the site to be the base", () => {
    const plan = reconcileEntity(
      chapter({ remote: undefined, remoteKnown: false, local: { ...base, title: "L" } }),
    );
    expect(plan.remoteState).toBe("unknown");
    expect(plan.toSite).toEqual({ type: "update", fields: ["title"] });
  });
});

describe("reconcile offline", () => {
  it("plans a local delete as a remote delete, not a conflict", () => {
    const plan = reconcileEntity(chapter({ local: undefined, remote: undefined, remoteKnown: false }));
    expect(plan.toSite).toEqual({ type: "delete" });
    expect(plan.conflict).toBeUndefined();
  });
});
