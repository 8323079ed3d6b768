/**
 * A listed chapter's content that a pull moved out of memory (see pull/spill.ts): where its
 * text is in the run's spill file, and the text's SHA-256. It stands in the record's `content`
 * as a plain value; like any ContentRef it compares by its hash, and its text is read only
 * through a ContentReader, where a step needs the text.
 */
export interface SpilledText {
  /** SHA-256 of the text (a ContentRef: it compares by this). */
  sha256: string;
  /** The text's byte offset in the spill file. */
  spilledAt: number;
  /** The text's length in bytes. */
  length: number;
}

/** Reads spilled texts back (the run's spill): the seam through which a step gets them. */
export interface ContentReader {
  read(text: SpilledText): string;
}

/** Whether a record's content is a spilled text (a reference, not the text). */
export function isSpilled(content: unknown): content is SpilledText {
  return (
    content !== null && typeof content === "object" && typeof (content as SpilledText).spilledAt === "number"
  );
}

/** A record's content with a spilled text read back through `reader`; any other content as it is. */
export function readContent(content: unknown, reader: ContentReader | undefined): unknown {
  if (!isSpilled(content)) return content;
  if (!reader) throw new Error("a spilled chapter text was needed where no reader was given");
  return reader.read(content);
}
