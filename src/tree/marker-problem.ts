import { conflictMarkerLine } from "./bodies/conflict-markers.js";
import type { ChapterFile } from "./chapter-file.js";
import { FileProblem } from "./yaml-text.js";

/** A file holding conflict markers: a merge (pull's, or git's) waiting for its author. */
export class ConflictMarkers extends FileProblem {
  constructor(file: string, line: number) {
    super(
      file,
      line,
      "holds conflict markers (<<<<<<< ... >>>>>>>)",
      "Finish the merge: keep the lines you want and remove the markers.",
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
  const line = conflictMarkerLine(text, syntax, { chapter: chapter !== "course" });
  return line === undefined ? undefined : new ConflictMarkers(file, line);
}
