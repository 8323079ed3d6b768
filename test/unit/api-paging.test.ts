import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { lastPageFromHeaders, parseLinkHeader } from "../../src/api/page-headers.js";
import { collectPages, PAGE_CAP_FLOOR, type Page, pageCap } from "../../src/api/paging.js";
import type { WireRecord } from "../../src/api/wire.js";

function records(from: number, count: number): WireRecord[] {
  return Array.from({ length: count }, (_, i) => ({ id: from + i, title: `r${from + i}` }));
}

/** A fake server: `pages[n - 1]` is page n; beyond the array, pages are empty. Tracks overlap. */
function fakeServer(pages: WireRecord[][], headers: (page: number) => IncomingHttpHeaders = () => ({})) {
  const asked: number[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const fetchPage = async (page: number): Promise<Page> => {
    asked.push(page);
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((r) => setImmediate(r));
    inFlight -= 1;
    return { records: pages[page - 1] ?? [], headers: headers(page) };
  };
  return { fetchPage, asked, most: () => mostInFlight };
}

describe("parseLinkHeader", () => {
  it("reads next and last page numbers", () => {
    const header =
      '<https://x.test/api/v1/courses?page=2>; rel="next", <https://x.test/api/v1/courses?page=9>; rel="last"';
    expect(parseLinkHeader(header)).toEqual({ next: 2, last: 9 });
  });

  it("accepts unquoted rels, relative targets and several rels in one link", () => {
    expect(parseLinkHeader("</api/v1/courses?page=3&per_page=2>; rel=next")).toEqual({ next: 3 });
    expect(parseLinkHeader('<?page=4>; rel="next last"')).toEqual({ next: 4, last: 4 });
  });

  it("gives an empty result for links without next or last, and undefined for no header", () => {
    expect(parseLinkHeader('<https://x.test/c?page=1>; rel="prev"')).toEqual({});
    expect(parseLinkHeader(undefined)).toBeUndefined();
  });
});

describe("lastPageFromHeaders", () => {
  it("uses rel=last, X-Total-Pages, or a total count over the page size", () => {
    expect(lastPageFromHeaders({ link: '<?page=7>; rel="last"' }, 1, 10)).toBe(7);
    expect(lastPageFromHeaders({ "x-total-pages": "4" }, 1, 10)).toBe(4);
    expect(lastPageFromHeaders({ "x-total-count": "25" }, 1, 10)).toBe(3);
    expect(lastPageFromHeaders({ total: "25", "per-page": "5" }, 1, 5)).toBe(5);
    expect(lastPageFromHeaders({ "x-total-count": "0" }, 1, 0)).toBe(1);
    expect(lastPageFromHeaders({}, 1, 10)).toBeUndefined();
  });
});

describe("collectPages", () => {
  it("40 full pages, window 4: at most 40 + 4 requests, never more than 4 in flight", async () => {
    const pages = Array.from({ length: 40 }, (_, i) => records(i * 5 + 1, 5));
    const server = fakeServer(pages);
    const result = await collectPages(server.fetchPage, { window: () => 4 });
    expect(result.records).toHaveLength(200);
    expect(result.records.map((r) => r.id)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(result.pages).toBe(41);
    expect(server.asked.length).toBeLessThanOrEqual(44);
    expect(server.most()).toBeLessThanOrEqual(4);
    expect(server.most()).toBeGreaterThan(1);
    expect(new Set(server.asked).size).toBe(server.asked.length);
  });

  it("stops at a short page without asking for the page after it when nothing is in flight", async () => {
    const server = fakeServer([records(1, 3), records(4, 3), records(7, 1)]);
    const result = await collectPages(server.fetchPage, { window: () => 1 });
    expect(server.asked).toEqual([1, 2, 3]);
    expect(result.records).toHaveLength(7);
    expect(result.pages).toBe(3);
  });

  it("an empty first page is an empty listing", async () => {
    const server = fakeServer([]);
    const result = await collectPages(server.fetchPage, { window: () => 4 });
    expect(result).toEqual({ records: [], pages: 1 });
    expect(server.asked).toEqual([1]);
  });

  it("with rel=last, asks for exactly the pages needed", async () => {
    const pages = [records(1, 2), records(3, 2), records(5, 2)];
    const server = fakeServer(pages, () => ({ link: '<https://x.test/api/v1/courses?page=3>; rel="last"' }));
    const result = await collectPages(server.fetchPage, { window: () => 4 });
    expect(server.asked.sort()).toEqual([1, 2, 3]);
    expect(result.records).toHaveLength(6);
  });

  it("with rel=next only, follows the links one page at a time", async () => {
    const pages = [records(1, 2), records(3, 2), records(5, 2)];
    const server = fakeServer(pages, (page) =>
      page < 3 ? { link: `<?page=${page + 1}>; rel="next"` } : { link: `<?page=${page - 1}>; rel="prev"` },
    );
    const result = await collectPages(server.fetchPage, { window: () => 4 });
    expect(server.asked).toEqual([1, 2, 3]);
    expect(server.most()).toBe(1);
    expect(result.records).toHaveLength(6);
  });

  it("dedupes by id: first occurrence wins, page then position order", async () => {
    const server = fakeServer([
      [
        { id: 1, v: "a" },
        { id: 2, v: "a" },
        { id: 3, v: "a" },
      ],
      [
        { id: 3, v: "b" },
        { id: 4, v: "b" },
        { id: 5, v: "b" },
      ],
      [{ id: 1, v: "c" }],
    ]);
    const result = await collectPages(server.fetchPage, { window: () => 2 });
    expect(result.records).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: "a" },
      { id: 3, v: "a" },
      { id: 4, v: "b" },
      { id: 5, v: "b" },
    ]);
  });

  it("a failing page rejects the whole listing", async () => {
    const fetchPage = async (page: number): Promise<Page> => {
      if (page === 3) throw new Error("page 3 broke");
      return { records: records(page * 10, 2), headers: {} };
    };
    await expect(collectPages(fetchPage, { window: () => 2 })).rejects.toThrow("page 3 broke");
  });

  it("a failure past the end of the listing is ignored", async () => {
    const fetchPage = async (page: number): Promise<Page> => {
      if (page === 1) return { records: records(1, 2), headers: {} };
      if (page === 2) return { records: [], headers: {} };
      throw new Error(`page ${page} is past the end`);
    };
    const result = await collectPages(fetchPage, { window: () => 4 });
    expect(result.records).toHaveLength(2);
  });

  it("a page past the end answered Not Found ends the list on the page before", async () => {
    const notFound = new Error("page past the end: 404");
    const fetchPage = async (page: number): Promise<Page> =>
      page <= 2
        ? { records: records(page * 10, 2), headers: {} }
        : { records: [], headers: {}, pastEnd: notFound };
    const result = await collectPages(fetchPage, { window: () => 4 });
    expect(result.records.map((r) => r.id)).toEqual([10, 11, 20, 21]);
    expect(result.pages).toBe(2);
    const sequential = await collectPages(fetchPage, { window: () => 1, stopAfter: () => false });
    expect(sequential.records).toHaveLength(4);
  });

  it("a Not Found page is the end only once the page after it is seen past the end too", async () => {
    const notFound = new Error("GET courses?page=3 failed: 404");
    const fetchPage = async (page: number): Promise<Page> => {
      if (page <= 2) return { records: records(page * 10, 2), headers: {} };
      if (page === 3) return { records: [], headers: {}, pastEnd: notFound };
      throw new Error(`page ${page} broke`);
    };
    // One page at a time, the page after the Not Found one is still asked for, and it broke.
    await expect(collectPages(fetchPage, { window: () => 1 })).rejects.toBe(notFound);
    await expect(collectPages(fetchPage, { window: () => 1, stopAfter: () => false })).rejects.toThrow(
      "page 4 broke",
    );
  });

  it("a Not Found page followed by a page with records is a hole: the listing fails", async () => {
    const notFound = new Error("GET courses?page=2 failed: 404");
    const fetchPage = async (page: number): Promise<Page> => {
      if (page === 2) return { records: [], headers: {}, pastEnd: notFound };
      return { records: page <= 4 ? records(page * 10, 2) : [], headers: {} };
    };
    await expect(collectPages(fetchPage, { window: () => 4 })).rejects.toBe(notFound);
  });

  it("a Not Found page followed by an empty page is a hole: the site answers 200 past its end", async () => {
    const notFound = new Error("GET chapters?page=3 failed: 404");
    const fetchPage = async (page: number): Promise<Page> => {
      if (page <= 2) return { records: records(page * 10, 2), headers: {} };
      if (page === 3) return { records: [], headers: {}, pastEnd: notFound };
      return { records: [], headers: {} };
    };
    await expect(collectPages(fetchPage, { window: () => 4 })).rejects.toBe(notFound);
    await expect(collectPages(fetchPage, { window: () => 1, stopAfter: () => false })).rejects.toBe(notFound);
  });

  it("a Not Found page that answers with records when asked again is a hole", async () => {
    const notFound = new Error("GET chapters?page=3 failed: 404");
    const asked = new Map<number, number>();
    const fetchPage = async (page: number): Promise<Page> => {
      asked.set(page, (asked.get(page) ?? 0) + 1);
      if (page <= 2) return { records: records(page * 10, 2), headers: {} };
      // Page 3 is the real last page and fails once; pages past it answer Not Found.
      if (page === 3 && asked.get(3) === 1) return { records: [], headers: {}, pastEnd: notFound };
      if (page === 3) return { records: records(30, 2), headers: {} };
      return { records: [], headers: {}, pastEnd: new Error(`page ${page}: 404`) };
    };
    await expect(collectPages(fetchPage, { window: () => 4 })).rejects.toBe(notFound);
    asked.clear();
    await expect(collectPages(fetchPage, { window: () => 1, stopAfter: () => false })).rejects.toBe(notFound);
  });

  it("a full page that brings no record not seen before rejects: the site repeats a page", async () => {
    // A site that ignores ?page=: every page is page 1.
    const fetchPage = async (): Promise<Page> => ({ records: records(1, 3), headers: {} });
    const describePage = (page: number) => `GET /api/v1/chapters?page=${page}`;
    await expect(collectPages(fetchPage, { window: () => 4, describe: describePage })).rejects.toThrow(
      "the site repeats page 1: GET /api/v1/chapters?page=2 brought no record that earlier pages did not",
    );
    await expect(
      collectPages(fetchPage, { window: () => 1, stopAfter: () => false, describe: describePage }),
    ).rejects.toThrow("the site repeats page 1");
  });

  it("a Link rel=next that points back rejects the listing instead of ending it", async () => {
    const pages = [records(1, 2), records(3, 2), records(5, 2)];
    const server = fakeServer(pages, (page) => ({
      link: `<?page=${page === 2 ? 1 : page + 1}>; rel="next"`,
    }));
    await expect(collectPages(server.fetchPage, { window: () => 4 })).rejects.toThrow(
      "the Link header of page 2 points back to page 1 as the next page",
    );
    await expect(collectPages(server.fetchPage, { window: () => 1, stopAfter: () => false })).rejects.toThrow(
      "points back to page 1",
    );
  });

  it("a listing that never ends stops at the page cap", async () => {
    let asked = 0;
    // Every page brings new records: only the cap stops it.
    const fetchPage = async (page: number): Promise<Page> => {
      asked += 1;
      return { records: records(page * 10, 2), headers: {} };
    };
    await expect(collectPages(fetchPage, { window: () => 4 })).rejects.toThrow(
      `the listing did not end after ${PAGE_CAP_FLOOR} pages`,
    );
    expect(asked).toBe(PAGE_CAP_FLOOR);
  });

  it("the cap grows with the records expected, so a large site is read whole", async () => {
    expect(pageCap(0, 100)).toBe(PAGE_CAP_FLOOR);
    expect(pageCap(1_000_000, 25)).toBe(160_000);
    const last = PAGE_CAP_FLOOR + 500;
    const fetchPage = async (page: number): Promise<Page> => ({
      records: page <= last ? records(page * 10, 2) : [],
      headers: {},
    });
    const result = await collectPages(fetchPage, { window: () => 4, expected: 2 * last });
    expect(result.pages).toBe(last + 1);
    expect(result.records).toHaveLength(2 * last);
  });

  it("a count told while the listing goes (a function) sizes the cap as it is checked", async () => {
    const last = PAGE_CAP_FLOOR + 500;
    let expected = 0;
    const fetchPage = async (page: number): Promise<Page> => {
      // The count is known once the first pages came (the last sync read meanwhile).
      if (page === 2) expected = 2 * last;
      return { records: page <= last ? records(page * 10, 2) : [], headers: {} };
    };
    const result = await collectPages(fetchPage, { window: () => 4, expected: () => expected });
    expect(result.pages).toBe(last + 1);
  });

  it("with the last sync's count, asks for no page past the one that shows the end", async () => {
    // 40 records in 8 full pages: page 9 (empty) shows the end; 41 records: page 9 holds one.
    for (const total of [40, 41]) {
      const pages = Array.from({ length: Math.ceil(total / 5) }, (_, i) =>
        records(i * 5 + 1, Math.min(5, total - i * 5)),
      );
      const server = fakeServer(pages);
      const result = await collectPages(server.fetchPage, { window: () => 4, expected: total });
      expect(result.records).toHaveLength(total);
      expect(server.asked.sort((a, b) => a - b)).toEqual(Array.from({ length: 9 }, (_, i) => i + 1));
      expect(server.most()).toBeGreaterThan(1);
    }
  });

  it("a list grown past the last sync's count is read whole: paging goes on once that page came back full", async () => {
    const pages = Array.from({ length: 14 }, (_, i) => records(i * 5 + 1, 5));
    const server = fakeServer(pages);
    const seenBeforeNine: number[] = [];
    const fetchPage = async (page: number): Promise<Page> => {
      if (!server.asked.includes(9)) seenBeforeNine.push(page);
      return server.fetchPage(page);
    };
    const result = await collectPages(fetchPage, { window: () => 4, expected: 40 });
    expect(result.records.map((r) => r.id)).toEqual(Array.from({ length: 70 }, (_, i) => i + 1));
    expect(result.pages).toBe(15);
    expect(Math.max(...server.asked)).toBeLessThanOrEqual(15 + 3);
    expect(new Set(server.asked).size).toBe(server.asked.length);
    expect(Math.max(...seenBeforeNine)).toBeLessThanOrEqual(9);
  });

  it("a list shrunk below the last sync's count ends where it ends, a window at most past it", async () => {
    const pages = [...Array.from({ length: 3 }, (_, i) => records(i * 5 + 1, 5)), records(16, 2)];
    const server = fakeServer(pages);
    const result = await collectPages(server.fetchPage, { window: () => 4, expected: 60 });
    expect(result.records).toHaveLength(17);
    expect(result.pages).toBe(4);
    expect(server.asked.length).toBeLessThanOrEqual(4 + 3);
  });

  it("a count that arrives after page 1 holds the pages past its end too", async () => {
    let expected = 0;
    const pages = Array.from({ length: 8 }, (_, i) => records(i * 5 + 1, 5));
    const server = fakeServer(pages);
    const fetchPage = async (page: number): Promise<Page> => {
      if (page === 1) expected = 40;
      return server.fetchPage(page);
    };
    const result = await collectPages(fetchPage, { window: () => 4, expected: () => expected });
    expect(result.records).toHaveLength(40);
    expect(Math.max(...server.asked)).toBe(9);
  });

  it("pages after the first wait for a count told late, then stop where it ends", async () => {
    const pages = Array.from({ length: 8 }, (_, i) => records(i * 5 + 1, 5));
    const server = fakeServer(pages);
    let expected = 0;
    let tell: () => void = () => {};
    const expectedReady = new Promise<void>((resolve) => (tell = resolve));
    const listing = collectPages(server.fetchPage, {
      window: () => 4,
      expected: () => expected,
      expectedReady,
    });
    // Page 1 has come and gone several turns ago: nothing more is asked until the count is told.
    for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
    expect(server.asked).toEqual([1]);
    expected = 40;
    tell();
    const result = await listing;
    expect(result.records).toHaveLength(40);
    expect(server.asked.sort((a, b) => a - b)).toEqual(Array.from({ length: 9 }, (_, i) => i + 1));
  });

  it("a count told after the listing ended changes nothing", async () => {
    const server = fakeServer([]);
    let tell: () => void = () => {};
    const expectedReady = new Promise<void>((resolve) => (tell = resolve));
    const listing = collectPages(server.fetchPage, { window: () => 4, expected: 3, expectedReady });
    for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
    tell();
    const result = await listing;
    expect(result).toEqual({ records: [], pages: 1 });
    expect(server.asked).toEqual([1]);
  });

  it("stopAfter pages sequentially and stops early", async () => {
    const pages = Array.from({ length: 10 }, (_, i) => records(i * 2 + 1, 2));
    const server = fakeServer(pages);
    const seen: number[] = [];
    const result = await collectPages(server.fetchPage, {
      window: () => 4,
      stopAfter: (pageRecords, page) => {
        seen.push(pageRecords.length);
        return page === 3;
      },
    });
    expect(server.asked).toEqual([1, 2, 3]);
    expect(server.most()).toBe(1);
    expect(seen).toEqual([2, 2, 2]);
    expect(result.records).toHaveLength(6);
  });

  it("reports progress for each page of the listing", async () => {
    const server = fakeServer([records(1, 2), records(3, 2)]);
    const progress: Array<[number, number]> = [];
    await collectPages(server.fetchPage, {
      window: () => 1,
      onPage: (page, count) => progress.push([page, count]),
    });
    expect(progress).toEqual([
      [1, 2],
      [2, 2],
      [3, 0],
    ]);
  });
});
