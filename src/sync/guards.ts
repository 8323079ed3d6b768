// The guards that stop a run before it writes (DESIGN section 4): too many deletes, an empty
// listing where the snapshot knows records, a snapshot made for another site, invalid files.
// Each says what it refused and how to go on; pull, push and the commands share them.
import { ExitCode, UserError } from "../errors.js";
import type { FileProblem } from "../tree/yaml-text.js";

/** The delete guard of DESIGN section 4: 10, or a quarter of the site if that is lower (at least 1). */
export function defaultMaxDelete(siteSize: number): number {
  return Math.max(1, Math.min(10, Math.floor(siteSize / 4)));
}

/** What a run over its delete limit would have deleted, and what to check before raising it. */
const OVER_LIMIT = {
  pull: {
    deletes: "local files",
    outcome: "nothing was changed",
    check: "Check the site: were that many records deleted? If so,",
  },
  push: {
    deletes: "records on the site",
    outcome: "nothing was sent",
    check: "Check that the files were deleted on purpose; if so,",
  },
} as const;

/** Refuse a pull or push that would delete more than `limit` records or files. */
export function guardDeleteLimit(run: "pull" | "push", deletes: number, limit: number): void {
  if (deletes <= limit) return;
  const words = OVER_LIMIT[run];
  throw new UserError(
    `the ${run} would delete ${deletes} ${words.deletes} (the limit is ${limit}); ${words.outcome}`,
    { hint: `${words.check} run again with --max-delete ${deletes}.`, exitCode: ExitCode.stopped },
  );
}

/**
 * Refuse an empty listing of `what` while the snapshot holds records (`held`, as said): an
 * empty listing is as likely a failure as a fact, and never taken as "everything was deleted".
 */
export function guardEmptyListing(
  what: "courses" | "chapters",
  listed: number,
  held: { count: number; said: string },
  outcome: string,
  hint: string,
): void {
  if (listed > 0 || held.count === 0) return;
  throw new UserError(`the site listed no ${what}, but the snapshot holds ${held.said}; ${outcome}`, {
    hint,
  });
}

/**
 * Refuse a pull's listing of no courses, or of no chapters, while the snapshot holds some: as
 * likely a failure as a fact (DESIGN section 4).
 */
export function guardPullListing(
  snapshot: { courses: object; chapters: object } | undefined,
  courses: number,
  chapters: number,
): void {
  const knownCourses = Object.keys(snapshot?.courses ?? {}).length;
  const knownChapters = Object.keys(snapshot?.chapters ?? {}).length;
  guardEmptyListing(
    "courses",
    courses,
    { count: knownCourses, said: `${knownCourses + knownChapters} records` },
    "nothing was changed",
    "An empty listing is not taken as 'everything was deleted'. Check the site and the account. If the site lost its courses, `coursesync restore` brings the tree back into it. If they were deleted on purpose, remove the courses folder and the snapshot by hand.",
  );
  // The same for chapters alone: courses listed but no chapter is as likely a failure as a fact.
  guardEmptyListing(
    "chapters",
    chapters,
    { count: knownChapters, said: `${knownChapters}` },
    "nothing was changed",
    "An empty listing is not taken as 'every chapter was deleted'. Check the site and the account. If the site lost its chapters, `coursesync restore` brings them back from the files. If they were deleted on purpose, remove the chapter files and their snapshot entries by hand.",
  );
}

/** Refuse a snapshot (`snapshot`, as named) made for another site URL than `url`. */
export function guardSnapshotSite(
  snapshot: string,
  madeFor: string,
  url: string,
  hint: string,
  after = "",
): void {
  if (madeFor === url) return;
  throw new UserError(`${snapshot} was made for ${madeFor}, not ${url}${after}`, {
    hint,
    exitCode: ExitCode.usage,
  });
}

/** What to do about invalid files, said after their list. */
export const FIX_INVALID_FILES = "Fix the files above and run the command again.";

/** "2 invalid files; <what happened>:" and each problem with its file, line and hint. */
export function invalidFilesMessage(problems: readonly FileProblem[], what: string): string {
  const lines = problems.map((p) => `  ${p.message}${p.hint ? `\n    ${p.hint}` : ""}`);
  const files = new Set(problems.map((p) => p.file)).size;
  return `${files} invalid file${files === 1 ? "" : "s"}; ${what}:\n${lines.join("\n")}`;
}

/** An error listing every invalid file, each with its line; nothing was written. */
export function invalidFilesError(problems: readonly FileProblem[], verb: string): UserError {
  return new UserError(invalidFilesMessage(problems, verb), { hint: FIX_INVALID_FILES });
}
