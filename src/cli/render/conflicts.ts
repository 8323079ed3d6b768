import type { Change, ConflictResolution } from "../../sync/model/report.js";
import { counted } from "../../util/words.js";

/** The files named, up to a few (the lines above name each). */
function named(files: readonly string[]): string {
  if (files.length === 0) return "";
  const shown = files.slice(0, 3).join(", ");
  return files.length > 3 ? ` (${shown} and ${files.length - 3} more)` : ` (${shown})`;
}

/** What a line says of one kind of conflict: what was (or would be) written, and the way out. */
function said(resolution: ConflictResolution, group: readonly Change[], done: boolean): string {
  const one = group.length === 1;
  switch (resolution) {
    case "markers":
      return (
        `both sides ${done ? "are" : "would be"} in the ${one ? "file" : "files"} between conflict markers${named(group.map((c) => c.path))}. ` +
        "Keep what you want, remove the markers, then `coursesync push` (no --force: the merge already holds the site's side)."
      );
    case "beside":
      return (
        `your ${one ? "file was" : "files were"} left as ${one ? "it is" : "they are"} and the site's ` +
        `${one ? "version" : "versions"} ${done ? "written" : "would be written"} beside ${one ? "it" : "them"}` +
        `${named(group.flatMap((c) => (c.copy ? [c.copy] : [])))}. ` +
        "Merge by hand from the .remote file into yours, then `coursesync push --force`; " +
        "or take the site's side with `coursesync pull --theirs`."
      );
    case "none":
      return (
        `nothing ${done ? "was" : "would be"} written for ${one ? "it" : "them"}${named(group.map((c) => c.path))}. ` +
        "Keep your side with `coursesync push --force`, or take the site's with `coursesync pull --theirs`."
      );
  }
}

const ORDER: readonly ConflictResolution[] = ["markers", "beside", "none"];

/**
 * The summary lines of a pull's conflicts, one per kind of resolution the run used (markers
 * in the file, a conflict copy beside it, nothing), so that what they say and advise follows
 * from what was done. `done` is false for a dry run.
 */
export function conflictSummaryLines(changes: readonly Change[], done: boolean): string[] {
  const conflicts = changes.filter((c) => c.outcome === "conflict");
  return ORDER.flatMap((resolution) => {
    const group = conflicts.filter((c) => (c.resolution ?? "none") === resolution);
    return group.length === 0
      ? []
      : [`${counted(group.length, "conflict")}: ${said(resolution, group, done)}`];
  });
}
