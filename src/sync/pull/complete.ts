import PQueue from "p-queue";
import type { Resource, WireRecord } from "../../api/wire.js";
import { UserError } from "../../errors.js";
import { jsonEqual } from "../reconcile.js";
import type { ContentCache } from "../state/content-cache.js";
import type { Snapshot } from "../state/snapshot-model.js";

/** The field a summary list may leave out, by list: records without it are read one by one. */
export const SUMMARY_FIELDS: Record<Resource, "excerpt" | "content"> = {
  courses: "excerpt",
  chapters: "content",
};

/** The part of the API client that reads one record. */
export interface RecordReader {
  get(resource: Resource, id: number | string): Promise<WireRecord | undefined>;
}

/** Where completed records come from, and where to say what was read. */
export interface CompleteOptions {
  snapshot: Snapshot | undefined;
  cache: ContentCache;
  reader: RecordReader;
  onNote?: ((line: string) => void) | undefined;
}

/**
 * The listed records, with those a summary list left a field out of made whole: from the last
 * sync when the record is otherwise unchanged there (and its content is at hand), else by
 * reading the record (counted in `reads`). A record that cannot be read any more fails the
 * pull: the site changed while it was being listed.
 */
export async function completeSummaries(
  resource: Resource,
  records: readonly WireRecord[],
  options: CompleteOptions,
): Promise<{ records: WireRecord[]; reads: number }> {
  const field = SUMMARY_FIELDS[resource];
  const toRead: number[] = [];
  const out = [...records];
  for (const [index, record] of records.entries()) {
    if (field in record) continue;
    const known = await fromLastSync(resource, record, options);
    if (known !== undefined) out[index] = known;
    else toRead.push(index);
  }
  if (toRead.length === 0) return { records: out, reads: 0 };
  options.onNote?.(
    `the site's ${resource} list leaves out "${field}": reading ${toRead.length} ${toRead.length === 1 ? resource.slice(0, -1) : resource} one by one`,
  );
  // The reader's own gate keeps these within the site's limits; this only bounds what waits.
  const queue = new PQueue({ concurrency: 64 });
  await queue.addAll(
    toRead.map((index) => async () => {
      const listed = records[index]!;
      const whole = await options.reader.get(resource, listed.id);
      if (whole === undefined) {
        throw new UserError(
          `${resource.slice(0, -1)} ${listed.id} was listed, but reading it answered Not Found; nothing was changed`,
          { hint: "The site changed during the pull. Run `coursesync pull` again." },
        );
      }
      out[index] = whole;
    }),
  );
  return { records: out, reads: toRead.length };
}

/** The record as the last sync knew it, when the listed one is that record without `field`. */
async function fromLastSync(
  resource: Resource,
  listed: WireRecord,
  options: CompleteOptions,
): Promise<WireRecord | undefined> {
  const entry = options.snapshot?.[resource][listed.id];
  if (entry === undefined) return undefined;
  const field = SUMMARY_FIELDS[resource];
  const { [field]: value, content_sha256: hash, ...rest } = entry.record;
  if (!jsonEqual(rest, listed)) return undefined;
  if (resource === "chapters" && typeof hash === "string") {
    const text = await options.cache.get(hash);
    return text === undefined ? undefined : { ...listed, content: text };
  }
  return field in entry.record ? { ...listed, [field]: value } : { ...listed };
}
