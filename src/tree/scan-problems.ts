/** The problems a scan of the tree reports of names, links, encodings and record files. */
import type { ChapterFile } from "./chapter-file.js";
import { markerProblem } from "./marker-problem.js";
import { FileProblem } from "./yaml-text.js";

/**
 * Every problem of one record file: its encoding, leftover conflict markers, and all its parse
 * found. Markers break the YAML they stand in, so its syntax errors are theirs, not more.
 */
export function fileProblems(
  file: string,
  text: string,
  encoding: FileProblem | undefined,
  parsed: readonly FileProblem[],
  chapter: ChapterFile | "course" | undefined,
): FileProblem[] {
  const marker = markerProblem(file, text, chapter);
  const broken = parsed.some((p) => p.rule === "yaml-syntax" || p.rule === "front-matter");
  const rest = marker && broken ? [] : parsed;
  return [encoding, marker, ...rest].filter((problem): problem is FileProblem => problem !== undefined);
}

const ODD_NAME = "has a name that is not valid UTF-8 (its bad bytes shown as \\xNN)";

/** A skipped name that is not UTF-8, where no record can be. */
export function oddNameWarning(shown: string): string {
  return `${shown} ${ODD_NAME}: skipped`;
}

/**
 * A name that is not UTF-8 where a record's file or folder could be: invalid, not skipped, as
 * skipping a record's file renamed so would read the record as deleted here.
 */
export function oddNameProblem(shown: string): FileProblem {
  return new FileProblem(
    shown,
    undefined,
    `${ODD_NAME}, so coursesync cannot tell which record it holds`,
    `Rename it to a UTF-8 name (in a shell: mv $'${shown}' <new name>), or add it to ignore: in coursesync.yaml.`,
    { rule: "encoding" },
  );
}

/** A symbolic link where a course folder or a record's file belongs. */
export function linkProblem(relPath: string): FileProblem {
  return new FileProblem(
    relPath,
    undefined,
    "is a symbolic link, which coursesync does not follow",
    "Put the file or folder itself here, not a link to it.",
  );
}

/**
 * A file that is not valid UTF-8, named with the line of its first bad byte: read as text,
 * the byte would become U+FFFD and be sent so. (Valid text re-encodes to the same bytes, so
 * the first byte that differs is the first bad one.)
 */
export function utf8Problem(relPath: string, buffer: Buffer, text: string): FileProblem | undefined {
  if (!text.includes("\uFFFD")) return undefined;
  const again = Buffer.from(text, "utf8");
  let at = 0;
  while (at < buffer.length && at < again.length && buffer[at] === again[at]) at++;
  if (at === buffer.length && at === again.length) return undefined;
  let line = 1;
  for (let i = 0; i < at; i++) if (buffer[i] === 0x0a) line++;
  return new FileProblem(
    relPath,
    line,
    "is not valid UTF-8 text",
    "Save the file as UTF-8 (your editor's encoding setting) and run the command again.",
    { rule: "encoding" },
  );
}
