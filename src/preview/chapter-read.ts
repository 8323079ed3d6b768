import { readFileSync } from "node:fs";
import type { LocalChapter, LocalView } from "../sync/local/view.js";
import { type ChapterFile, readChapterFile } from "../tree/chapter-file.js";
import { abs } from "../tree/fs-ops.js";
import type { ScannedChapter } from "../tree/scan.js";

// A chapter file the scan did not parse (its bytes are those the last sync wrote) is shown with
// the snapshot's values, as the view took them: parsing every file of a large tree to list its
// titles is what made the first page slow.

/** What the index shows of a chapter file. */
export interface ChapterFields {
  id: number | undefined;
  title: unknown;
  ordinal: unknown;
  /** The file does not parse. */
  invalid: boolean;
}

/** The view's chapters by file. */
export function chaptersByFile(local: LocalView): Map<string, LocalChapter> {
  return new Map([...local.chapters.values()].map((chapter) => [chapter.file, chapter]));
}

/**
 * A chapter's id, title and ordinal: as the file was parsed, else the snapshot's (an unchanged
 * file), else read now (a file the view left out, e.g. in a folder without course.yaml).
 */
export function chapterFields(
  root: string,
  chapter: ScannedChapter,
  local: ReadonlyMap<string, LocalChapter>,
): ChapterFields {
  const known = chapter.parsed ?? chapter.partial;
  if (known) return { ...fieldsOf(known), invalid: chapter.parsed === undefined };
  const unchanged = local.get(chapter.file);
  if (unchanged?.unchanged) {
    const { title, ordinal } = unchanged.values;
    return { id: unchanged.id, title, ordinal, invalid: false };
  }
  const read = parsedChapter(root, chapter.file);
  return read
    ? { ...fieldsOf(read), invalid: false }
    : { id: undefined, title: undefined, ordinal: undefined, invalid: true };
}

function fieldsOf(read: ChapterFile): Omit<ChapterFields, "invalid"> {
  return { id: read.id, title: read.title, ordinal: read.ordinal };
}

/** A chapter file read and parsed now; undefined when it cannot be read or does not parse. */
export function parsedChapter(root: string, file: string): ChapterFile | undefined {
  try {
    return readChapterFile(readFileSync(abs(root, file), "utf8"), file).chapter;
  } catch {
    return undefined;
  }
}
