import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WireRecord } from "../../src/api/wire.js";
import {
  chapterFileText,
  chapterValuesOfRecord,
  renderChapter,
  snapshotRecord,
} from "../../src/sync/entities.js";
import { StagedFiles } from "../../src/sync/pull/stage.js";
import type { Snapshot } from "../../src/sync/state/snapshot.js";
import { markdownCodec } from "../../src/tree/codecs.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function cacheDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "coursesync-stage-"));
  dirs.push(dir);
  return path.join(dir, "cache");
}

const chapter = (id: number, title: string): WireRecord => ({
  id,
  course_id: 1,
  title,
  ordinal: id,
  content: `<p>${title}</p>`,
  updated_at: "2026-01-01T00:00:00Z",
});
const textOf = (record: WireRecord) =>
  chapterFileText(record.id, chapterValuesOfRecord(record), markdownCodec);
const incoming = (cache: string) =>
  existsSync(path.join(cache, "incoming")) ? readdirSync(path.join(cache, "incoming")) : [];

describe("files staged while the listing arrives", () => {
  it("hands out a file holding exactly the text asked for, once; other texts get none", () => {
    const cache = cacheDir();
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one, two]);
    staged.stop();
    const file = staged.claim(textOf(one));
    expect(file).toBeDefined();
    expect(readFileSync(file!, "utf8")).toBe(textOf(one));
    expect(staged.claim(textOf(one))).toBeUndefined();
    expect(staged.claim(`${textOf(two)}\n`)).toBeUndefined();
    // The plan takes the file's hash and body key from here instead of rendering it again.
    const { hash, body } = renderChapter(two.id, chapterValuesOfRecord(two), markdownCodec);
    expect(staged.renderedOf(two)).toEqual({ hash, body });
    // What no write took is removed at the end (the claimed file is the writer's to move).
    staged.clear();
    expect(incoming(cache)).toEqual([path.basename(file!)]);
  });

  it("stages nothing for records the last sync holds unchanged, and a changed one anew", () => {
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
    staged.stop();
    expect(staged.claim(textOf(one))).toBeUndefined();
    expect(staged.claim(textOf(edited))).toBeDefined();
  });

  it("gives up quietly when a staged file cannot be written: the plan writes its files as ever", () => {
    // The cache folder's place is held by a file: the OS refuses every staged write.
    const cache = cacheDir();
    writeFileSync(`${path.dirname(cache)}/cache`, "not a folder");
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one]);
    staged.take("chapters", [two]);
    expect(staged.claim(textOf(one))).toBeUndefined();
    expect(staged.claim(textOf(two))).toBeUndefined();
    staged.clear();
  });

  it("stages nothing more once stopped: the plan writes the rest itself", () => {
    const cache = cacheDir();
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined });
    staged.stop();
    staged.take("chapters", [chapter(1, "One")]);
    staged.stop();
    expect(staged.claim(textOf(chapter(1, "One")))).toBeUndefined();
    expect(incoming(cache)).toEqual([]);
  });

  it("leaves pages unstaged once rendering takes more than half the listing's time", () => {
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
    staged.stop();
    expect(pages.map(([record]) => staged.claim(textOf(record!)) !== undefined)).toEqual([
      true,
      false,
      false,
    ]);
    staged.clear();
  });
});
