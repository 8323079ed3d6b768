import { afterEach, describe, expect, it } from "vitest";
import type { Listing, ListOptions } from "../../src/api/client.js";
import type { WireRecord } from "../../src/api/wire.js";
import { startListing } from "../../src/sync/pull/listing.js";
import { saveSnapshot } from "../../src/sync/state/snapshot.js";
import type { Snapshot } from "../../src/sync/state/snapshot-model.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** A client whose lists hand over their pages when told to: two pages each. */
function pagedClient() {
  const waiting: Array<() => void> = [];
  const asked: string[] = [];
  const options: Record<string, ListOptions> = {};
  const client = {
    listAll(path: string, given: ListOptions = {}): Promise<Listing> {
      asked.push(path);
      options[path] = given;
      const pages = [1, 2].map((page) => [{ id: page * 10, title: `${path} ${page}` } as WireRecord]);
      return new Promise((resolve) => {
        let next = 0;
        const one = () => {
          const records = pages[next]!;
          next += 1;
          given.onRecords?.(records, next);
          given.onPage?.(next, records.length);
          if (next === pages.length) resolve({ records: pages.flat(), pages: pages.length, requests: 2 });
          else waiting.push(one);
        };
        waiting.push(one);
      });
    },
  };
  /** Let every list hand over its next page. */
  const page = () => {
    for (const give of waiting.splice(0)) give();
  };
  return { client, asked, options, page };
}

const SITE = "https://academy.example.com/api/v1";

/** A tree whose last sync, made for `site`, knows one course and its two chapters. */
async function syncedTree(site: string): Promise<string> {
  const root = await testdir();
  const chapter = (id: number) => ({
    path: `courses/a/${id}.md`,
    hash: `h${id}`,
    record: { id, course_id: 1, title: `T${id}` },
  });
  const snapshot: Snapshot = {
    version: 1,
    site,
    body: "markdown",
    courses: { "1": { path: "courses/a", hash: "h1", record: { id: 1, title: "A" } } },
    chapters: { "10": chapter(10), "11": chapter(11) },
  };
  await saveSnapshot(root, "production", snapshot);
  return root;
}

describe("the lists a pull starts before the rest of it has loaded", () => {
  it("starts both lists at once, and hands each page over once, in order, also those before attach", async () => {
    const root = await testdir();
    const { client, asked, page } = pagedClient();
    const expected: string[] = [];
    const started = await startListing(
      {
        root,
        site: "production",
        siteUrl: "https://academy.example.com/api/v1",
        onExpected: (list, records) => expected.push(`${list} ${records}`),
      },
      client,
    );
    expect(started.loaded).toBeUndefined();
    expect(expected).toEqual(["courses 0", "chapters 0"]);
    expect(asked).toEqual(["courses", "chapters"]);
    // The first pages come while pull is still loading: they wait for their handlers.
    page();
    const got: string[] = [];
    started.attach({
      courses: (records) => got.push(...records.map((r) => `${r.title}`)),
      chapters: (records) => got.push(...records.map((r) => `${r.title}`)),
    });
    expect(got).toEqual(["courses 1", "chapters 1"]);
    page();
    expect(got).toEqual(["courses 1", "chapters 1", "courses 2", "chapters 2"]);
    const [courses, chapters] = await started.listed;
    expect(courses.records.map((r) => r.id)).toEqual([10, 20]);
    expect(chapters.records.map((r) => r.id)).toEqual([10, 20]);
  });

  it("drops the pages of a list that has no handler (a dry run stages and spills nothing)", async () => {
    const root = await testdir();
    const { client, page } = pagedClient();
    const started = await startListing(
      { root, site: "production", siteUrl: "https://academy.example.com/api/v1" },
      client,
    );
    page();
    const got: string[] = [];
    started.attach({ chapters: (records) => got.push(...records.map((r) => `${r.title}`)) });
    page();
    expect(got).toEqual(["chapters 1", "chapters 2"]);
    await started.listed;
  });

  it("with a last sync made for this site, asks for both lists before reading it; its counts then size the listings", async () => {
    const root = await syncedTree(SITE);
    const { client, asked, options, page } = pagedClient();
    const starting = startListing({ root, site: "production", siteUrl: SITE }, client);
    // Asked at once: the last sync is read while the first pages are on their way.
    expect(asked).toEqual(["courses", "chapters"]);
    const started = await starting;
    expect(Object.keys(started.loaded?.chapters ?? {})).toEqual(["10", "11"]);
    const expected = (list: string) => {
      const given = options[list]?.expected;
      return typeof given === "function" ? given() : given;
    };
    expect([expected("courses"), expected("chapters")]).toEqual([1, 2]);
    page();
    page();
    await started.listed;
  });

  it("with a last sync made for another site, refuses before asking the site anything", async () => {
    const root = await syncedTree("https://elsewhere.example.com/api/v1");
    const { client, asked } = pagedClient();
    await expect(startListing({ root, site: "production", siteUrl: SITE }, client)).rejects.toThrow(
      `was made for https://elsewhere.example.com/api/v1, not ${SITE}`,
    );
    expect(asked).toEqual([]);
  });
});
