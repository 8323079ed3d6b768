/**
 * The base of a body merge is wherever the snapshot is: a fresh clone (CI, a teammate) reads the
 * last sync's text from git's objects by the blob id the snapshot records, and merges exactly as
 * the tree that pulled. Real git: a bare origin, the author's clone that pulled, fresh clones.
 */
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GUIDE, GUIDE_HTML, type TeamWorld, teamWorld } from "../helpers/clones.js";
import { useEmulators } from "../helpers/emulator.js";
import { git } from "../helpers/git.js";
import { edit, recordPatches } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

const start = useEmulators();
afterEach(cleanupTestdirs);

const MINE = "First paragraph about setup, edited in git.";
const SITES = "Fifth paragraph about wrap-up, edited on the site.";

/** The site edits the last paragraph; the author edits the first in git and pushes it to origin. */
async function disjointEdits(w: TeamWorld) {
  await w.replace(w.author, "First paragraph about setup.", MINE);
  await w.commitAndPush(w.author, "Edit the first paragraph");
  edit(w.emulator, "chapters", 1, { content: GUIDE_HTML.replace("Fifth paragraph about wrap-up.", SITES) });
}

/** The site's content of the guide now. */
function siteContent(w: TeamWorld): string {
  return String(w.emulator.state.dump().chapters.find((c) => c.id === 1)?.content);
}

describe("a fresh clone merges a body edited in git and on the site as the tree that pulled", () => {
  it("pull: the same file and snapshot as in the author's tree", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    const fresh = await w.clone();
    const there = await w.cli(fresh, "pull");
    expect(there.code, there.stdout + there.stderr).toBe(0);
    const here = await w.cli(w.author, "pull");
    expect(here.code, here.stdout + here.stderr).toBe(0);
    const merged = await w.read(fresh);
    expect(merged).toContain(MINE);
    expect(merged).toContain(SITES);
    expect(merged).toBe(await w.read(w.author));
    expect(await w.snapshot(fresh)).toEqual(await w.snapshot(w.author));
  });

  it("diff and status: the edit against the file as the last sync wrote it, read from git", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    const fresh = await w.clone();
    const diff = await w.cli(fresh, "diff");
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain(
      "-First paragraph about setup.\n+First paragraph about setup, edited in git.\n",
    );
    expect(diff.stdout).toBe((await w.cli(w.author, "diff")).stdout);
    expect((await w.cli(fresh, "status", "-s")).stdout).toBe((await w.cli(w.author, "status", "-s")).stdout);
  });

  it("push: sends the merge of both edits", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    const fresh = await w.clone();
    const patches = recordPatches(w.emulator);
    const push = await w.cli(fresh, "push", "--yes");
    expect(push.code, push.stdout + push.stderr).toBe(0);
    expect(patches).toHaveLength(1);
    expect(siteContent(w)).toContain(MINE);
    expect(siteContent(w)).toContain(SITES);
    const file = await w.read(fresh);
    expect(file).toContain(MINE);
    expect(file).toContain(SITES);
    expect((await w.cli(fresh, "status", "--exit-code")).code).toBe(0);
  });

  it("ci publish: sends the merge and commits the merged file back", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    const publish = await w.cli(await w.clone(), "ci", "publish", "--branch", "main");
    expect(publish.code, publish.stdout + publish.stderr).toBe(0);
    expect(siteContent(w)).toContain(MINE);
    expect(siteContent(w)).toContain(SITES);
    const committed = await w.showOrigin();
    expect(committed).toContain(MINE);
    expect(committed).toContain(SITES);
  });

  it("ci backup: pulls the site's edit into the git edit and commits the merge", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    const before = siteContent(w);
    const backup = await w.cli(await w.clone(), "ci", "backup", "--branch", "main");
    expect(backup.code, backup.stdout + backup.stderr).toBe(0);
    const committed = await w.showOrigin();
    expect(committed).toContain(MINE);
    expect(committed).toContain(SITES);
    expect(siteContent(w)).toBe(before);
  });
});

describe("the snapshot records the blob id of the text each sync wrote", () => {
  it("pull's files, and a file push created and gave its id: as git hashes them, committed", async () => {
    const w = await teamWorld(start);
    const blobOf = async (repo: string, id: string) => {
      const files = await w.snapshot(repo);
      return (JSON.parse(files["courses/1.json"]!) as { chapters: Record<string, { blob: string }> })
        .chapters[id]?.blob;
    };
    expect(await blobOf(w.author, "1")).toBe(
      (await git(w.person, w.author, "rev-parse", `HEAD:content/${GUIDE}`)).trim(),
    );
    const added = "courses/web/02-added.md";
    await writeFile(w.file(w.author, added), "---\ntitle: Added\nordinal: 2\n---\nNew words.\n");
    expect((await w.cli(w.author, "push", "--yes")).code).toBe(0);
    expect(await w.read(w.author, added)).toMatch(/^---\nid: 2\n/);
    await w.commitAndPush(w.author, "Ids after push");
    expect(await blobOf(w.author, "2")).toBe(
      (await git(w.person, w.author, "rev-parse", `HEAD:content/${added}`)).trim(),
    );
  });
});

describe("after a true overlap, the recovery works from fresh clones", () => {
  it("ci publish stops; pull marks only the overlap; the resolution, committed, is what the next publish sends", async () => {
    const w = await teamWorld(start);
    await w.replace(w.author, "Third paragraph about practice.", "Third paragraph, git's words.");
    await w.commitAndPush(w.author, "Edit the third paragraph");
    edit(w.emulator, "chapters", 1, {
      content: GUIDE_HTML.replace(
        "Third paragraph about practice.",
        "Third paragraph, the site's words.",
      ).replace("Fifth paragraph about wrap-up.", SITES),
    });
    const stopped = await w.cli(await w.clone(), "ci", "publish", "--branch", "main");
    expect(stopped.code).toBe(3);

    // push --force shows what it would take from the site: the site's words, not "body changed".
    const forced = await w.cli(await w.clone(), "push", "--force", "--dry-run");
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(
      `courses/web/01-guide.md  body changed, overwriting the site's edit; removes: - "the site" - ", edited on the site"\n`,
    );

    const json = await w.cli(await w.clone(), "push", "--force", "--dry-run", "--json");
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain(
      '"removes":["the site",", edited on the site"]',
    );

    const fixer = await w.clone();
    const pull = await w.cli(fixer, "pull");
    expect(pull.code).toBe(3);
    expect(pull.stdout).toContain("both sides are in the file between conflict markers");
    const marked = await w.read(fixer);
    expect(marked).toContain(
      "<<<<<<< local\nThird paragraph, git's words.\n=======\nThird paragraph, the site's words.\n>>>>>>> site\n",
    );
    // Everything else merged: the site's edit far away is in, without markers.
    expect(marked.match(/<<<<<<</g)).toHaveLength(1);
    expect(marked).toContain(`\n${SITES}\n`);

    const resolved = marked.replace(/<<<<<<< local\n[\s\S]*?>>>>>>> site\n/, "Third paragraph, resolved.\n");
    await writeFile(w.file(fixer), resolved);
    await w.commitAndPush(fixer, "Resolve the guide");
    const publish = await w.cli(await w.clone(), "ci", "publish", "--branch", "main");
    expect(publish.code, publish.stdout + publish.stderr).toBe(0);
    expect(siteContent(w)).toContain("<p>Third paragraph, resolved.</p>");
    expect(siteContent(w)).toContain(SITES);
    expect(siteContent(w)).not.toContain("words.");
  });
});

describe("where git cannot give the base, the merge falls back and says why", () => {
  /** A pull that could not merge: exit 3, the local edit kept, the site's version beside it. */
  async function expectNoMerge(w: TeamWorld, repo: string, why: string) {
    const pull = await w.cli(repo, "pull");
    expect(pull.code, pull.stdout + pull.stderr).toBe(3);
    expect(pull.stdout).toContain("the bodies could not be merged: no base text (");
    expect(pull.stdout).toContain(why);
    const file = await w.read(repo);
    expect(file).toContain(MINE);
    expect(file).not.toContain(SITES);
    expect(await w.read(repo, GUIDE.replace(/\.md$/, ".remote.md"))).toContain(SITES);
  }

  it("a tree that is not in a git repository", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    const copy = path.join(w.dir, "plain");
    await cp(await w.clone(), copy, { recursive: true });
    await rm(path.join(copy, ".git"), { recursive: true });
    await expectNoMerge(w, copy, "the tree is not in a git repository");
  });

  it("a snapshot an older version wrote (no blob ids)", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    const fresh = await w.clone();
    const shard = path.join(fresh, "content", ".coursesync", "production", "courses", "1.json");
    const text = await readFile(shard, "utf8");
    const blobLine = /\n\s*"blob": "[0-9a-f]{40}",/g;
    expect(text).toMatch(blobLine);
    await writeFile(shard, text.replace(blobLine, ""));
    await expectNoMerge(w, fresh, "the snapshot records no git blob id for it");
  });

  it("an older version's snapshot gains its blob ids at the next pull; fresh clones merge after that", async () => {
    const w = await teamWorld(start);
    const shard = path.join(w.author, "content", ".coursesync", "production", "courses", "1.json");
    const withBlobs = await readFile(shard, "utf8");
    await writeFile(shard, withBlobs.replace(/\n\s*"blob": "[0-9a-f]{40}",/g, ""));
    await w.commitAndPush(w.author, "As an older version left it");
    const pull = await w.cli(w.author, "pull");
    expect(pull.code, pull.stderr).toBe(0);
    expect(await readFile(shard, "utf8")).toBe(withBlobs);
    await w.commitAndPush(w.author, "Blob ids");
    await disjointEdits(w);
    const fresh = await w.clone();
    expect((await w.cli(fresh, "pull")).code).toBe(0);
    expect(await w.read(fresh)).toContain(SITES);
  });

  it("a blob pruned from the history", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    const fresh = await w.clone();
    // The history squashed into one commit and the old objects pruned.
    await git(w.person, fresh, "checkout", "--quiet", "--orphan", "squashed");
    await git(w.person, fresh, "commit", "--quiet", "-m", "Squashed");
    await git(w.person, fresh, "branch", "--quiet", "-D", "main");
    await git(w.person, fresh, "remote", "remove", "origin");
    await git(w.person, fresh, "reflog", "expire", "--expire=now", "--all");
    await git(w.person, fresh, "gc", "--quiet", "--prune=now");
    await expectNoMerge(w, fresh, "is not in this repository (never committed, or pruned)");
  });

  it("a shallow clone whose tip edited the file: says to fetch the history", async () => {
    const w = await teamWorld(start);
    await disjointEdits(w);
    await expectNoMerge(w, await w.clone("--depth", "1"), "this clone is shallow");
  });

  it("a shallow clone whose tip is the sync's commit still has the base: it merges", async () => {
    const w = await teamWorld(start);
    edit(w.emulator, "chapters", 1, { content: GUIDE_HTML.replace("Fifth paragraph about wrap-up.", SITES) });
    const shallow = await w.clone("--depth", "1");
    await w.replace(shallow, "First paragraph about setup.", MINE);
    const pull = await w.cli(shallow, "pull");
    expect(pull.code, pull.stdout + pull.stderr).toBe(0);
    const merged = await w.read(shallow);
    expect(merged).toContain(MINE);
    expect(merged).toContain(SITES);
  });
});
