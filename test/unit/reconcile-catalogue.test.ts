/**
 * The research catalogue of push situations, each a table case run through the same pure steps
 * push takes: scan the tree, build the local side, plan against the snapshot
 * (planLocalChanges, planPush), then reconcile each write with the site's record as push's
 * re-read does (reconcileEntity). Cases that need a real site (lost POST, listings that are
 * empty, partial or refused, concurrent runs, 401 mid-push) are in
 * test/integration/push-faults.test.ts; the delete guard and --force in push-conflicts.test.ts.
 */
import { mkdir, rename, rm, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WireRecord } from "../../src/api/wire.js";
import { defaultMaxDelete } from "../../src/sync/guards.js";
import { planLocalChanges } from "../../src/sync/local/changes.js";
import {
  chapterFileText,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
  fieldsEqual,
} from "../../src/sync/model/entities.js";
import { planPush } from "../../src/sync/push/plan.js";
import { reconcileEntity } from "../../src/sync/reconcile.js";
import type { Snapshot } from "../../src/sync/state/snapshot-model.js";
import { htmlBodies } from "../../src/tree/codecs.js";
import { StatCache } from "../../src/tree/stat-cache.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";
import { localOf, pulledFiles } from "../helpers/tree.js";

afterEach(cleanupTestdirs);

const STAMP = "2026-03-01T09:30:00.000+00:00";

const COURSES: WireRecord[] = [
  {
    id: 1,
    title: "Web",
    slug: "web",
    status: "published",
    excerpt: "HTML",
    free: true,
    questions_enabled: false,
  },
  { id: 2, title: "Go", slug: "go", status: "draft", excerpt: "", free: false, questions_enabled: false },
].map((c) => ({ ...c, scheduled_at: null, published_at: null, created_at: STAMP, updated_at: STAMP }));

const CHAPTERS: WireRecord[] = [
  { id: 1, course_id: 1, title: "Intro", ordinal: 1, content: "<p>a</p>\n<p>b</p>" },
  { id: 2, course_id: 1, title: "Tags", ordinal: 2, content: "<p>tags</p>" },
  { id: 3, course_id: 2, title: "Tour", ordinal: 1, content: "<p>tour</p>" },
].map((c) => ({ ...c, created_at: STAMP, updated_at: STAMP }));

const FOLDER: Record<number, string> = { 1: "courses/web", 2: "courses/go" };
const FILE: Record<number, string> = {
  1: "courses/web/01-intro.md",
  2: "courses/web/02-tags.md",
  3: "courses/go/01-tour.md",
};

/** Write the tree a pull of COURSES and CHAPTERS leaves, and return its snapshot. */
async function pulledTree(root: string): Promise<Snapshot> {
  const layout = { folder: (c: WireRecord) => FOLDER[c.id]!, file: (c: WireRecord) => FILE[c.id]! };
  const { files, snapshot } = pulledFiles(COURSES, CHAPTERS, layout);
  for (const [rel, text] of Object.entries(files)) await put(root, rel, text);
  return snapshot;
}

async function put(root: string, rel: string, text: string): Promise<void> {
  const file = path.join(root, ...rel.split("/"));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

/** Edits to the tree, as a person or their tools make them. */
function treeOps(root: string) {
  const full = (rel: string) => path.join(root, ...rel.split("/"));
  return {
    write: (rel: string, text: string) => put(root, rel, text),
    remove: (rel: string) => rm(full(rel), { recursive: true }),
    move: async (from: string, to: string) => {
      await mkdir(path.dirname(full(to)), { recursive: true });
      await rename(full(from), full(to));
    },
    chapter: (id: number, change: Record<string, unknown>) => {
      const record = { ...CHAPTERS.find((c) => c.id === id)!, ...change };
      return put(root, FILE[id]!, chapterFileText(id, chapterValuesOfRecord(record), htmlBodies));
    },
    course: (id: number, change: Record<string, unknown>) => {
      const record = { ...COURSES.find((c) => c.id === id)!, ...change };
      return put(root, `${FOLDER[id]}/course.yaml`, courseFileText(id, courseValuesOfRecord(record)));
    },
    touch: async (rel: string) => {
      const later = new Date(Date.now() + 120_000);
      await utimes(full(rel), later, later);
    },
  };
}

type Tree = ReturnType<typeof treeOps>;

/** The site as push re-reads it: records by key, changed by "another user". */
type Site = Map<string, WireRecord>;

function siteOf(): Site {
  const site: Site = new Map();
  for (const c of COURSES) site.set(`course:${c.id}`, structuredClone(c));
  for (const c of CHAPTERS) site.set(`chapter:${c.id}`, structuredClone(c));
  return site;
}

const editRemote = (site: Site, key: string, change: Record<string, unknown>) =>
  site.set(key, { ...site.get(key)!, ...change });

/** What a push would do, one line per write (after the re-read), rename or problem. */
async function pushLines(
  root: string,
  snapshot: Snapshot,
  site: Site,
  statCache?: StatCache,
): Promise<string[]> {
  const { local, problems } = await localOf(root, snapshot, { parseAll: true, statCache });
  if (problems.length > 0) return problems.map((p) => `invalid ${p.message}`);
  const plan = planPush(planLocalChanges(snapshot, local), snapshot, local);
  if (plan.problems.length > 0) return plan.problems.map((p) => `invalid ${p.message}`);
  const lines: string[] = [];
  for (const op of plan.ops) {
    if (op.type === "create") {
      lines.push(`create ${op.kind} ${op.path}${op.kind === "chapter" ? ` in ${op.courseKey}` : ""}`);
      continue;
    }
    const entry = op.kind === "course" ? snapshot.courses[op.id] : snapshot.chapters[op.id];
    const values = (record: WireRecord) =>
      op.kind === "course" ? courseValuesOfRecord(record) : chapterValuesOfRecord(record);
    const mine = op.kind === "course" ? local.courses.get(op.key) : local.chapters.get(op.key);
    const remote = site.get(op.key);
    const p = reconcileEntity(
      {
        kind: op.kind,
        id: op.id,
        key: op.key,
        base: entry ? values(entry.record) : undefined,
        local: op.type === "delete" || !mine ? undefined : mine.values,
        remote: remote ? values(remote) : undefined,
        remoteKnown: true,
      },
      { equal: fieldsEqual },
    );
    const who = `${op.kind} ${op.id}`;
    if (p.conflict) lines.push(`conflict ${who} ${p.conflict.reason}:${p.conflict.fields.join(",")}`);
    else if (p.toSite.type === "update")
      lines.push(
        `update ${who} send [${p.toSite.fields.join(",")}]${p.toTree.type === "write" ? ` file gets [${p.toTree.fields.join(",")}]` : ""}`,
      );
    else if (p.toSite.type === "delete") lines.push(`delete ${who}`);
    else lines.push(`${op.type} ${who}: the site already has it`);
  }
  for (const r of plan.renames) lines.push(`rename ${r.kind} ${r.id} ${r.from} -> ${r.path} (nothing sent)`);
  const deletes = plan.ops.filter((op) => op.type === "delete").length;
  const guard = defaultMaxDelete(
    Object.keys(snapshot.courses).length + Object.keys(snapshot.chapters).length,
  );
  if (deletes > guard) lines.push(`stop: ${deletes} deletes over the guard of ${guard}`);
  return lines;
}

interface Case {
  local?: (tree: Tree) => Promise<unknown>;
  remote?: (site: Site) => unknown;
  push: string[];
}

const CATALOGUE: Record<string, Case> = {
  "local edit": { local: (t) => t.chapter(1, { title: "Hello" }), push: ["update chapter 1 send [title]"] },
  "remote edit": { remote: (s) => editRemote(s, "chapter:1", { title: "Theirs" }), push: [] },
  "both edited, identically": {
    local: (t) => t.chapter(1, { title: "Same" }),
    remote: (s) => editRemote(s, "chapter:1", { title: "Same" }),
    push: ["update chapter 1: the site already has it"],
  },
  "disjoint fields": {
    local: (t) => t.chapter(1, { title: "Mine" }),
    remote: (s) => editRemote(s, "chapter:1", { content: "<p>theirs</p>" }),
    push: ["update chapter 1 send [title] file gets [content]"],
  },
  "same field, different values": {
    local: (t) => t.course(1, { excerpt: "Mine" }),
    remote: (s) => editRemote(s, "course:1", { excerpt: "Theirs" }),
    push: ["conflict course 1 both-changed:excerpt"],
  },
  "revert to base": {
    local: async (t) => {
      await t.chapter(1, { title: "Changed" });
      await t.chapter(1, {});
    },
    push: [],
  },
  "touch only (mtime changes, bytes do not)": { local: (t) => t.touch("courses/web/01-intro.md"), push: [] },
  "local delete": { local: (t) => t.remove("courses/web/02-tags.md"), push: ["delete chapter 2"] },
  "remote delete": { remote: (s) => s.delete("chapter:2"), push: [] },
  "local delete vs remote edit": {
    local: (t) => t.remove("courses/web/02-tags.md"),
    remote: (s) => editRemote(s, "chapter:2", { content: "<p>more</p>" }),
    push: ["conflict chapter 2 deleted-locally-edited-remotely:content"],
  },
  "remote delete vs local edit": {
    local: (t) => t.chapter(2, { ordinal: 5 }),
    remote: (s) => s.delete("chapter:2"),
    push: ["conflict chapter 2 deleted-remotely-edited-locally:ordinal"],
  },
  "course deleted locally, a chapter of it edited remotely": {
    local: (t) => t.remove("courses/web"),
    remote: (s) => editRemote(s, "chapter:2", { title: "Edited there" }),
    push: [
      "delete chapter 1",
      "conflict chapter 2 deleted-locally-edited-remotely:title",
      "delete course 1",
      "stop: 3 deletes over the guard of 1",
    ],
  },
  "rename keeping the id (git mv)": {
    local: (t) => t.move("courses/web/02-tags.md", "courses/web/02-html-tags.md"),
    push: ["rename chapter 2 courses/web/02-tags.md -> courses/web/02-html-tags.md (nothing sent)"],
  },
  "course folder renamed": {
    local: (t) => t.move("courses/go", "courses/golang"),
    push: [
      "rename course 2 courses/go -> courses/golang (nothing sent)",
      "rename chapter 3 courses/go/01-tour.md -> courses/golang/01-tour.md (nothing sent)",
    ],
  },
  "case-only rename": {
    local: (t) => t.move("courses/web/01-intro.md", "courses/web/01-Intro.md"),
    push: ["rename chapter 1 courses/web/01-intro.md -> courses/web/01-Intro.md (nothing sent)"],
  },
  "move to another course": {
    local: (t) => t.move("courses/web/02-tags.md", "courses/go/02-tags.md"),
    push: ["update chapter 2 send [course_id]"],
  },
  "copy keeping the id": {
    local: async (t) => {
      await t.write(
        "courses/go/05-intro-copy.md",
        "---\nid: 1\ntitle: Intro\nordinal: 5\nformat: html\n---\n<p>a</p>\n",
      );
    },
    push: ["invalid courses/web/01-intro.md:2: has the same id as courses/go/05-intro-copy.md"],
  },
  "two files renamed to one name (the second overwrites the first)": {
    local: async (t) => {
      await t.move("courses/web/01-intro.md", "courses/web/01-basics.md");
      await t.move("courses/web/02-tags.md", "courses/web/01-basics.md");
    },
    push: [
      "delete chapter 1",
      "rename chapter 2 courses/web/02-tags.md -> courses/web/01-basics.md (nothing sent)",
    ],
  },
  "new course with chapters": {
    local: async (t) => {
      await t.write("courses/rust/course.yaml", "title: Rust\n");
      await t.write(
        "courses/rust/01-own.md",
        "---\ntitle: Ownership\nordinal: 1\nformat: html\n---\n<p>o</p>\n",
      );
      await t.write(
        "courses/rust/02-borrow.md",
        "---\ntitle: Borrowing\nordinal: 2\nformat: html\n---\n<p>b</p>\n",
      );
    },
    push: [
      "create course courses/rust",
      "create chapter courses/rust/01-own.md in course:new:courses/rust",
      "create chapter courses/rust/02-borrow.md in course:new:courses/rust",
    ],
  },
  "new chapter in an existing course": {
    local: (t) =>
      t.write("courses/go/02-maps.md", "---\ntitle: Maps\nordinal: 2\nformat: html\n---\n<p>m</p>\n"),
    push: ["create chapter courses/go/02-maps.md in course:2"],
  },
  "invalid YAML": {
    local: (t) => t.write("courses/go/course.yaml", "id: 2\ntitle: Go: the language\n"),
    push: [
      "invalid courses/go/course.yaml:2: YAML does not parse: Nested mappings are not allowed in compact mappings",
    ],
  },
  "editor junk files": {
    local: async (t) => {
      for (const name of [
        ".01-intro.md.swp",
        "01-intro.md~",
        ".DS_Store",
        "01-intro (conflicted copy).md",
        "01-intro.sync-conflict-20260301-093000-XYZ.md",
        ".#01-intro.md",
      ])
        await t.write(`courses/web/${name}`, "--- [ not: yaml\n");
    },
    push: [],
  },
  "conflict markers": {
    local: (t) =>
      t.write(
        "courses/web/02-tags.md",
        "---\nid: 2\ntitle: Tags\nordinal: 2\nformat: html\n---\n<<<<<<< HEAD\n<p>mine</p>\n=======\n<p>theirs</p>\n>>>>>>> main\n",
      ),
    push: ["invalid courses/web/02-tags.md:7: holds conflict markers (<<<<<<< ... >>>>>>>)"],
  },
  "mass delete": {
    local: async (t) => {
      await t.remove("courses/web/01-intro.md");
      await t.remove("courses/web/02-tags.md");
    },
    push: ["delete chapter 1", "delete chapter 2", "stop: 2 deletes over the guard of 1"],
  },
};

describe("the push catalogue: one situation each, base vs tree vs site", () => {
  it.each(Object.entries(CATALOGUE))("%s", async (_name, situation) => {
    const root = await testdir();
    const snapshot = await pulledTree(root);
    const site = siteOf();
    await situation.local?.(treeOps(root));
    situation.remote?.(site);
    expect(await pushLines(root, snapshot, site)).toEqual(situation.push);
  });

  it("a touched file whose stat changed is read again, found equal, and sends nothing", async () => {
    const root = await testdir();
    const snapshot = await pulledTree(root);
    const cache = new StatCache(path.join(root, ".coursesync", "stat.json"), () => Date.now() + 60_000);
    expect(await pushLines(root, snapshot, siteOf(), cache)).toEqual([]);
    await treeOps(root).touch("courses/web/01-intro.md");
    expect(await pushLines(root, snapshot, siteOf(), cache)).toEqual([]);
  });
});
