import { afterEach, describe, expect, it } from "vitest";
import type { Listing, ListOptions } from "../../src/api/client.js";
import type { WireRecord } from "../../src/api/wire.js";
import { startListing } from "../../src/sync/pull/listing.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

/** A client whose lists hand over their pages when told to: two pages each. */
function pagedClient() {
  const waiting: Array<() => void> = [];
  const asked: string[] = [];
  const client = {
    listAll(path: string, options: ListOptions = {}): Promise<Listing> {
      asked.push(path);
      const pages = [1, 2].map((page) => [{ id: page * 10, title: `${path} ${page}` } as WireRecord]);
      return new Promise((resolve) => {
        let next = 0;
        const one = () => {
          const records = pages[next]!;
          next += 1;
          options.onRecords?.(records, next);
          options.onPage?.(next, records.length);
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
  return { client, asked, page };
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
});
