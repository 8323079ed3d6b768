import type { WireRecord } from "../api/wire.js";
import { chapterFileText, chapterValuesOfRecord } from "../sync/model/entities.js";
import { fileText, localChapter, type PreviewSource } from "./model.js";

// A chapter file against the site's current version, read only when a page asks for it.

/** The part of the API client the preview reads the site with, only when asked. */
export interface SiteReader {
  get(resource: "chapters", id: number): Promise<WireRecord | undefined>;
}

/**
 * A chapter file against the site's current record, written as pull would write it (as
 * `coursesync diff --remote` compares them); undefined when they are equal, a reason when the
 * site has none to compare with.
 */
export async function siteChapterDiff(
  source: PreviewSource,
  file: string,
  reader: SiteReader,
): Promise<{ before: string; after: string; what: string } | { none: string } | undefined> {
  const id = localChapter(source.local, file)?.id;
  if (id === undefined || id < 0)
    return { none: "This chapter is not on the site yet: the next push creates it." };
  const record = await reader.get("chapters", id);
  if (!record)
    return {
      none: `The site has no chapter ${id}: it was deleted there (\`coursesync pull\` says what to do).`,
    };
  const site = chapterFileText(record.id, chapterValuesOfRecord(record), source.bodies);
  const here = (await fileText(source.root, file)) ?? "";
  return site === here ? undefined : { before: site, after: here, what: "the site now against this file" };
}
