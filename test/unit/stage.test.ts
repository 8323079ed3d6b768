import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { WireRecord } from "../../src/api/wire.js";
import {
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
  renderChapter,
  snapshotRecord,
} from "../../src/sync/model/entities.js";
import { StagedFiles } from "../../src/sync/pull/stage.js";
import { StageWriter } from "../../src/sync/pull/stage-writer.js";
import { WrittenFiles } from "../../src/sync/pull/written.js";
import type { Snapshot } from "../../src/sync/state/snapshot-model.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { StatCache } from "../../src/tree/stat-cache.js";
import { sha256 } from "../../src/util/hash.js";
import { cacheDir, chapter, incoming, textOf } from "../helpers/stage.js";

/** A staged file is claimed by the hash of the text a write puts there. */
const hashOf = (text: string) => sha256(text);

describe("files staged while the listing arrives", () => {
  it("hands out a file holding exactly the text asked for, once; other texts get none", async () => {
    const cache = cacheDir();
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one, two]);
    await staged.stop();
    const file = staged.claim(hashOf(textOf(one)));
    expect(file).toBeDefined();
    expect(readFileSync(file!, "utf8")).toBe(textOf(one));
    expect(staged.claim(hashOf(textOf(one)))).toBeUndefined();
    expect(staged.claim(hashOf(`${textOf(two)}\n`))).toBeUndefined();
    // The plan takes the file's hash and body key from here instead of rendering it again.
    const { hash, body, blob } = renderChapter(two.id, chapterValuesOfRecord(two), markdownCodec);
    expect(staged.renderedOf(two)).toEqual({ hash, body, blob });
    expect(staged.failure).toBeUndefined();
    // The claimant moves its file into place; at the end every staged file still there goes
    // (what no write took, and a claimed one a failed write left).
    expect(incoming(cache)).toHaveLength(2);
    const placed = path.join(path.dirname(cache), "01-one.md");
    renameSync(file!, placed);
    await staged.clear();
    expect(incoming(cache)).toEqual([]);
    expect(readFileSync(placed, "utf8")).toBe(textOf(one));
  });

  it("stages a course's file and names its hash, for the plan to write it without making it", async () => {
    const cache = cacheDir();
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    const web: WireRecord = { id: 7, title: "Web", status: "draft", updated_at: "2026-01-01T00:00:00Z" };
    staged.take("courses", [web]);
    await staged.stop();
    const text = courseFileText(web.id, courseValuesOfRecord(web));
    expect(staged.courseHashOf(web)).toBe(hashOf(text));
    expect(readFileSync(staged.claim(hashOf(text))!, "utf8")).toBe(text);
    await staged.clear();
  });

  it("stages nothing for records the last sync holds unchanged, and a changed one anew", async () => {
    const cache = cacheDir();
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    const snapshot: Snapshot = {
      version: 1,
      site: "https://academy.example.com/api/v1",
      courses: {},
      chapters: {
        "1": { path: "courses/x/01-one.md", hash: "h", body: "b", record: snapshotRecord(one) },
        "2": { path: "courses/x/02-two.md", hash: "h", body: "b", record: snapshotRecord(two) },
      },
    };
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot });
    const edited = { ...two, title: "Two, edited" };
    staged.take("chapters", [one, edited]);
    await staged.stop();
    expect(staged.claim(hashOf(textOf(one)))).toBeUndefined();
    expect(staged.claim(hashOf(textOf(edited)))).toBeDefined();
  });

  it("gives up quietly when a staged file cannot be written: the plan writes its files as ever", async () => {
    // The cache folder's place is held by a file: the OS refuses every staged write.
    const cache = cacheDir();
    writeFileSync(`${path.dirname(cache)}/cache`, "not a folder");
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one]);
    staged.take("chapters", [two]);
    await staged.stop();
    expect(staged.claim(hashOf(textOf(one)))).toBeUndefined();
    expect(staged.claim(hashOf(textOf(two)))).toBeUndefined();
    // Said once, with the OS's reason, for pull -v.
    expect(staged.failure).toMatch(/^a file could not be written: E[A-Z]+: /);
    await staged.clear();
  });

  it("stages nothing more once stopped: the plan writes the rest itself", async () => {
    const cache = cacheDir();
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    await staged.stop();
    staged.take("chapters", [chapter(1, "One")]);
    await staged.stop();
    expect(staged.claim(hashOf(textOf(chapter(1, "One"))))).toBeUndefined();
    expect(incoming(cache)).toEqual([]);
  });

  it("moves claimed files into place on its thread, making missing folders; says which it could not move", async () => {
    const cache = cacheDir();
    const root = path.dirname(cache);
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one, two]);
    await staged.stop();
    expect(staged.placesOnThread).toBe(true);
    const first = staged.claim(hashOf(textOf(one)))!;
    const second = staged.claim(hashOf(textOf(two)))!;
    // A file is where the second one's folder should be.
    writeFileSync(path.join(root, "taken"), "not a folder");
    const target = path.join(root, "courses", "web", "01-one.md");
    const placed = await staged.place([
      [first, target],
      [second, path.join(root, "taken", "02-two.md")],
    ]);
    expect(readFileSync(target, "utf8")).toBe(textOf(one));
    // As the stat cache keeps a file: size, mtime, ctime, inode, taken after the move.
    const stat = statSync(target);
    expect(placed).toEqual([[stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino], false]);
    expect(existsSync(second)).toBe(true);
    await staged.clear();
    expect(incoming(cache)).toEqual([]);
  });

  it("leaves the moving to the caller when the tree is written through another file system", async () => {
    const cache = cacheDir();
    const staged = new StagedFiles({
      cache,
      bodies: markdownCodec,
      snapshot: undefined,
      placeOnThread: false,
    });
    const one = chapter(1, "One");
    staged.take("chapters", [one]);
    await staged.stop();
    expect(staged.placesOnThread).toBe(false);
    const file = staged.claim(hashOf(textOf(one)))!;
    expect(await staged.place([[file, path.join(path.dirname(cache), "01-one.md")]])).toBeUndefined();
    expect(existsSync(file)).toBe(true);
    await staged.clear();
  });

  it("renders a page on a later turn, one page a turn, so that the listing's next request goes out first", async () => {
    const cache = cacheDir();
    const rendered: string[] = [];
    const counting = {
      ...markdownCodec,
      fromHtml: (html: string) => {
        rendered.push(html);
        return markdownCodec.fromHtml(html);
      },
    };
    const staged = new StagedFiles({ cache, bodies: counting, snapshot: undefined });
    const pages = [1, 2, 3].map((n) => [chapter(n, `Chapter ${n}`)]);
    for (const page of pages) staged.take("chapters", page);
    expect(rendered).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(rendered).toEqual(["<p>Chapter 1</p>"]);
    // The listing is whole: what still waits is staged at once.
    staged.flush();
    expect(rendered).toEqual(["<p>Chapter 1</p>", "<p>Chapter 2</p>", "<p>Chapter 3</p>"]);
    await staged.stop();
    for (const [record] of pages) expect(staged.claim(hashOf(textOf(record!)))).toBeDefined();
    await staged.clear();
  });

  it("leaves pages unstaged once rendering takes more than half the listing's time", async () => {
    const cache = cacheDir();
    // Converting a chapter 'takes' 300 ms and pages come with no time between them: past the
    // first 200 ms, which are free, rendering would outrun the network.
    let clock = 0;
    const slow = {
      ...markdownCodec,
      fromHtml: (html: string) => {
        clock += 300;
        return markdownCodec.fromHtml(html);
      },
    };
    const staged = new StagedFiles({
      cache,
      bodies: slow,
      snapshot: undefined,
      now: () => clock,
    });
    const pages = [1, 2, 3].map((n) => [chapter(n, `Chapter ${n}`)]);
    for (const page of pages) staged.take("chapters", page);
    await staged.stop();
    expect(pages.map(([record]) => staged.claim(hashOf(textOf(record!))) !== undefined)).toEqual([
      true,
      false,
      false,
    ]);
    await staged.clear();
  });
});

describe("files a pull put in the tree, in the stat cache", () => {
  it("records each as it landed; an edit or a replacement since leaves it unmatched, a changed staged file unrecorded", async () => {
    const cache = cacheDir();
    const root = path.dirname(cache);
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    const records = [1, 2, 3, 4].map((n) => chapter(n, `Chapter ${n}`));
    staged.take("chapters", records);
    await staged.stop();
    const written = new WrittenFiles(root);
    const place = (record: WireRecord, name: string, before?: (file: string) => void) => {
      const hash = hashOf(textOf(record));
      const file = staged.claim(hash)!;
      const as = staged.writtenAs(file);
      before?.(file);
      renameSync(file, path.join(root, name));
      written.landed(name, hash, as);
    };
    // Moved into place as the thread wrote them; the third written by the plan itself.
    place(records[0]!, "01.md");
    place(records[1]!, "02.md");
    writeFileSync(path.join(root, "03.md"), textOf(records[2]!));
    written.landed("03.md", hashOf(textOf(records[2]!)), null);
    writeFileSync(path.join(root, "06.md"), "six");
    written.landed("06.md", hashOf("six"), null);
    // The fourth was changed after the thread wrote it: what landed is not what it wrote.
    place(records[3]!, "04.md", (file) =>
      writeFileSync(file, textOf(records[3]!).replace("Chapter", "ChapteR")),
    );
    // Since: the second edited in place (same size, its mtime put back: its ctime shows it),
    // the third replaced by an editor's atomic save of the same bytes (a new file).
    const at = statSync(path.join(root, "02.md"));
    writeFileSync(path.join(root, "02.md"), textOf(records[1]!).replace("Chapter", "ChapteR"));
    utimesSync(path.join(root, "02.md"), at.atime, at.mtime);
    writeFileSync(path.join(root, "save.tmp"), textOf(records[2]!));
    renameSync(path.join(root, "save.tmp"), path.join(root, "03.md"));

    // A cache whose clock is past the two seconds in which a new file is not trusted.
    const stats = new StatCache(path.join(root, "stat.json"), () => Date.now() + 10_000);
    written.record(stats);
    const cached = (name: string) => stats.get(name, statSync(path.join(root, name)));
    expect(cached("01.md")).toBe(hashOf(textOf(records[0]!)));
    expect(cached("02.md")).toBeUndefined();
    expect(cached("03.md")).toBeUndefined();
    expect(cached("04.md")).toBeUndefined();
    expect(cached("06.md")).toBe(hashOf("six"));
    // Nothing is trusted that was modified within two seconds of being recorded.
    const soon = new WrittenFiles(root);
    writeFileSync(path.join(root, "05.md"), "five");
    soon.landed("05.md", hashOf("five"), null);
    const now = new StatCache(path.join(root, "stat2.json"), () => Date.now());
    soon.record(now);
    expect(now.get("05.md", statSync(path.join(root, "05.md")))).toBeUndefined();
    await staged.clear();
  });
});

describe("the thread that writes staged files", () => {
  it("writes each file whole and says which; once halted it starts none", async () => {
    const dir = path.dirname(cacheDir());
    const written: string[] = [];
    const writer = new StageWriter((files) => {
      for (const [file, as] of files) {
        // Each file as the thread left it: its inode, size and mtime.
        const stat = statSync(file);
        expect(as).toEqual([stat.ino, stat.size, stat.mtimeMs]);
        written.push(file);
      }
    });
    const first = [1, 2, 3].map((n) => [path.join(dir, "in", `${n}.tmp`), `text ${n}`] as const);
    expect(writer.write(first)).toBe(true);
    await writer.settled();
    expect(written).toEqual(first.map(([file]) => file));
    expect(first.map(([file]) => readFileSync(file, "utf8"))).toEqual(["text 1", "text 2", "text 3"]);

    // An exit that does not wait halts it with many files still to write: after haltNow returns,
    // no file appears, and every one there was written whole.
    const many = Array.from(
      { length: 2000 },
      (_, n) => [path.join(dir, "in", `m${n}.tmp`), "x".repeat(4096)] as const,
    );
    writer.write(many);
    writer.haltNow();
    const atHalt = readdirSync(path.join(dir, "in")).sort();
    expect(writer.write([[path.join(dir, "in", "late.tmp"), "late"]])).toBe(false);
    await writer.close();
    expect(readdirSync(path.join(dir, "in")).sort()).toEqual(atHalt);
    for (const name of atHalt)
      expect(readFileSync(path.join(dir, "in", name), "utf8")).toMatch(/^(text \d|x{4096})$/);
    expect(atHalt.length).toBeLessThan(2003);
  });
});
