import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { writeConfigEdit } from "../../src/config/edit.js";
import type { StateDump } from "../../src/emulator/records.js";
import { moveIds } from "../../src/sync/state/move-ids-run.js";
import { restoreTree, treeNow } from "../helpers/crash.js";
import { useEmulators } from "../helpers/emulator.js";
import { edit, stamps } from "../helpers/site.js";
import { productionAndStaging, writesTo } from "../helpers/sites.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

// The ids in the files belong to one named site (`ids:`). Production and staging number their
// records independently (staging's chapter 1 is not production's chapter 1): switching which
// site commands talk to must never change what an id in a file means.

const start = useEmulators();
afterEach(() => cleanupTestdirs());

/** Each record of a site as what a user relies on: title, ordinal, course title and body. */
function records(dump: StateDump) {
  const course = new Map(dump.courses.map((c) => [c.id, c.title]));
  return {
    courses: dump.courses.map((c) => c.title).sort(),
    chapters: dump.chapters
      .map((c) => `${course.get(c.course_id)} / ${c.ordinal} ${c.title}: ${c.content}`)
      .sort(),
  };
}

describe("the files' ids belong to one named site", () => {
  it("site default keeps the files' ids production's: edits land once on the right record of each site", async () => {
    const { s, staging } = await productionAndStaging(start);
    const overlap = staging.state.dump().chapters.find((c) => c.id === 1)!;
    // The overlap this is about: staging's chapter 1 is another chapter than production's.
    expect(overlap.title).not.toBe("Intro");
    const before = { production: records(s.emulator.state.dump()), staging: records(staging.state.dump()) };

    const switched = await s.cli("site", "default", "staging");
    expect(switched.code, switched.stderr).toBe(0);
    const config = await s.read("coursesync.yaml");
    expect(config).toMatch(/^site: staging$/m);
    expect(config).toMatch(/^ids: production$/m);

    // A pull with no edit anywhere rewrites no file.
    const mtimes = await stamps(s.root);
    const files = await s.tree();
    const pulled = await s.cli("pull");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await stamps(s.root)).toEqual(mtimes);
    expect(await s.tree()).toEqual(files);
    expect(records(staging.state.dump())).toEqual(before.staging);

    // An edit of "Tags" (production's id 2) goes to staging's Tags, through staging's map.
    await s.replace("courses/web/02-tags.md", "<p>tags</p>", "<p>tags, edited</p>");
    const tags = staging.state.dump().chapters.find((c) => c.title === "Tags")!;
    const pushed = await s.cli("push", "--yes");
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(writesTo(staging)).toEqual([`PATCH /api/v1/chapters/${tags.id}`]);
    expect(writesTo(s.emulator)).toEqual([]);
    expect(await s.read("courses/web/02-tags.md")).toMatch(/^id: 2$/m);

    // An edit made on staging comes into the file of its own record, which keeps its id.
    edit(staging, "chapters", overlap.id, { title: `${overlap.title} (staging)` });
    const fromStaging = await s.cli("pull");
    expect(fromStaging.code, fromStaging.stderr).toBe(0);
    const production = s.emulator.state.dump();
    const twin = production.chapters.find((c) => c.title === overlap.title)!;
    expect(twin.id).not.toBe(overlap.id);
    const twinFile = Object.entries(await s.tree()).find(([, text]) =>
      text.includes(`title: ${overlap.title} (staging)`),
    );
    expect(twinFile?.[1]).toMatch(new RegExp(`^id: ${twin.id}$`, "m"));

    // Back to production: a plain push sends both edits to the records they belong to, once.
    expect((await s.cli("site", "default", "production")).code).toBe(0);
    expect(await s.read("coursesync.yaml")).toMatch(/^ids: production$/m);
    const toProduction = await s.cli("push", "--yes");
    expect(toProduction.code, toProduction.stderr).toBe(0);
    expect(writesTo(s.emulator).sort()).toEqual(
      [`PATCH /api/v1/chapters/${twin.id}`, "PATCH /api/v1/chapters/2"].sort(),
    );
    const after = records(s.emulator.state.dump());
    const expected = before.production.chapters
      .map((line) => line.replace("<p>tags</p>", "<p>tags, edited</p>"))
      .map((line) => line.replace(` ${overlap.title}: `, ` ${overlap.title} (staging): `))
      .sort();
    expect(after).toEqual({ courses: before.production.courses, chapters: expected });
    expect(records(staging.state.dump()).chapters).toEqual(expected);
    for (const site of ["staging", "production"]) {
      const again = await s.cli("push", "--site", site, "--yes");
      expect(again.stdout, site).toContain("Nothing to push");
    }
  });

  it("a default switched by hand, before `ids:` was recorded, stops every command before a request or a write", async () => {
    const { s, staging } = await productionAndStaging(start);
    const config = path.join(s.root, "coursesync.yaml");
    await writeFile(config, (await readFile(config, "utf8")).replace("site: production", "site: staging"));
    const files = await s.tree();
    for (const args of [["pull"], ["push", "--yes"], ["status"], ["diff"]]) {
      const run = await s.cli(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toContain(
        'the snapshot of "staging" (.coursesync/staging/) maps the files\' ids',
      );
      expect(run.stderr, args.join(" ")).toContain("set `ids: production` in coursesync.yaml");
    }
    expect(staging.state.requests).toEqual([]);
    expect(s.emulator.state.requests).toEqual([]);
    expect(await s.tree()).toEqual(files);

    await writeFile(config, `ids: production\n${await readFile(config, "utf8")}`);
    const pulled = await s.cli("pull");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await s.tree()).toEqual({ ...files, "coursesync.yaml": await readFile(config, "utf8") });
  });

  it("`ids:` naming a site that is not under sites is exit 2 at its line", async () => {
    const { s } = await productionAndStaging(start);
    const config = path.join(s.root, "coursesync.yaml");
    await writeFile(config, `${await readFile(config, "utf8")}ids: nowhere\n`);
    const run = await s.cli("status");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /coursesync\.yaml:\d+: `ids` names the site whose ids the files carry; "nowhere" is not under sites/,
    );
  });
});

describe("site move-ids: the files take another site's ids, all at once", () => {
  it("rewrites every id and snapshot together; both sites then sync with nothing to send; the old site can go", async () => {
    const { s, staging } = await productionAndStaging(start);
    const onStaging = staging.state.dump();
    const dry = await s.cli("site", "move-ids", "staging", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Would move 5 files\' ids from "production" to "staging"');
    const unasked = await s.cli("site", "move-ids", "staging");
    expect(unasked.code).toBe(3);

    const moved = await s.cli("site", "move-ids", "staging", "--yes");
    expect(moved.code, moved.stderr).toBe(0);
    expect(await s.read("coursesync.yaml")).toMatch(/^ids: staging$/m);
    const tree = await s.tree();
    for (const chapter of onStaging.chapters) {
      const course = onStaging.courses.find((c) => c.id === chapter.course_id)!;
      const file = Object.entries(tree).find(
        ([rel, text]) => rel.startsWith("courses/") && text.includes(`title: ${chapter.title}\n`),
      );
      expect(file?.[1], chapter.title).toMatch(new RegExp(`^id: ${chapter.id}$`, "m"));
      const yaml = Object.entries(tree).find(
        ([rel, text]) => rel.endsWith("course.yaml") && text.includes(`title: ${course.title}\n`),
      );
      expect(yaml?.[1], course.title).toMatch(new RegExp(`^id: ${course.id}$`, "m"));
    }
    expect(Object.keys(tree).some((rel) => rel.includes("_move-ids"))).toBe(false);

    const files = await s.tree();
    const mtimes = await stamps(s.root);
    for (const site of ["production", "staging"]) {
      const pulled = await s.cli("pull", "--site", site);
      expect(pulled.code, `${site}: ${pulled.stderr}`).toBe(0);
      const status = await s.cli("status", "--site", site, "--exit-code");
      expect(status.code, `${site}: ${status.stdout}`).toBe(0);
      const pushed = await s.cli("push", "--site", site, "--yes");
      expect(pushed.stdout, site).toContain("Nothing to push");
    }
    expect(await s.tree()).toEqual(files);
    expect(await stamps(s.root)).toEqual(mtimes);
    expect(writesTo(s.emulator)).toEqual([]);
    expect(writesTo(staging)).toEqual([]);

    // An edit goes to each site's own record.
    await s.replace("courses/web/02-tags.md", "<p>tags</p>", "<p>tags, moved</p>");
    const tags = onStaging.chapters.find((c) => c.title === "Tags")!;
    expect((await s.cli("push", "--site", "staging", "--yes")).code).toBe(0);
    expect((await s.cli("push", "--site", "production", "--yes")).code).toBe(0);
    expect(writesTo(staging)).toEqual([`PATCH /api/v1/chapters/${tags.id}`]);
    expect(writesTo(s.emulator)).toEqual(["PATCH /api/v1/chapters/2"]);

    // production no longer owns the ids: once it is not the default, it can be removed.
    expect((await s.cli("site", "default", "staging")).code).toBe(0);
    const removed = await s.cli("site", "remove", "production", "--yes");
    expect(removed.code, removed.stderr).toBe(0);
  });

  it("refuses to remove the site that owns the ids, and says how to move them", async () => {
    const { s } = await productionAndStaging(start);
    expect((await s.cli("site", "default", "staging")).code).toBe(0);
    const files = await s.tree();
    const removed = await s.cli("site", "remove", "production", "--yes");
    expect(removed.code).toBe(2);
    expect(removed.stderr).toContain('the ids in the files are those of site "production"');
    expect(removed.stderr).toContain("coursesync site move-ids staging");
    expect(await s.tree()).toEqual(files);
  });

  it("names every record it cannot place and changes nothing", async () => {
    const { s, staging } = await productionAndStaging(start);
    // A chapter made on production and pulled, never pushed to staging.
    s.emulator.state.createChapter({
      chapter: { course_id: 2, title: "Only here", ordinal: 2, content: "<p>x</p>" },
    });
    expect((await s.cli("pull")).code).toBe(0);
    const files = await s.tree();
    const moved = await s.cli("site", "move-ids", "staging", "--yes");
    expect(moved.code).toBe(3);
    expect(moved.stderr).toMatch(/courses\/go\/02-only-here\.md: chapter \d+ is not on "staging" yet/);
    expect(await s.tree()).toEqual(files);
    expect(writesTo(staging)).toEqual([]);
  });

  it("killed after any step, is finished by running it again: the same tree as a move never cut short", async () => {
    const { s } = await productionAndStaging(start);
    const before = treeNow(s.root);
    const whole = await s.cli("site", "move-ids", "staging", "--yes");
    expect(whole.code, whole.stderr).toBe(0);
    const after = treeNow(s.root);
    const steps: string[] = [];
    restoreTree(s.root, before);
    await moveIdsInProcess(s.root, (step) => steps.push(step));
    expect(treeNow(s.root)).toEqual(after);
    expect(steps.length).toBeGreaterThan(5);
    for (const [at, step] of steps.entries()) {
      restoreTree(s.root, before);
      let n = 0;
      await expect(
        moveIdsInProcess(s.root, () => {
          if (n++ === at) throw new Error("killed");
        }),
      ).rejects.toThrow("killed");
      // Until it is finished, every other command refuses the half-moved tree (or sees none of it).
      const status = await s.cli("status");
      if (step.startsWith("staged")) expect(status.code, step).toBe(0);
      else expect(status.stderr, step).toContain("was cut short");
      const again = await s.cli("site", "move-ids", "staging", "--yes");
      expect(again.code, `${step}: ${again.stderr}`).toBe(0);
      expect(withoutCache(treeNow(s.root)), step).toEqual(withoutCache(after));
    }
  });
});

/** The tree without the uncommitted cache (stat caches are rebuilt by whoever runs next). */
function withoutCache(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter(([rel]) => !rel.startsWith(".coursesync/cache/")));
}

/** `site move-ids staging` on production and staging, called directly, told of each step. */
async function moveIdsInProcess(root: string, onStep: (step: string) => void): Promise<void> {
  const config = await loadConfig(root);
  await moveIds({
    root,
    from: "production",
    to: "staging",
    sites: Object.keys(config.sites),
    ignore: config.ignore,
    setIds: async (site) => {
      await writeConfigEdit(config, { op: "set-ids", name: site });
    },
    onStep,
  });
}
