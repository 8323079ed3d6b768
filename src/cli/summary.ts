import { type Change, countOutcomes } from "../sync/model/report.js";
import type { ListingMoved, RecordRef } from "../sync/pull/unlisted.js";
import type { FileProblem } from "../tree/yaml-text.js";
import { counted } from "../util/words.js";
import type { Output } from "./output.js";
import type { ChangeJson, InvalidFileJson, PullJson } from "./render/json-types.js";
import { recordName } from "./render/words.js";

const MARK: Record<Change["outcome"], string> = {
  created: "+",
  updated: "~",
  renamed: ">",
  deleted: "-",
  unchanged: " ",
  conflict: "!",
  failed: "x",
  skipped: "?",
};

const STYLE = {
  created: "green",
  updated: "yellow",
  renamed: "cyan",
  deleted: "red",
  unchanged: "gray",
  conflict: "magenta",
  failed: "red",
  skipped: "gray",
} as const;

/** One line per change, for people. */
export function changeLines(changes: readonly Change[], out: Output): string[] {
  return changes
    .filter((c) => c.outcome !== "unchanged")
    .map((c) => {
      const what = recordName(c.kind, c.id);
      const detail = [
        c.from ? `from ${c.from}` : undefined,
        c.fields?.length ? `[${c.fields.join(", ")}]` : undefined,
        c.reason,
        c.copy ? `site's version in ${c.copy}` : undefined,
      ]
        .filter(Boolean)
        .join("; ");
      return `${out.paint(STYLE[c.outcome], `${MARK[c.outcome]} ${c.outcome.padEnd(8)}`)} ${c.path}  (${what}${detail ? `; ${detail}` : ""})`;
    });
}

/** "3 created, 1 updated, ..." for the outcomes that happened. */
export function countsLine(changes: readonly Change[]): string {
  const counts = countOutcomes(changes);
  const parts = Object.entries(counts)
    .filter(([outcome, n]) => n > 0 && outcome !== "unchanged")
    // "2 conflicts", but "2 created": the other outcomes are past participles.
    .map(([outcome, n]) => (outcome === "conflict" ? counted(n, outcome) : `${n} ${outcome}`));
  return parts.length ? parts.join(", ") : "no changes";
}

/** The --json form of a change (stable keys, no undefined). */
export function changeJson(change: Change): ChangeJson {
  const json: ChangeJson = change;
  return Object.fromEntries(Object.entries(json).filter(([, v]) => v !== undefined)) as ChangeJson;
}

/** The --json form of an invalid file's problem: its path, line, what is wrong and what to do. */
export function problemJson(problem: FileProblem): InvalidFileJson {
  return {
    path: problem.file,
    ...(problem.line === undefined ? {} : { line: problem.line }),
    message: problem.problem,
    ...(problem.hint ? { hint: problem.hint } : {}),
  };
}

/** How many files a message names one by one before "and N more". */
const NAMED = 5;

/** "a, b, c and 4 more" for the paths of records. */
function pathsOf(refs: readonly RecordRef[]): string {
  const shown = refs.slice(0, NAMED).map((ref) => ref.path || recordName(ref.kind, ref.id));
  return refs.length > NAMED ? `${shown.join(", ")} and ${refs.length - NAMED} more` : shown.join(", ");
}

/**
 * What pull says of a listing that moved while it paged through (said like an error, also with
 * --quiet or --json): how many records it missed, that nothing was deleted from it, what to do.
 */
export function listingMovedMessage(moved: ListingMoved, dryRun: boolean): { message: string; hint: string } {
  const n = moved.missed.length;
  const kept =
    n === 1
      ? `${dryRun ? "it would be kept" : "it was kept"} as it is`
      : `${dryRun ? "they would be kept" : "they were kept"} as they are`;
  const deleted = dryRun ? "nothing would be deleted" : "nothing was deleted";
  const waiting = moved.waiting.length;
  const waits =
    waiting > 0
      ? `; ${counted(waiting, "record")} the site did delete ${waiting === 1 ? "waits" : "wait"} for the next pull (${pathsOf(moved.waiting)})`
      : "";
  return {
    message:
      `the site's listing moved while pull paged through it (records were deleted or edited there meanwhile): ` +
      `it left out ${counted(n, "record")} the site still has (${pathsOf(moved.missed)}); ${kept} and ${deleted} from this listing${waits}`,
    hint: "Run `coursesync pull` again: a listing that holds still brings every record in and deletes what the site deleted.",
  };
}

/** The --json form of a moved listing: the records it missed and the deletes that wait. */
export function listingMovedJson(moved: ListingMoved | undefined): PullJson["listing_moved"] {
  return moved ? { missed: moved.missed, deletes_waiting: moved.waiting } : null;
}
