import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultMaxDelete } from "../../src/sync/guards.js";
import { inPaths, planLocalChanges } from "../../src/sync/local/changes.js";
import type { LocalChapter, LocalCourse, LocalView } from "../../src/sync/local/view.js";
import { courseValuesOfRecord, snapshotRecord } from "../../src/sync/model/entities.js";
import { chapterInput, courseInput, type PushOp, planPush } from "../../src/sync/push/plan.js";
import { Journal, type JournalLine, unconfirmedIntents } from "../../src/sync/state/journal.js";
import { foldJournal, withId } from "../../src/sync/state/recovery.js";
import type { Snapshot } from "../../src/sync/state/snapshot-model.js";
import { nodeFs, type TreeFs } from "../../src/tree/tree-fs.js";
import { recordBuilders, syncedWorld as world } from "../helpers/records.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const STAMP = "2026-03-01T09:30:00.000+00:00";

const { course, chapter } = recordBuilders(STAMP, (id) => ({ ordinal: id, content: `<p>chapter ${id}</p>` }));

/** Change a course's local values (as an edited course.yaml would). */
function editCourse(local: LocalView, id: number, values: Partial<LocalCourse["values"]>): void {
  const entry = local.courses.get(`course:${id}`)!;
  local.courses.set(entry.key, { ...entry, values: { ...entry.values, ...values }, unchanged: false });
}

/** Change a chapter's local values (as an edited chapter file would). */
function editChapter(local: LocalView, id: number, change: Partial<LocalChapter>): void {
  const entry = local.chapters.get(`chapter:${id}`)!;
  local.chapters.set(entry.key, { ...entry, ...change, unchanged: false });
}

function addCourse(local: LocalView, folder: string, title: string): string {
  const key = `course:new:${folder}`;
  local.courses.set(key, {
    id: undefined,
    key,
    folder,
    file: `${folder}/course.yaml`,
    hash: `hash-${folder}`,
    values: courseValuesOfRecord({
      id: 0,
      title,
      status: "draft",
      excerpt: null,
      free: null,
      questions_enabled: null,
    }),
    unchanged: false,
  });
  local.courseByFolder.set(folder, key);
  return key;
}

function addChapter(local: LocalView, file: string, courseKey: string, title: string, courseId?: number) {
  const key = `chapter:new:${file}`;
  local.chapters.set(key, {
    id: undefined,
    key,
    file,
    folder: path.posix.dirname(file),
    courseKey,
    hash: `hash-${file}`,
    values: { title, ordinal: 1, course_id: courseId, content: `<p>${title}</p>` },
    unchanged: false,
  });
}

/** One line per write, the way a reviewer reads a plan. */
function show(op: PushOp): string {
  const who = `${op.kind} ${op.type === "create" ? op.path : op.id}`;
  return op.type === "update" ? `update ${who} [${op.fields.join(",")}]` : `${op.type} ${who}`;
}

function plan(snapshot: Snapshot, local: LocalView, paths?: readonly string[]) {
  return planPush(planLocalChanges(snapshot, local, paths), snapshot, local);
}

const C1 = course(1, { title: "Web", status: "published", excerpt: "HTML" });
const C2 = course(2, { title: "Python" });
const C3 = course(3, { title: "Rust" });

describe("planPush: the writes of a push, in order", () => {
  it("sends nothing for a tree that matches the snapshot", async () => {
    const { snapshot, local } = await world([C1, C2], [chapter(10, 1), chapter(11, 2)]);
    expect(plan(snapshot, local)).toEqual({ ops: [], renames: [], problems: [] });
  });

  it("orders course creates, chapter creates, updates, chapter deletes, course deletes", async () => {
    const { snapshot, local } = await world(
      [C1, C2, C3],
      [chapter(10, 1), chapter(11, 1), chapter(12, 3), chapter(13, 3)],
    );
    // Deletes first in the input, creates last: the plan reorders them.
    local.courses.delete("course:3");
    local.chapters.delete("chapter:12");
    local.chapters.delete("chapter:13");
    local.chapters.delete("chapter:11");
    editChapter(local, 10, { values: { ...local.chapters.get("chapter:10")!.values, title: "New title" } });
    editCourse(local, 2, { excerpt: "Snakes" });
    const fresh = addCourse(local, "courses/go", "Go");
    addChapter(local, "courses/course-1/05-extra.md", "course:1", "Extra", 1);
    addChapter(local, "courses/go/01-hello.md", fresh, "Hello Go");

    const result = plan(snapshot, local);
    expect(result.problems).toEqual([]);
    expect(result.ops.map(show)).toEqual([
      "create course courses/go",
      "create chapter courses/course-1/05-extra.md",
      "create chapter courses/go/01-hello.md",
      "update course 2 [excerpt]",
      "update chapter 10 [title]",
      "delete chapter 11",
      "delete chapter 12",
      "delete chapter 13",
      "delete course 3",
    ]);
    const created = result.ops.find((op) => op.type === "create" && op.path === "courses/go/01-hello.md");
    expect(created).toMatchObject({ courseKey: fresh });
  });

  it("lists only the changed fields of an update, with old and new values for people", async () => {
    const { snapshot, local } = await world([C1], [chapter(10, 1)]);
    editCourse(local, 1, { title: "Web Basics", free: true });
    editChapter(local, 10, {
      values: { ...local.chapters.get("chapter:10")!.values, content: "<p>rewritten</p>", ordinal: 4 },
    });
    const ops = plan(snapshot, local).ops;
    expect(ops).toEqual([
      expect.objectContaining({
        type: "update",
        kind: "course",
        id: 1,
        fields: ["free", "title"],
        diff: [
          { field: "free", from: false, to: true },
          { field: "title", from: "Web", to: "Web Basics" },
        ],
      }),
      expect.objectContaining({
        type: "update",
        kind: "chapter",
        id: 10,
        fields: ["content", "ordinal"],
        diff: [
          { field: "content", from: "(body)", to: "(changed)" },
          { field: "ordinal", from: 10, to: 4 },
        ],
      }),
    ]);
  });

  it("a chapter moved to another course folder is an update of course_id only", async () => {
    const { snapshot, local } = await world([C1, C2], [chapter(10, 1)]);
    const entry = local.chapters.get("chapter:10")!;
    editChapter(local, 10, {
      file: "courses/course-2/10-chapter-10.md",
      folder: "courses/course-2",
      courseKey: "course:2",
      values: { ...entry.values, course_id: 2 },
    });
    const ops = plan(snapshot, local).ops;
    expect(ops.map(show)).toEqual(["update chapter 10 [course_id]"]);
    expect(ops[0]).toMatchObject({ path: "courses/course-2/10-chapter-10.md", courseKey: "course:2" });
  });

  it("a chapter moved into a course being created waits for that course's id", async () => {
    const { snapshot, local } = await world([C1], [chapter(10, 1)]);
    const fresh = addCourse(local, "courses/go", "Go");
    const entry = local.chapters.get("chapter:10")!;
    editChapter(local, 10, {
      file: "courses/go/10-chapter-10.md",
      folder: "courses/go",
      courseKey: fresh,
      values: { ...entry.values, course_id: undefined },
    });
    const ops = plan(snapshot, local).ops;
    expect(ops.map(show)).toEqual(["create course courses/go", "update chapter 10 [course_id]"]);
    expect(ops[1]).toMatchObject({ courseKey: fresh });
  });

  it("a rename with nothing else changed sends nothing and moves the snapshot's path", async () => {
    const { snapshot, local } = await world([C1], [chapter(10, 1)]);
    editChapter(local, 10, { file: "courses/course-1/01-intro.md", unchanged: true });
    const result = plan(snapshot, local);
    expect(result.ops).toEqual([]);
    expect(result.renames).toEqual([
      {
        kind: "chapter",
        id: 10,
        path: "courses/course-1/01-intro.md",
        from: "courses/course-1/10-chapter-10.md",
      },
    ]);
  });

  it("refuses a status the API cannot take, naming the course file", async () => {
    const { snapshot, local } = await world([C1], []);
    editCourse(local, 1, { status: "Published" });
    const result = plan(snapshot, local);
    expect(result.ops).toEqual([]);
    expect(result.problems.map((p) => p.message)).toEqual([
      'courses/course-1/course.yaml: status must be draft or published, not "Published"',
    ]);
  });

  it("keeps a status only the site can set, and lets it be changed to draft or published", async () => {
    const { snapshot, local } = await world([course(1, { status: "archived" })], []);
    editCourse(local, 1, { title: "Kept as archived" });
    expect(plan(snapshot, local).ops.map(show)).toEqual(["update course 1 [title]"]);
    editCourse(local, 1, { status: "draft" });
    expect(plan(snapshot, local).ops.map(show)).toEqual(["update course 1 [status,title]"]);
  });

  it("a new chapter given alone on the command line brings its new course along", async () => {
    const { snapshot, local } = await world([C1], []);
    const fresh = addCourse(local, "courses/go", "Go");
    addChapter(local, "courses/go/01-hello.md", fresh, "Hello");
    const result = plan(snapshot, local, ["courses/go/01-hello.md"]);
    expect(result.problems).toEqual([]);
    expect(result.ops.map(show)).toEqual([
      "create course courses/go",
      "create chapter courses/go/01-hello.md",
    ]);
  });

  it("limits the plan to the given paths (a file, a folder, or a rename's old path)", async () => {
    const { snapshot, local } = await world([C1, C2], [chapter(10, 1), chapter(11, 2)]);
    editCourse(local, 1, { title: "A" });
    editChapter(local, 10, { values: { ...local.chapters.get("chapter:10")!.values, title: "B" } });
    editChapter(local, 11, { values: { ...local.chapters.get("chapter:11")!.values, title: "C" } });
    expect(plan(snapshot, local, ["courses/course-1"]).ops.map(show)).toEqual([
      "update course 1 [title]",
      "update chapter 10 [title]",
    ]);
    expect(plan(snapshot, local, ["courses/course-2/11-chapter-11.md"]).ops.map(show)).toEqual([
      "update chapter 11 [title]",
    ]);
    expect(plan(snapshot, local, ["."]).ops).toHaveLength(3);
    expect(inPaths("courses/course-10", ["courses/course-1"])).toBe(false);
    expect(inPaths("courses/course-1", ["courses/course-1/01-a.md"])).toBe(true);
  });
});

describe("the API's input for a plan", () => {
  const values = courseValuesOfRecord(course(1, { title: "T", status: "published", excerpt: null }));

  it("maps course status to 0/1 and sends only the fields asked for", () => {
    expect(courseInput(values, ["status", "title"])).toEqual({ status: 1, title: "T" });
    expect(courseInput({ ...values, status: "draft" }, ["status"])).toEqual({ status: 0 });
    expect(courseInput(values, ["excerpt"])).toEqual({ excerpt: null });
    // A status the API cannot take is left out rather than sent wrong.
    expect(courseInput({ ...values, status: "archived" }, ["status"])).toEqual({});
  });

  it("sends a chapter's course as the id given (a course created in this push) and needs the body", () => {
    const chapterValues = { title: "T", ordinal: 2, course_id: 1, content: "<p>x</p>" };
    expect(chapterInput(chapterValues, ["course_id", "title"], 9)).toEqual({ course_id: 9, title: "T" });
    expect(chapterInput(chapterValues, ["course_id", "content"])).toEqual({
      course_id: 1,
      content: "<p>x</p>",
    });
    expect(() => chapterInput({ ...chapterValues, content: { sha256: "abc" } }, ["content"])).toThrow(
      /content to send is not at hand/,
    );
  });
});

describe("withId: the new id goes into the file, every other byte stays", () => {
  it.each([
    ["a course file", "course", "title: Go\n", "id: 7\ntitle: Go\n"],
    ["a course file with a BOM and CRLF", "course", "\uFEFFtitle: Go\r\n", "\uFEFFid: 7\r\ntitle: Go\r\n"],
    [
      "a chapter file",
      "chapter",
      "---\ntitle: Hi\nordinal: 1\n---\n<p>id: 3</p>\n",
      "---\nid: 7\ntitle: Hi\nordinal: 1\n---\n<p>id: 3</p>\n",
    ],
    [
      "a chapter file with CRLF",
      "chapter",
      "---\r\ntitle: Hi\r\nordinal: 1\r\n---\r\nbody\r\n",
      "---\r\nid: 7\r\ntitle: Hi\r\nordinal: 1\r\n---\r\nbody\r\n",
    ],
    ["a course file with an empty id", "course", "id:\ntitle: Go\n", "id: 7\ntitle: Go\n"],
    ["a course file with id: null", "course", "title: Go\nid: null\n", "title: Go\nid: 7\n"],
    [
      "a chapter file with id: null",
      "chapter",
      "---\nid: null\ntitle: Hi\nordinal: 1\n---\nid: body\n",
      "---\nid: 7\ntitle: Hi\nordinal: 1\n---\nid: body\n",
    ],
    [
      "a chapter file with an old id (recreated with --force)",
      "chapter",
      "---\r\ntitle: Hi\r\nid: 3\r\nordinal: 1\r\n---\r\nbody\r\n",
      "---\r\ntitle: Hi\r\nid: 7\r\nordinal: 1\r\n---\r\nbody\r\n",
    ],
  ] as const)("%s", (_name, kind, text, expected) => {
    expect(withId(text, 7, kind)).toBe(expected);
  });
});

describe("the push journal", () => {
  const record = chapter(21, 1, { title: "Made" });
  const lines: JournalLine[] = [
    { t: "intent", op: "create", kind: "chapter", key: "chapter:new:a.md", path: "a.md", fields: {} },
    {
      t: "done",
      op: "create",
      kind: "chapter",
      key: "chapter:new:a.md",
      id: 21,
      path: "a.md",
      record,
      hash: "h",
    },
    { t: "intent", op: "create", kind: "chapter", key: "chapter:new:b.md", path: "b.md", fields: { x: 1 } },
    {
      t: "done",
      op: "update",
      kind: "course",
      key: "course:1",
      id: 1,
      path: "courses/c",
      record: course(1, { title: "Edited" }),
      hash: "h1",
    },
    { t: "done", op: "delete", kind: "chapter", key: "chapter:10", id: 10, path: "courses/c/10.md" },
  ];

  it("folds confirmed writes into the snapshot (content by hash) and leaves intents out", async () => {
    const { snapshot } = await world([C1], [chapter(10, 1)]);
    const next = foldJournal(snapshot, lines);
    expect(Object.keys(next.chapters)).toEqual(["21"]);
    expect(next.chapters[21]).toEqual({ path: "a.md", hash: "h", record: snapshotRecord(record) });
    expect(next.chapters[21]?.record.content).toBeUndefined();
    expect(next.courses[1]).toMatchObject({ path: "courses/c", hash: "h1", record: { title: "Edited" } });
    // Pure: the snapshot it started from is untouched.
    expect(Object.keys(snapshot.chapters)).toEqual(["10"]);
  });

  it("a record created again under a new id replaces the one the site lost", async () => {
    const { snapshot } = await world([C1], [chapter(10, 1)]);
    const again = chapter(30, 1);
    const next = foldJournal(snapshot, [
      {
        t: "done",
        op: "create",
        kind: "chapter",
        key: "chapter:10",
        id: 30,
        path: "x.md",
        record: again,
        hash: "h",
      },
    ]);
    expect(Object.keys(next.chapters)).toEqual(["30"]);
  });

  it("names the creates that were sent but never confirmed", () => {
    expect(unconfirmedIntents(lines).map((line) => line.key)).toEqual(["chapter:new:b.md"]);
  });

  it("reads back what was appended, skipping a line cut off by a crash, and clears", async () => {
    const dir = await testdir();
    const journal = new Journal(path.join(dir, "production.journal"), "base-1");
    expect(await journal.read()).toEqual([]);
    for (const line of lines.slice(0, 2)) await journal.append(line);
    await writeFile(journal.file, `${await readFile(journal.file, "utf8")}{"t":"done","op":"cre`);
    // The next run reads it, and what it appends starts on a line of its own.
    const next = new Journal(journal.file, "base-1");
    expect(await next.read()).toEqual(lines.slice(0, 2));
    await next.append(lines[2]!);
    expect(await new Journal(journal.file, "base-1").read()).toEqual(lines.slice(0, 3));
    await next.clear();
    expect(await next.read()).toEqual([]);
  });

  it("keeps every line of appends made side by side, the first one (which starts the journal) included", async () => {
    const dir = await testdir();
    // A disk slow to start the journal: the appends after it must not land before it.
    let started!: () => void;
    const slow = new Promise<void>((resolve) => {
      started = resolve;
    });
    const fs: TreeFs = {
      ...nodeFs,
      writeFile: async (file, data) => {
        await slow;
        await nodeFs.writeFile(file, data);
      },
    };
    const journal = new Journal(path.join(dir, "production.journal"), "base-1", fs);
    const appends = lines.slice(0, 3).map((line) => journal.append(line));
    setImmediate(started);
    await Promise.all(appends);
    expect(await new Journal(journal.file, "base-1").read()).toEqual(lines.slice(0, 3));
  });

  it("takes a journal for another snapshot as stale: already folded, read as empty and started afresh", async () => {
    const dir = await testdir();
    const journal = new Journal(path.join(dir, "production.journal"), "base-1");
    for (const line of lines.slice(0, 2)) await journal.append(line);
    // The run saved its snapshot (now base-2) and was killed before removing the journal.
    const later = new Journal(journal.file, "base-2");
    expect(await later.read()).toEqual([]);
    await later.append(lines[2]!);
    expect(await new Journal(journal.file, "base-2").read()).toEqual([lines[2]]);
    expect(await new Journal(journal.file, "base-1").read()).toEqual([]);
  });
});

describe("the delete guard", () => {
  it.each([
    [0, 1],
    [4, 1],
    [8, 2],
    [40, 10],
    [41, 10],
    [1000, 10],
  ])("a site of %i records allows %i deletes", (size, limit) => {
    expect(defaultMaxDelete(size)).toBe(limit);
  });
});
