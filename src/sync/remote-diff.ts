import { readFile } from "node:fs/promises";
import type { Listing, ListOptions } from "../api/client.js";
import type { WireRecord } from "../api/wire.js";
import type { BodyCodec } from "../tree/bodies.js";
import { abs } from "../tree/fs-ops.js";
import { inPaths } from "./local/changes.js";
import type { LocalView } from "./local/view.js";
import {
  chapterFileText,
  chapterValuesOfRecord,
  courseFileText,
  courseValuesOfRecord,
} from "./model/entities.js";
import { completeSummaries, type RecordReader } from "./pull/complete.js";
import type { ContentCache } from "./state/content-cache.js";

/** One file as the site has it now against the tree: `site` and `here` empty where it has none. */
export interface RemotePair {
  kind: "course" | "chapter";
  id: number | undefined;
  path: string;
  site: string;
  here: string;
}

/** The part of the API client a diff against the site reads with. */
export interface SiteReader extends RecordReader {
  listAll(path: string, options?: ListOptions): Promise<Listing>;
}

/** What a diff against the site needs: the body step, the site, the content cache, the paths. */
export interface RemoteContext {
  bodies: BodyCodec;
  client: SiteReader;
  cache: ContentCache;
  paths?: readonly string[] | undefined;
}

/**
 * Each file of the tree (within `paths`) against the file the site's current record would be
 * written as, for `diff --remote`: the list pages only (a summary list's records read one by
 * one). Records the site has and the tree does not come as files with no local side; files
 * whose record the site no longer has, with no site side. Equal pairs are left out.
 */
export async function remotePairs(
  root: string,
  local: LocalView,
  context: RemoteContext,
): Promise<RemotePair[]> {
  const { bodies, client, paths } = context;
  const complete = { snapshot: undefined, cache: context.cache, reader: client };
  const [courses, chapters] = await Promise.all(
    (["courses", "chapters"] as const).map(async (resource) => {
      const listed = await client.listAll(resource);
      return (await completeSummaries(resource, listed.records, complete)).records;
    }),
  );
  const pairs: RemotePair[] = [];
  const siteText = (kind: "course" | "chapter", record: WireRecord) =>
    kind === "course"
      ? courseFileText(record.id, courseValuesOfRecord(record))
      : chapterFileText(record.id, chapterValuesOfRecord(record), bodies);
  const sides = [
    { kind: "course", listed: courses ?? [], files: local.courses.values() },
    { kind: "chapter", listed: chapters ?? [], files: local.chapters.values() },
  ] as const;
  for (const { kind, listed, files } of sides) {
    const onSite = new Map(listed.map((record) => [record.id, record]));
    for (const { id, file } of files) {
      const record = id === undefined ? undefined : onSite.get(id);
      if (id !== undefined) onSite.delete(id);
      if (file === undefined || !inPaths(file, paths)) continue;
      const here = await readFile(abs(root, file), "utf8").catch(() => "");
      const site = record === undefined ? "" : siteText(kind, record);
      if (site !== here) pairs.push({ kind, id, path: file, site, here });
    }
    // On the site, not in the tree (the whole tree asked for only): named by the record.
    if (paths !== undefined) continue;
    for (const record of onSite.values()) {
      const path = `site:${kind}s/${record.id}`;
      pairs.push({ kind, id: record.id, path, site: siteText(kind, record), here: "" });
    }
  }
  return pairs;
}
