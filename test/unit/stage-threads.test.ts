import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type ChapterValues, chapterValuesOfRecord, renderChapter } from "../../src/sync/model/entities.js";
import type { ChapterRenderer, RenderedText } from "../../src/sync/pull/render-pool.js";
import { StagedFiles } from "../../src/sync/pull/stage.js";
import { markdownCodec } from "../../src/tree/codecs.js";
import { sha256 } from "../../src/util/hash.js";
import { cacheDir, chapter, incoming, textOf } from "../helpers/stage.js";

/** A codec that counts the conversions made on this thread. */
function counting(): { bodies: typeof markdownCodec; converted: string[] } {
  const converted: string[] = [];
  const bodies = {
    ...markdownCodec,
    fromHtml: (html: string) => {
      converted.push(html);
      return markdownCodec.fromHtml(html);
    },
  };
  return { bodies, converted };
}

type Job = {
  chapters: ReadonlyArray<readonly [number, ChapterValues]>;
  answer: (results: Array<RenderedText | null>) => void;
  fail: (error: Error) => void;
};

/** Render threads stood in for: each job waits until the test answers it. */
function heldRenderer(): ChapterRenderer & { jobs: Job[]; closed: boolean } {
  const renderer = {
    jobs: [] as Job[],
    closed: false,
    render(chapters: ReadonlyArray<readonly [number, ChapterValues]>) {
      return new Promise<Array<RenderedText | null>>((answer, fail) =>
        renderer.jobs.push({ chapters, answer, fail }),
      );
    },
    warm() {},
    async close() {
      renderer.closed = true;
    },
  };
  return renderer;
}

/** What a render thread answers for a job. */
const renderedAll = (job: Job) =>
  job.chapters.map(([id, values]) => renderChapter(id, values, markdownCodec));

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("files staged from chapters rendered on other threads", () => {
  it("hands each page's chapters to the threads, converts nothing here, and stages what comes back", async () => {
    const cache = cacheDir();
    const { bodies, converted } = counting();
    const renderer = heldRenderer();
    const staged = new StagedFiles({ cache, bodies, snapshot: undefined, renderer });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one, two]);
    await turn();
    expect(renderer.jobs).toHaveLength(1);
    expect(renderer.jobs[0]!.chapters).toEqual([
      [1, chapterValuesOfRecord(one)],
      [2, chapterValuesOfRecord(two)],
    ]);
    // The plan waits for the page to come back before it looks at what was rendered.
    let back = false;
    const waiting = staged.rendered().then(() => (back = true));
    await turn();
    expect(back).toBe(false);
    renderer.jobs[0]!.answer(renderedAll(renderer.jobs[0]!));
    await waiting;
    await staged.stop();
    expect(converted).toEqual([]);
    expect(renderer.closed).toBe(true);
    const { hash, body, blob } = renderChapter(2, chapterValuesOfRecord(two), markdownCodec);
    expect(staged.renderedOf(two)).toEqual({ hash, body, blob });
    const file = staged.claim(sha256(textOf(one)));
    expect(readFileSync(file!, "utf8")).toBe(textOf(one));
    await staged.clear();
    expect(incoming(cache)).toEqual([]);
  });

  it("ends the threads once the listing is whole and every page handed to them is back", async () => {
    const cache = cacheDir();
    const renderer = heldRenderer();
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined, renderer });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one]);
    await turn();
    // A page still waiting for its turn is handed over first.
    staged.take("chapters", [two]);
    const listed = staged.listed();
    expect(renderer.jobs).toHaveLength(2);
    await turn();
    expect(renderer.closed).toBe(false);
    for (const job of renderer.jobs) job.answer(renderedAll(job));
    await listed;
    expect(renderer.closed).toBe(true);
    const { hash, body, blob } = renderChapter(2, chapterValuesOfRecord(two), markdownCodec);
    expect(staged.renderedOf(two)).toEqual({ hash, body, blob });
    await staged.stop();
    expect(staged.claim(sha256(textOf(one)))).toBeDefined();
    expect(staged.claim(sha256(textOf(two)))).toBeDefined();
    await staged.clear();
  });

  it("leaves a chapter the thread could not render to the plan", async () => {
    const cache = cacheDir();
    const renderer = heldRenderer();
    const staged = new StagedFiles({ cache, bodies: markdownCodec, snapshot: undefined, renderer });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one, two]);
    await turn();
    const job = renderer.jobs[0]!;
    job.answer([null, renderedAll(job)[1]!]);
    await staged.stop();
    expect(staged.renderedOf(one)).toBeUndefined();
    expect(staged.claim(sha256(textOf(one)))).toBeUndefined();
    expect(staged.claim(sha256(textOf(two)))).toBeDefined();
    await staged.clear();
  });

  it("renders here once the threads fail: their page is left to the plan, the next ones staged", async () => {
    const cache = cacheDir();
    const { bodies, converted } = counting();
    const renderer = heldRenderer();
    const staged = new StagedFiles({ cache, bodies, snapshot: undefined, renderer });
    const [one, two] = [chapter(1, "One"), chapter(2, "Two")];
    staged.take("chapters", [one]);
    await turn();
    renderer.jobs[0]!.fail(new Error("no thread"));
    await staged.rendered();
    staged.take("chapters", [two]);
    await staged.stop();
    expect(renderer.jobs).toHaveLength(1);
    expect(converted).toEqual(["<p>Two</p>"]);
    expect(staged.claim(sha256(textOf(one)))).toBeUndefined();
    expect(staged.claim(sha256(textOf(two)))).toBeDefined();
    await staged.clear();
  });
});
