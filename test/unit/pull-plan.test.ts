import { afterEach, describe, expect, it } from "vitest";
import type { WireRecord } from "../../src/api/wire.js";
import {
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
  renderChapter,
} from "../../src/sync/model/entities.js";
import type { Change } from "../../src/sync/model/report.js";
import { existingFiles } from "../../src/sync/pull/apply.js";
import { executePlan } from "../../src/sync/pull/execute.js";
import { type FileOp, type PullInput, type PullPlan, planPull } from "../../src/sync/pull/plan.js";
import type { Winner } from "../../src/sync/reconcile.js";
import type { Snapshot } from "../../src/sync/state/snapshot-model.js";
import { SiteState } from "../../src/sync/state/workspace.js";
import type { BodyCodec } from "../../src/tree/bodies.js";
import { COURSE_FILE } from "../../src/tree/layout.js";
import type { ScanResult } from "../../src/tree/scan.js";
import { sha256 } from "../../src/util/hash.js";
import { recordBuilders } from "../helpers/records.js";
import { cleanupTestdirs, readTree } from "../helpers/testdir.js";
import { type Files, treeOf } from "../helpers/tree.js";

afterEach(cleanupTestdirs);

// ---- in-memory world: remote records in, files and snapshot as a pull leaves them ----------

const STAMP = "2026-03-01T09:30:00.000+05:30";
const SITE = "https://academy.example.com/api/v1";

/** HTML kept verbatim: the planner under test, not the body conversion. */
const bodies: BodyCodec = {
  mode: "html",
  fromHtml: (html) => ({ body: html, format: "html" }),
  toHtml: (body) => body,
};

const { course, chapter } = recordBuilders(STAMP, () => ({
  ordinal: 1,
  content: "<p>one</p>\n<p>two</p>\n<p>three</p>",
}));

interface Remote {
  courses: WireRecord[];
  chapters: WireRecord[];
}

interface PlanOptions {
  winner?: Winner;
  paths?: string[];
  rendered?: PullInput["rendered"];
  courseHash?: PullInput["courseHash"];
}

/** A tree, its snapshot and content cache, pulled into by planPull and pull's execute step. */
class World {
  files: Files = {};
  snapshot: Snapshot | undefined;
  readonly cache = new Map<string, string>();

  async plan(remote: Remote, options: PlanOptions = {}): Promise<PullPlan> {
    return (await this.planned(remote, options)).plan;
  }

  /** The plan, and the tree (a real folder) it was made against. */
  private async planned(
    remote: Remote,
    options: PlanOptions,
  ): Promise<{ plan: PullPlan; root: string; scan: ScanResult }> {
    const { root, scan, local, problems } = await treeOf(this.files, this.snapshot, { bodies });
    expect(problems).toEqual([]);
    const { paths } = options;
    const plan = planPull({
      snapshot: this.snapshot,
      site: SITE,
      local,
      remoteCourses: remote.courses,
      remoteChapters: remote.chapters,
      baseTexts: this.cache,
      bodies,
      winner: options.winner,
      existingCopies: new Set(scan.copies),
      rendered: options.rendered,
      courseHash: options.courseHash,
      inScope: paths
        ? ({ folders }) => folders.some((f) => paths.some((p) => f === p || f.startsWith(`${p}/`)))
        : undefined,
    });
    return { plan, root, scan };
  }

  /** Plan, then apply the file operations with pull's own execute step, and read the tree back. */
  async pull(remote: Remote, options: { winner?: Winner; paths?: string[] } = {}): Promise<PullPlan> {
    const { plan, root, scan } = await this.planned(remote, options);
    const existing = existingFiles(scan, plan.ops);
    await executePlan(
      { root },
      SiteState.open(root, "production"),
      { plan, existing, temps: Promise.resolve([]) },
      {},
    );
    const files = await readTree(root, [".coursesync"]);
    // Every record the snapshot knows has its file where the snapshot says.
    for (const [id, entry] of Object.entries(plan.snapshot.courses)) {
      expect(files[`${entry.path}/${COURSE_FILE}`], `course ${id} at ${entry.path}`).toBeDefined();
    }
    for (const [id, entry] of Object.entries(plan.snapshot.chapters)) {
      expect(files[entry.path], `chapter ${id} at ${entry.path}`).toContain(`id: ${id}\n`);
    }
    this.files = files;
    this.snapshot = plan.snapshot;
    for (const text of [...plan.cacheTexts, ...plan.cacheRecords.map((r) => String(r.content ?? ""))])
      this.cache.set(sha256(text), text);
    return plan;
  }

  edit(file: string, from: string | RegExp, to: string): void {
    const text = this.files[file];
    expect(text, file).toBeDefined();
    const next = text!.replace(from, to);
    expect(next, `edit of ${file}`).not.toBe(text);
    this.files[file] = next;
  }
}

/** A world that has pulled `remote` once. */
async function synced(remote: Remote): Promise<World> {
  const world = new World();
  await world.pull(remote);
  return world;
}

function outcomes(plan: PullPlan): string[] {
  return plan.changes.map((c: Change) => `${c.outcome} ${c.kind} ${c.id} ${c.path}`);
}

function chapterText(id: number, title: string, ordinal: number, content: string): string {
  return `---\nid: ${id}\ntitle: ${title}\nordinal: ${ordinal}\nformat: html\n---\n${content}\n`;
}

const CONTENT = "<p>one</p>\n<p>two</p>\n<p>three</p>";

function baseRemote(): Remote {
  return {
    courses: [course(1, { slug: "web", title: "Web" }), course(2, { slug: "python", title: "Python" })],
    chapters: [
      chapter(10, 1, { title: "Intro", ordinal: 1 }),
      chapter(11, 1, { title: "Styles", ordinal: 2 }),
      chapter(20, 2, { title: "Setup", ordinal: 1 }),
    ],
  };
}

// ---- the cases -------------------------------------------------------------------------------

/** File operations as plain objects: a write's text is made when read, so it is read here. */
function withTexts(ops: readonly FileOp[]): object[] {
  return ops.map((op) => (op.op === "write" ? { ...op, text: op.render() } : op));
}

describe("planPull: a first pull", () => {
  it("creates the tree courses/<slug>/course.yaml and NN-<slug>.md with the HTML verbatim", async () => {
    const world = new World();
    const plan = await world.pull(baseRemote());
    expect(Object.keys(world.files).sort()).toEqual([
      "courses/python/01-setup.md",
      "courses/python/course.yaml",
      "courses/web/01-intro.md",
      "courses/web/02-styles.md",
      "courses/web/course.yaml",
    ]);
    expect(world.files["courses/web/01-intro.md"]).toBe(chapterText(10, "Intro", 1, CONTENT));
    expect(world.files["courses/web/course.yaml"]).toBe(
      [
        "id: 1",
        "title: Web",
        "status: draft",
        'excerpt: ""',
        "free: false",
        "questions_enabled: false",
        "scheduled_at: null",
        "published_at: null",
        "",
      ].join("\n"),
    );
    expect(plan.ops.every((op) => op.op === "write")).toBe(true);
    expect(plan.deletes).toBe(0);
    expect(outcomes(plan).every((line) => line.startsWith("created "))).toBe(true);
    expect(plan.cacheTexts).toContain(CONTENT);
  });

  it("names, for a created file that was staged, the hash of exactly the text it writes", async () => {
    // Apply moves the staged file with this hash into place without making the text: a hash
    // that is not the text's would put other bytes in the tree.
    const world = new World();
    const rendered = (record: WireRecord) => renderChapter(record.id, chapterValuesOfRecord(record), bodies);
    const courseHash = (record: WireRecord) =>
      sha256(courseFileText(record.id, courseValuesOfRecord(record)));
    const plan = await world.plan(baseRemote(), { rendered, courseHash });
    const writes = plan.ops.filter((op) => op.op === "write");
    expect(writes.map((op) => op.path.split("/").pop()).sort()).toEqual([
      "01-intro.md",
      "01-setup.md",
      "02-styles.md",
      COURSE_FILE,
      COURSE_FILE,
    ]);
    for (const op of writes)
      expect(op.op === "write" && op.hash).toBe(sha256(op.op === "write" ? op.render() : ""));
    // The snapshot records the same hashes as a plan that renders every file itself.
    const plain = await world.plan(baseRemote());
    expect(plan.snapshot).toEqual(plain.snapshot);
    // Without a staged rendering, no hash is claimed.
    expect(plain.ops.filter((op) => op.op === "write" && op.hash !== undefined)).toEqual([]);
  });

  it("records in the snapshot each path, the hash of the file as written and every field sent", async () => {
    const remote = baseRemote();
    remote.courses[0] = course(1, { slug: "web", title: "Web", marketing: { tags: ["a"] }, rank: 3 });
    remote.chapters[0] = chapter(10, 1, { title: "Intro", ordinal: 1, video_url: null });
    const world = await synced(remote);
    const snapshot = world.snapshot!;
    expect(snapshot.site).toBe(SITE);
    expect(Object.keys(snapshot.courses).sort()).toEqual(["1", "2"]);
    expect(Object.keys(snapshot.chapters).sort()).toEqual(["10", "11", "20"]);
    const web = snapshot.courses[1]!;
    expect(web.path).toBe("courses/web");
    expect(web.hash).toBe(sha256(world.files["courses/web/course.yaml"]!));
    expect(web.record).toEqual(remote.courses[0]);
    const intro = snapshot.chapters[10]!;
    expect(intro.path).toBe("courses/web/01-intro.md");
    expect(intro.hash).toBe(sha256(world.files[intro.path]!));
    const { content, ...rest } = remote.chapters[0]!;
    expect(intro.record).toEqual({ ...rest, content_sha256: sha256(content as string) });
    expect(intro.record.created_at).toBe(STAMP);
  });
});

describe("planPull: incremental", () => {
  it("plans nothing when nothing changed", async () => {
    const world = await synced(baseRemote());
    const before = structuredClone(world.snapshot);
    const plan = await world.plan(baseRemote());
    expect(plan.ops).toEqual([]);
    expect(plan.changes).toEqual([]);
    expect(plan.deletes).toBe(0);
    expect(plan.cacheTexts).toEqual([]);
    expect(plan.snapshot).toEqual(before);
  });

  it("keeps a local edit when the site did not change", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/web/01-intro.md", "<p>two</p>", "<p>TWO, edited here</p>");
    world.edit("courses/web/course.yaml", 'excerpt: ""', "excerpt: Mine");
    const before = structuredClone(world.snapshot);
    const plan = await world.plan(baseRemote());
    expect(plan.ops).toEqual([]);
    expect(plan.snapshot).toEqual(before);
  });

  it("writes only what changed on the site, around a local edit elsewhere", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/web/01-intro.md", "<p>two</p>", "<p>TWO</p>");
    const edited = world.files["courses/web/01-intro.md"];
    const remote = baseRemote();
    remote.chapters[2] = chapter(20, 2, { title: "Setup", ordinal: 1, content: "<p>new</p>" });
    const plan = await world.pull(remote);
    expect(withTexts(plan.ops)).toEqual([
      {
        op: "write",
        path: "courses/python/01-setup.md",
        text: chapterText(20, "Setup", 1, "<p>new</p>"),
        from: "courses/python/01-setup.md",
      },
    ]);
    expect(world.files["courses/web/01-intro.md"]).toBe(edited);
    expect(outcomes(plan)).toEqual(["updated chapter 20 courses/python/01-setup.md"]);
    expect(world.snapshot!.chapters[20]!.hash).toBe(sha256(world.files["courses/python/01-setup.md"]!));
  });

  it("keeps the snapshot entries of records with nothing to do as the very objects it had", async () => {
    const world = await synced(baseRemote());
    const before = world.snapshot!;
    const plan = await world.plan(baseRemote());
    expect(plan.snapshot.courses[1]).toBe(before.courses[1]);
    expect(plan.snapshot.chapters[10]).toBe(before.chapters[10]);
    expect(plan.snapshot.chapters[20]).toBe(before.chapters[20]);
  });

  it("reconciles a chapter the site did not change whose file was edited here, beside a change on the site", async () => {
    const world = await synced(baseRemote());
    // Chapter 11 is listed as the snapshot has it, but its file changed here.
    world.edit("courses/web/02-styles.md", "<p>two</p>", "<p>TWO, edited here</p>");
    const edited = world.files["courses/web/02-styles.md"];
    const remote = baseRemote();
    remote.courses[0] = course(1, { slug: "web-dev", title: "Web" });
    const plan = await world.pull(remote);
    expect(outcomes(plan)).toEqual(["renamed course 1 courses/web-dev"]);
    expect(world.files["courses/web-dev/02-styles.md"]).toBe(edited);
    const entry = world.snapshot!.chapters[11]!;
    expect(entry.path).toBe("courses/web-dev/02-styles.md");
    // Still the text of the last sync: the edit here stays pending for a push.
    expect(entry.hash).not.toBe(sha256(edited!));
    expect(world.snapshot!.chapters[20]).toBe(plan.snapshot.chapters[20]);
  });

  it("takes a site change of a chapter in a course whose other records have nothing to do", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/python/01-setup.md", "<p>one</p>", "<p>ONE</p>");
    const remote = baseRemote();
    remote.chapters[1] = chapter(11, 1, { title: "Styling", ordinal: 2 });
    const plan = await world.pull(remote);
    expect(outcomes(plan)).toEqual(["updated chapter 11 courses/web/02-styling.md"]);
    expect(world.files["courses/web/02-styles.md"]).toBeUndefined();
    expect(world.files["courses/python/01-setup.md"]).toContain("<p>ONE</p>");
  });

  it("updates the snapshot but no file when only server-managed or unknown fields changed", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.courses[0] = { ...remote.courses[0]!, updated_at: "2026-03-02T10:00:00.000+05:30", badge: "new" };
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([]);
    expect(plan.snapshot.courses[1]!.record.badge).toBe("new");
    expect(plan.snapshot.courses[1]!.record.updated_at).toBe("2026-03-02T10:00:00.000+05:30");
    expect(plan.snapshot.courses[1]!.hash).toBe(sha256(world.files["courses/web/course.yaml"]!));
  });
});

describe("planPull: renames", () => {
  it("renames a chapter file when its title changes on the site", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.chapters[0] = chapter(10, 1, { title: "Welcome", ordinal: 1 });
    const plan = await world.pull(remote);
    expect(withTexts(plan.ops)).toEqual([
      {
        op: "write",
        path: "courses/web/01-welcome.md",
        from: "courses/web/01-intro.md",
        text: chapterText(10, "Welcome", 1, CONTENT),
      },
    ]);
    expect(outcomes(plan)).toEqual(["updated chapter 10 courses/web/01-welcome.md"]);
    expect(plan.changes[0]).toMatchObject({ from: "courses/web/01-intro.md", fields: ["title"] });
    expect(world.snapshot!.chapters[10]!.path).toBe("courses/web/01-welcome.md");
  });

  it("renames on an ordinal change, and lets two files swap prefixes", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.chapters[0] = chapter(10, 1, { title: "Intro", ordinal: 2 });
    remote.chapters[1] = chapter(11, 1, { title: "Styles", ordinal: 1 });
    await world.pull(remote);
    expect(Object.keys(world.files).filter((f) => f.startsWith("courses/web/"))).toEqual(
      expect.arrayContaining(["courses/web/02-intro.md", "courses/web/01-styles.md"]),
    );
    expect(world.files["courses/web/01-intro.md"]).toBeUndefined();
    expect(world.files["courses/web/02-styles.md"]).toBeUndefined();
    expect(world.files["courses/web/02-intro.md"]).toBe(chapterText(10, "Intro", 2, CONTENT));
  });

  it("moves a course folder when the site's slug changes, leaving its chapters' bytes alone", async () => {
    const world = await synced(baseRemote());
    const intro = world.files["courses/web/01-intro.md"];
    const remote = baseRemote();
    remote.courses[0] = course(1, { slug: "web-dev", title: "Web" });
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([{ op: "move-folder", from: "courses/web", to: "courses/web-dev" }]);
    expect(world.files["courses/web-dev/01-intro.md"]).toBe(intro);
    expect(world.snapshot!.courses[1]!.path).toBe("courses/web-dev");
    expect(world.snapshot!.chapters[10]!.path).toBe("courses/web-dev/01-intro.md");
    expect((await world.plan(remote)).ops).toEqual([]);
  });

  it("moves a chapter to the folder of the course the site moved it to", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.chapters[1] = chapter(11, 2, { title: "Styles", ordinal: 2 });
    await world.pull(remote);
    expect(world.files["courses/web/02-styles.md"]).toBeUndefined();
    expect(world.files["courses/python/02-styles.md"]).toBe(chapterText(11, "Styles", 2, CONTENT));
  });

  it("keeps each of two records with one slug on its own stable file", async () => {
    const remote = baseRemote();
    remote.chapters.push(chapter(12, 1, { title: "Intro!", ordinal: 1 }));
    const world = await synced(remote);
    expect(world.snapshot!.chapters[10]!.path).toBe("courses/web/01-intro.md");
    expect(world.snapshot!.chapters[12]!.path).toBe("courses/web/01-intro-12.md");

    // A lower id arriving with the same name does not take a name already held.
    remote.chapters.push(chapter(5, 1, { title: "intro", ordinal: 1 }));
    await world.pull(remote);
    expect(world.snapshot!.chapters[5]!.path).toBe("courses/web/01-intro-5.md");
    expect(world.snapshot!.chapters[10]!.path).toBe("courses/web/01-intro.md");
    expect(world.snapshot!.chapters[12]!.path).toBe("courses/web/01-intro-12.md");

    // The holder of the plain name goes; the others keep their names.
    remote.chapters = remote.chapters.filter((c) => c.id !== 10);
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([{ op: "delete", path: "courses/web/01-intro.md" }]);
    // A change that does not touch the name keeps the file where it is.
    remote.chapters = remote.chapters.map((c) => (c.id === 12 ? { ...c, content: "<p>x</p>" } : c));
    expect((await world.pull(remote)).ops).toEqual([
      expect.objectContaining({ op: "write", path: "courses/web/01-intro-12.md" }),
    ]);
  });

  it("gives two courses with one slug distinct folders", async () => {
    const remote: Remote = {
      courses: [course(1, { slug: "same" }), course(2, { slug: "same" })],
      chapters: [chapter(10, 1), chapter(20, 2)],
    };
    const world = await synced(remote);
    expect(world.snapshot!.courses[1]!.path).toBe("courses/same");
    expect(world.snapshot!.courses[2]!.path).toBe("courses/same-2");
    expect(world.files["courses/same-2/01-chapter-20.md"]).toContain("id: 20");
    expect((await world.plan(remote)).ops).toEqual([]);
  });
});

describe("planPull: three-way", () => {
  it("merges a field changed on the site into a locally edited file", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/web/01-intro.md", "<p>two</p>", "<p>TWO</p>");
    world.edit("courses/web/course.yaml", 'excerpt: ""', "excerpt: Mine");
    const remote = baseRemote();
    remote.chapters[0] = chapter(10, 1, { title: "Welcome", ordinal: 1 });
    remote.courses[0] = course(1, { slug: "web", title: "Web", free: true });
    const plan = await world.pull(remote);
    expect(world.files["courses/web/01-welcome.md"]).toBe(
      chapterText(10, "Welcome", 1, "<p>one</p>\n<p>TWO</p>\n<p>three</p>"),
    );
    expect(world.files["courses/web/01-intro.md"]).toBeUndefined();
    expect(world.files["courses/web/course.yaml"]).toContain("excerpt: Mine\nfree: true\n");
    expect(plan.changes.filter((c) => c.outcome === "conflict")).toEqual([]);
    // The base is now the site's version: the local edits still show as local changes.
    expect(world.snapshot!.chapters[10]!.hash).not.toBe(sha256(world.files["courses/web/01-welcome.md"]!));
    expect((await world.plan(remote)).ops).toEqual([]);
  });

  it("merges chapter bodies edited on both sides on different lines", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/web/01-intro.md", "<p>one</p>", "<p>ONE (here)</p>");
    const remote = baseRemote();
    remote.chapters[0] = chapter(10, 1, {
      title: "Intro",
      content: "<p>one</p>\n<p>two</p>\n<p>THREE (site)</p>",
    });
    const plan = await world.pull(remote);
    expect(plan.changes.map((c) => c.outcome)).toEqual(["updated"]);
    expect(world.files["courses/web/01-intro.md"]).toBe(
      chapterText(10, "Intro", 1, "<p>ONE (here)</p>\n<p>two</p>\n<p>THREE (site)</p>"),
    );
  });

  it("reports the same field changed on both sides as a conflict, writing the site's version beside", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/web/01-intro.md", "title: Intro", "title: Mine");
    world.edit("courses/web/course.yaml", 'excerpt: ""', "excerpt: Mine");
    const local = { ...world.files };
    const before = structuredClone(world.snapshot!);
    const remote = baseRemote();
    remote.chapters[0] = chapter(10, 1, { title: "Theirs", ordinal: 1 });
    remote.courses[0] = course(1, { slug: "web", title: "Web", excerpt: "Theirs" });
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([
      {
        op: "copy",
        path: "courses/web/course.remote.yaml",
        text: expect.stringContaining("excerpt: Theirs\n"),
      },
      {
        op: "copy",
        path: "courses/web/01-intro.remote.md",
        text: chapterText(10, "Theirs", 1, CONTENT),
      },
    ]);
    for (const [file, text] of Object.entries(local)) expect(world.files[file]).toBe(text);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        kind: "course",
        id: 1,
        outcome: "conflict",
        fields: ["excerpt"],
        copy: "courses/web/course.remote.yaml",
      }),
      expect.objectContaining({
        kind: "chapter",
        id: 10,
        outcome: "conflict",
        fields: ["title"],
        path: "courses/web/01-intro.md",
        copy: "courses/web/01-intro.remote.md",
      }),
    ]);
    // The base stays what it was, so the next pull sees the same conflict.
    expect(plan.snapshot.chapters[10]).toEqual(before.chapters[10]);
    expect(plan.snapshot.courses[1]).toEqual(before.courses[1]);
    expect((await world.plan(remote)).changes.map((c) => c.outcome)).toEqual(["conflict", "conflict"]);
  });

  it("with --theirs takes the site's side and removes the conflict copies", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/web/01-intro.md", "title: Intro", "title: Mine");
    const remote = baseRemote();
    remote.chapters[0] = chapter(10, 1, { title: "Theirs", ordinal: 1 });
    await world.pull(remote);
    expect(world.files["courses/web/01-intro.remote.md"]).toBeDefined();
    const plan = await world.pull(remote, { winner: "remote" });
    expect(plan.changes.map((c) => c.outcome)).toEqual(["updated"]);
    expect(world.files["courses/web/01-theirs.md"]).toBe(chapterText(10, "Theirs", 1, CONTENT));
    expect(world.files["courses/web/01-intro.md"]).toBeUndefined();
    expect(world.files["courses/web/01-intro.remote.md"]).toBeUndefined();
    expect(world.snapshot!.chapters[10]!.hash).toBe(sha256(world.files["courses/web/01-theirs.md"]!));
  });
});

describe("planPull: deletes and creates", () => {
  it("deletes the file of a chapter deleted on the site when it was not edited here", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.chapters = remote.chapters.filter((c) => c.id !== 11);
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([{ op: "delete", path: "courses/web/02-styles.md" }]);
    expect(plan.deletes).toBe(1);
    expect(outcomes(plan)).toEqual(["deleted chapter 11 courses/web/02-styles.md"]);
    expect(world.snapshot!.chapters[11]).toBeUndefined();
  });

  it("keeps and reports a file edited here whose record the site deleted", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/web/02-styles.md", "<p>one</p>", "<p>mine</p>");
    const remote = baseRemote();
    remote.chapters = remote.chapters.filter((c) => c.id !== 11);
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([]);
    expect(plan.deletes).toBe(0);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        id: 11,
        outcome: "conflict",
        path: "courses/web/02-styles.md",
        reason: expect.stringMatching(/deleted on the site, edited here/),
      }),
    ]);
    expect(world.files["courses/web/02-styles.md"]).toContain("<p>mine</p>");
    expect(plan.snapshot.chapters[11]).toBeDefined();
  });

  it("removes a deleted course's folder with its unedited chapters", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.courses = remote.courses.filter((c) => c.id !== 2);
    remote.chapters = remote.chapters.filter((c) => c.course_id !== 2);
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([
      { op: "delete", path: "courses/python/course.yaml" },
      { op: "delete", path: "courses/python/01-setup.md" },
      { op: "remove-folder-if-empty", path: "courses/python" },
    ]);
    expect(plan.deletes).toBe(2);
    expect(Object.keys(plan.snapshot.courses)).toEqual(["1"]);
    expect(Object.keys(plan.snapshot.chapters)).toEqual(["10", "11"]);
  });

  it("keeps a deleted course's folder while an edited chapter stays in it", async () => {
    const world = await synced(baseRemote());
    world.edit("courses/python/01-setup.md", "<p>one</p>", "<p>mine</p>");
    const remote = baseRemote();
    remote.courses = remote.courses.filter((c) => c.id !== 2);
    remote.chapters = remote.chapters.filter((c) => c.course_id !== 2);
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([]);
    expect(plan.changes.map((c) => `${c.outcome} ${c.kind} ${c.id}`)).toEqual([
      "conflict course 2",
      "conflict chapter 20",
    ]);
  });

  it("removes a deleted course whose chapters the site moved to another course", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.courses = remote.courses.filter((c) => c.id !== 2);
    remote.chapters[2] = chapter(20, 1, { title: "Setup", ordinal: 3 });
    const plan = await world.pull(remote);
    expect(plan.changes.filter((c) => c.outcome === "conflict")).toEqual([]);
    expect(Object.keys(world.files).filter((f) => f.startsWith("courses/python/"))).toEqual([]);
    expect(world.files["courses/web/03-setup.md"]).toBe(chapterText(20, "Setup", 3, CONTENT));
  });

  it("creates files for records new on the site", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.courses.push(course(3, { slug: "rust", title: "Rust" }));
    remote.chapters.push(
      chapter(30, 3, { title: "Ownership", ordinal: 1 }),
      chapter(13, 1, { title: "Layout", ordinal: 3 }),
    );
    const plan = await world.pull(remote);
    expect(outcomes(plan)).toEqual([
      "created course 3 courses/rust",
      "created chapter 13 courses/web/03-layout.md",
      "created chapter 30 courses/rust/01-ownership.md",
    ]);
    expect(Object.keys(world.files)).toEqual(
      expect.arrayContaining([
        "courses/rust/course.yaml",
        "courses/rust/01-ownership.md",
        "courses/web/03-layout.md",
      ]),
    );
  });
});

describe("planPull: names freed and taken in one pull", () => {
  it("keeps the file of a record created under the name of one deleted on the site", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.chapters = remote.chapters.filter((c) => c.id !== 10);
    remote.chapters.push(chapter(12, 1, { title: "Intro", ordinal: 1, content: "<p>the new intro</p>" }));
    await world.pull(remote);
    // The freed name is not handed out in the pull that frees it.
    const path12 = world.snapshot!.chapters[12]!.path;
    expect(path12).toBe("courses/web/01-intro-12.md");
    expect(world.files[path12]).toBe(chapterText(12, "Intro", 1, "<p>the new intro</p>"));
    expect(world.snapshot!.chapters[10]).toBeUndefined();
    expect((await world.plan(remote)).ops).toEqual([]);
  });

  it("keeps the file of a record renamed to the name of one deleted on the site", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.chapters = remote.chapters.filter((c) => c.id !== 10);
    remote.chapters[0] = chapter(11, 1, { title: "Intro", ordinal: 1 });
    await world.pull(remote);
    expect(world.files[world.snapshot!.chapters[11]!.path]).toBe(chapterText(11, "Intro", 1, CONTENT));
  });

  it("keeps the folder of a course created or renamed to the slug of one deleted on the site", async () => {
    const world = await synced(baseRemote());
    const remote = baseRemote();
    remote.courses = [course(2, { slug: "web", title: "Python" }), course(3, { slug: "web", title: "New" })];
    remote.chapters = [chapter(20, 2, { title: "Setup" }), chapter(30, 3, { title: "Hello" })];
    const plan = await world.pull(remote);
    expect(plan.deletes).toBe(3);
    expect(world.snapshot!.courses[2]!.path).toBe("courses/web-2");
    expect(world.snapshot!.courses[3]!.path).toBe("courses/web-3");
    expect(world.files[`${world.snapshot!.courses[3]!.path}/course.yaml`]).toContain("title: New\n");
    expect(world.files[`${world.snapshot!.courses[2]!.path}/course.yaml`]).toContain("title: Python\n");
    expect((await world.plan(remote)).ops).toEqual([]);
  });
});

describe("planPull: no snapshot (a fresh clone)", () => {
  it("adopts files equal to the site without writing them", async () => {
    const remote = baseRemote();
    const world = await synced(remote);
    const files = { ...world.files };
    const expected = world.snapshot;
    world.snapshot = undefined;
    const plan = await world.pull(remote);
    expect(plan.ops).toEqual([]);
    expect(plan.changes.filter((c) => c.outcome === "conflict")).toEqual([]);
    expect(world.files).toEqual(files);
    expect(plan.snapshot).toEqual(expected);
  });

  it("reports every difference as a conflict instead of choosing a side", async () => {
    const remote = baseRemote();
    const world = await synced(remote);
    world.snapshot = undefined;
    world.edit("courses/web/01-intro.md", "title: Intro", "title: Older");
    world.edit("courses/python/course.yaml", "free: false", "free: true");
    delete world.files["courses/web/02-styles.md"];
    const plan = await world.pull(remote);
    expect(plan.changes.map((c) => `${c.outcome} ${c.kind} ${c.id} ${c.fields?.join(",") ?? ""}`)).toEqual([
      "conflict course 2 free",
      "conflict chapter 10 title",
      "created chapter 11 ",
    ]);
    expect(plan.changes[0]!.reason).toMatch(/no snapshot/);
    expect(world.files["courses/web/01-intro.md"]).toContain("title: Older");
    expect(world.files["courses/web/01-intro.remote.md"]).toBe(chapterText(10, "Intro", 1, CONTENT));
    expect(world.files["courses/python/course.remote.yaml"]).toContain("free: false");
    expect(plan.snapshot.chapters[10]).toBeUndefined();
    expect(plan.snapshot.chapters[20]).toBeDefined();
    // With --theirs the site's side is taken explicitly.
    const theirs = await world.pull(remote, { winner: "remote" });
    expect(theirs.changes.map((c) => c.outcome)).toEqual(["updated", "updated"]);
    expect(world.files["courses/web/01-intro.md"]).toBe(chapterText(10, "Intro", 1, CONTENT));
    expect(world.files["courses/web/01-intro.remote.md"]).toBeUndefined();
  });

  it("reports a local id the site does not have, and deletes nothing", async () => {
    const remote = baseRemote();
    const world = await synced(remote);
    world.snapshot = undefined;
    const plan = await world.pull({
      courses: remote.courses,
      chapters: remote.chapters.filter((c) => c.id !== 20),
    });
    expect(plan.deletes).toBe(0);
    expect(plan.changes).toEqual([
      expect.objectContaining({ id: 20, outcome: "conflict", reason: "this id is not on the site" }),
    ]);
  });
});

describe("planPull: paths", () => {
  it("limits every operation and the snapshot to the course folders given", async () => {
    const world = await synced(baseRemote());
    const before = structuredClone(world.snapshot!);
    const remote = baseRemote();
    remote.chapters[0] = chapter(10, 1, { title: "Intro", content: "<p>web changed</p>" });
    remote.chapters[2] = chapter(20, 2, { title: "Setup", content: "<p>python changed</p>" });
    remote.courses[1] = course(2, { slug: "python", title: "Python", free: true });
    remote.courses.push(course(3, { slug: "rust" }));
    const plan = await world.pull(remote, { paths: ["courses/python"] });
    expect(plan.ops.map((op) => ("path" in op ? op.path : op.op))).toEqual([
      "courses/python/course.yaml",
      "courses/python/01-setup.md",
    ]);
    expect(plan.snapshot.chapters[10]).toEqual(before.chapters[10]);
    expect(plan.snapshot.courses[3]).toBeUndefined();
    expect(plan.snapshot.chapters[20]!.record.content_sha256).toBe(sha256("<p>python changed</p>"));
    // The rest comes with a later full pull.
    const rest = await world.pull(remote);
    expect(outcomes(rest)).toEqual([
      "created course 3 courses/rust",
      "updated chapter 10 courses/web/01-intro.md",
    ]);
  });
});
