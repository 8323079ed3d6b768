import { markerBlocksOf } from "./bodies/conflict-markers.js";
import type { ChapterFile } from "./chapter-file.js";
import { FileProblem } from "./yaml-text.js";

/** A file holding conflict markers: a merge (pull's, or git's) waiting for its author. */
export class ConflictMarkers extends FileProblem {
  constructor(file: string, line: number, size = 7) {
    super(
      file,
      line,
      size === 7
        ? "holds conflict markers (<<<<<<< ... >>>>>>>)"
        : `holds git's conflict markers of ${size} characters (${"<".repeat(size)} ... ${">".repeat(size)}): git put two whole files in one, as it does for a rename conflict`,
      size === 7
        ? "Finish the merge: keep the lines you want and remove the markers."
        : "Keep one of the files: the lines of one side, without the other side's lines and the markers (`git checkout --ours` or `--theirs` on the file takes one side whole).",
      { rule: "conflict-markers", column: 1 },
    );
  }
}

/** Markers in a chapter's body count outside its code; in YAML (course.yaml), anywhere. */
export function markerProblem(
  file: string,
  text: string,
  chapter: ChapterFile | "course" | undefined,
): FileProblem | undefined {
  const syntax =
    chapter === "course" ? "none" : chapter?.format === "json" ? "none" : (chapter?.format ?? "markdown");
  const block = markerBlocksOf(text, syntax, { chapter: chapter !== "course" })[0];
  return block === undefined ? undefined : new ConflictMarkers(file, block.line + 1, block.size);
}
