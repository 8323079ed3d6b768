import type { WireRecord } from "../../api/wire.js";
import type { BodyCodec } from "../../tree/bodies.js";
import type { memoized } from "../../tree/codecs.js";
import { convertMany, POOL_THRESHOLD } from "../../tree/markdown/pool.js";
import { sameAsSnapshot } from "../model/entities.js";
import { type ContentReader, readContent } from "../model/spilled.js";
import type { Snapshot } from "../state/snapshot-model.js";

/**
 * Convert the HTML of the chapters a pull will write to Markdown ahead, on worker threads when
 * there are many (a first pull of a large site): the plan then finds each conversion made.
 * An unchanged record is told by its fields and content hash, and a record staged while the
 * listing arrived was converted then: the content of neither (read back from the spill when
 * asked) is read at all.
 */
export async function convertAhead(
  records: readonly WireRecord[],
  snapshot: Snapshot | undefined,
  bodies: ReturnType<typeof memoized>,
  fromHtml: BodyCodec["fromHtml"],
  /** Whether a record's file was already rendered this run (its text is not read again). */
  rendered: (record: WireRecord) => boolean = () => false,
  /** Reads the spilled texts (see pull/spill.ts). */
  reader?: ContentReader,
): Promise<void> {
  if (bodies.mode !== "markdown") return;
  const modeChanged = (snapshot?.body ?? "html") !== bodies.mode;
  const pending = new Set<string>();
  for (const record of records) {
    const entry = snapshot?.chapters[record.id];
    if (!modeChanged && entry?.body && sameAsSnapshot(record, entry.record)) continue;
    if (rendered(record)) continue;
    const content = readContent(record.content, reader);
    if (typeof content === "string" && !bodies.known(content)) pending.add(content);
  }
  if (pending.size < POOL_THRESHOLD) return;
  const htmls = [...pending];
  const converted = await convertMany(htmls, fromHtml);
  bodies.prime(htmls.map((html, i) => [html, converted[i]!] as const));
}
