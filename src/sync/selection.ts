import ignore from "ignore";
import { usageError } from "../errors.js";
import { courseFilePath } from "../tree/layout.js";
import { runSteps, type Steps } from "../util/steps.js";
import type { LocalChange } from "./local/changes.js";
import type { LocalView } from "./local/view.js";
import type { Change } from "./model/report.js";
import { type PullInput, type PullPlan, planPullSteps } from "./pull/plan.js";

/** Is a tree file (relative to the root, with /) in the selection of --only and --ignore? */
export type Selection = (file: string) => boolean;

/** One glob of --only or --ignore, checked: relative to the tree's root, as gitignore writes them. */
function globOf(flag: string, glob: string): string {
  const trimmed = glob.trim().replace(/^\.\/+/, "");
  if (trimmed === "" || trimmed.startsWith("../") || /^([A-Za-z]:)?[\\/]{2}|^[A-Za-z]:/.test(trimmed)) {
    throw usageError(
      `${flag} ${JSON.stringify(glob)}: not a glob of tree paths`,
      `Give a gitignore-style pattern of paths relative to the tree's root, e.g. ${flag} 'courses/intro-*/**'.`,
    );
  }
  return trimmed;
}

/**
 * The files --only and --ignore select: those matching a --only glob (any file when there is
 * none) and no --ignore glob. Globs are gitignore's: `*` stays within a folder, `**` crosses
 * them, a pattern without a slash matches at any depth, one naming a folder takes what is in it.
 * Undefined when neither flag was given.
 */
export function fileSelection(only: readonly string[], skip: readonly string[]): Selection | undefined {
  if (only.length === 0 && skip.length === 0) return undefined;
  const wanted = only.length ? ignore().add(only.map((glob) => globOf("--only", glob))) : undefined;
  const unwanted = ignore().add(skip.map((glob) => globOf("--ignore", glob)));
  return (file) => (wanted === undefined || wanted.ignores(file)) && !unwanted.ignores(file);
}

/** The files a change touches: a course by its course.yaml, each where it is and where it was. */
function filesOf(change: { kind: "course" | "chapter"; path: string; from?: string | undefined }): string[] {
  const paths = change.from === undefined ? [change.path] : [change.path, change.from];
  return change.kind === "course" ? paths.map(courseFilePath) : paths;
}

/** Is a push change inside the selection: every file it touches selected (a delete's too)? */
export function changeSelected(change: LocalChange, select: Selection | undefined): boolean {
  return select === undefined || filesOf({ ...change, kind: change.plan.kind }).every(select);
}

/** The records a pull plan would touch outside the selection, as pull's held records. */
function outside(plan: PullPlan, local: LocalView, select: Selection) {
  const courses = new Set<number>();
  const chapters = new Set<number>();
  const touches = (change: Change): string[] => {
    const files = [...filesOf(change), ...(change.copy ? [change.copy] : [])];
    // A course folder that moves carries every file in it along.
    if (change.kind === "course" && change.from !== undefined) {
      for (const chapter of local.chapters.values()) {
        if (chapter.folder !== change.from) continue;
        files.push(chapter.file, `${change.path}${chapter.file.slice(change.from.length)}`);
      }
    }
    return files;
  };
  for (const change of plan.changes) {
    if (change.id === undefined || touches(change).every(select)) continue;
    (change.kind === "course" ? courses : chapters).add(change.id);
  }
  return { courses, chapters };
}

/**
 * Plan a pull that leaves the records outside the selection as they are: their files are not
 * written, moved or deleted, and their snapshot entries stay, as for records an invalid file
 * holds (pull's `held`). A record is outside when any file the pull would touch for it is;
 * holding one can move what another touches, so it plans again until nothing more is held.
 */
export function planPullWithin(select: Selection | undefined, input: PullInput): PullPlan {
  return runSteps(planPullWithinSteps(select, input));
}

/** planPullWithin in steps (see util/steps.ts). */
export function* planPullWithinSteps(select: Selection | undefined, input: PullInput): Steps<PullPlan> {
  if (select === undefined) return yield* planPullSteps(input);
  let held = { courses: new Set(input.held?.courses), chapters: new Set(input.held?.chapters) };
  for (;;) {
    const plan = yield* planPullSteps({ ...input, held });
    const more = outside(plan, input.local, select);
    const before = held.courses.size + held.chapters.size;
    held = {
      courses: new Set([...held.courses, ...more.courses]),
      chapters: new Set([...held.chapters, ...more.chapters]),
    };
    if (held.courses.size + held.chapters.size === before) return plan;
  }
}
