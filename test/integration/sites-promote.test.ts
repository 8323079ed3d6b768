import { afterEach, describe, expect, it } from "vitest";
import { useEmulators } from "../helpers/emulator.js";
import { addSite, productionAndStaging, writesTo } from "../helpers/sites.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(() => cleanupTestdirs());

/** Production and a staging site restored from it. */
const twoSites = () => productionAndStaging(start);

describe("promote: edit, push to staging, review, push to production", () => {
  it("sends one edit to each site once, to the record each site holds", async () => {
    const { s, staging } = await twoSites();
    await s.replace("courses/web/02-tags.md", "title: Tags\n", "title: Tags and attributes\n");
    const tagsOnStaging = staging.state.dump().chapters.find((c) => c.title === "Tags")!.id;
    expect(tagsOnStaging).not.toBe(2);

    const toStaging = await s.cli("push", "--site", "staging", "--yes");
    expect(toStaging.code, toStaging.stderr).toBe(0);
    expect(writesTo(staging)).toEqual([`PATCH /api/v1/chapters/${tagsOnStaging}`]);
    expect(writesTo(s.emulator)).toEqual([]);
    expect(staging.state.get("chapters", tagsOnStaging)?.title).toBe("Tags and attributes");
    expect(await s.read("courses/web/02-tags.md")).toContain("id: 2\n");

    const status = await s.cli("status", "--site", "staging", "--exit-code");
    expect(status.code, status.stdout).toBe(0);
    const pending = await s.cli("status", "--exit-code");
    expect(pending.code).toBe(1);
    expect(pending.stdout).toMatch(/modified\s+courses\/web\/02-tags.md/);
    const diff = await s.cli("diff");
    expect(diff.stdout).toContain("+title: Tags and attributes");
    expect((await s.cli("diff", "--site", "staging")).stdout).toBe("");

    const toProduction = await s.cli("push", "--yes");
    expect(toProduction.code, toProduction.stderr).toBe(0);
    expect(writesTo(s.emulator)).toEqual(["PATCH /api/v1/chapters/2"]);
    expect(writesTo(staging)).toEqual([`PATCH /api/v1/chapters/${tagsOnStaging}`]);
    for (const site of ["staging", "production"]) {
      const again = await s.cli("push", "--site", site, "--yes");
      expect(again.stdout, site).toContain("Nothing to push");
    }
    expect(writesTo(s.emulator)).toHaveLength(1);
    expect(writesTo(staging)).toHaveLength(1);
  });

  it("an edit made on staging comes into the file by pull --site staging, and goes to production as a local edit", async () => {
    const { s, staging } = await twoSites();
    const tour = staging.state.dump().chapters.find((c) => c.title === "Tour")!.id;
    staging.state.edit("chapters", tour, { title: "Tour of Go" });
    const pulled = await s.cli("pull", "--site", "staging");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await s.read("courses/go/01-tour-of-go.md")).toContain("id: 3\ntitle: Tour of Go\n");
    expect((await s.cli("status", "--site", "staging", "--exit-code")).code).toBe(0);
    const toProduction = await s.cli("push", "--yes");
    expect(toProduction.code, toProduction.stderr).toBe(0);
    expect(writesTo(s.emulator)).toEqual(["PATCH /api/v1/chapters/3"]);
    expect(s.emulator.state.get("chapters", 3)?.title).toBe("Tour of Go");
  });
});

describe("sites this tree never synced", () => {
  it("push --site to a site that holds records and has no snapshot is refused, sending nothing", async () => {
    const { s } = await twoSites();
    const other = await start({ seedDir: null });
    other.state.createCourse({ course: { title: "Theirs" } });
    await addSite(s.root, "other", other.baseUrl);
    other.state.clearRequests();
    const result = await s.cli("push", "--site", "other", "--yes");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('site "other"');
    expect(result.stderr).toContain("has no snapshot in this tree; nothing was sent");
    expect(result.stderr).toContain("Run `coursesync pull --site other` first: it maps the site's records");
    expect(writesTo(other)).toEqual([]);
  });

  it("status and diff say a site was never synced, never 'Nothing to push'", async () => {
    const { s } = await twoSites();
    const other = await start({ seedDir: null });
    await addSite(s.root, "other", other.baseUrl);
    const named = await s.cli("status", "--site", "other");
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('site "other"');
    expect(named.stderr).toContain("has never been synced from this tree");
    expect(named.stdout).not.toContain("Nothing to push");
    const byUrl = await s.cli("status", "--url", other.baseUrl);
    expect(byUrl.code).toBe(2);
    expect(byUrl.stderr).toContain(`this tree has never synced ${other.baseUrl}`);
    expect(byUrl.stdout).not.toContain("Nothing to push");
    expect((await s.cli("diff", "--url", other.baseUrl)).code).toBe(2);
    const pushed = await s.cli("push", "--url", other.baseUrl, "--yes");
    expect(pushed.code).toBe(2);
    expect(writesTo(other)).toEqual([]);
  });
});
