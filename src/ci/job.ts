import path from "node:path";
import { ExitCode, UserError, usageError } from "../errors.js";
import type { GitRunner, Repo } from "./git.js";

/** Runs one coursesync command in this process (e.g. `["push", "--yes"]`); resolves with its exit code. */
export type RunCommand = (args: readonly string[]) => Promise<number>;

/** What a job does with the tree once its command has run. */
export type Verdict =
  /** Commit what changed (if anything) and push it; then fail with `error` if one is given. */
  | { commit: true; error?: UserError }
  /** Commit nothing and fail with `error`. */
  | { commit: false; error: UserError };

/** One CI job: run a command on the tip of a branch, commit what it wrote, push, retry on a race. */
export interface JobOptions {
  git: GitRunner;
  /** The tree's root folder (holding coursesync.yaml). */
  treeRoot: string;
  remote: string;
  /** The branch to work on; default the checked-out branch. */
  branch?: string;
  /** How many times to start again from the new tip when the branch moved before our push. */
  attempts: number;
  /** The command that changes the tree, e.g. push --yes or pull --events. */
  command: readonly string[];
  runCommand: RunCommand;
  /** Decide from the command's exit code and whether the snapshot changed. */
  verdict(code: number, snapshotChanged: boolean): Verdict;
  /** The snapshot folder, relative to the tree root (it tells whether the command finished its writes). */
  snapshot: string;
  message: string;
  /** The environment: whether git has an author for the commit. */
  env: Readonly<Record<string, string | undefined>>;
  /** One line per step, for the job's log. */
  say(line: string): void;
}

/** What a job ended with. */
export interface JobResult {
  /** The commit pushed, or undefined when there was nothing to commit. */
  pushed?: string;
  attempts: number;
}

/** The tree's folder relative to the repository's top ("." at the top), with forward slashes. */
export function relativeTree(top: string, treeRoot: string): string {
  const rel = path.relative(top, treeRoot).split(path.sep).join("/");
  return rel === "" ? "." : rel;
}

/**
 * Run a CI job: refuse a dirty working tree; then, up to `attempts` times, check out the tip of
 * the branch, run the command, commit what it wrote under the tree (never ignored files), and
 * push. A push refused because another merge landed starts again from the new tip: the command
 * runs again there (push adopts what the earlier attempt created; a text merge of the snapshot,
 * which is generated data, is never trusted), so the newest branch is what the site gets.
 */
export async function runJob(options: JobOptions, tree: { rel: string; repo: Repo }): Promise<JobResult> {
  const { repo, rel } = tree;
  const dirty = [...new Set([...(await repo.changed(".", false)), ...(await repo.changed(rel))])];
  if (dirty.length > 0) {
    throw usageError(
      `the working tree has changes (${dirty
        .slice(0, 3)
        .map((line) => line.slice(3))
        .join(", ")}${dirty.length > 3 ? ", ..." : ""})`,
      "coursesync ci checks out the tip of the branch and commits there: run it in a clean clone, as CI does.",
    );
  }
  const branch = options.branch ?? (await repo.currentBranch());
  if (branch === undefined)
    throw usageError("HEAD is detached and no --branch was given", "Pass --branch <name>.");
  const snapshot = rel === "." ? options.snapshot : `${rel}/${options.snapshot}`;
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    const tip = await repo.fetchTip(options.remote, branch);
    await repo.checkout(branch, tip);
    options.say(`${options.remote}/${branch} is at ${tip.slice(0, 12)} (${await repo.subject(tip)})`);
    const code = await options.runCommand(options.command);
    const verdict = options.verdict(code, (await repo.changed(snapshot)).length > 0);
    if (!verdict.commit) throw verdict.error;
    if ((await repo.changed(rel)).length === 0) {
      options.say("nothing changed in the tree: nothing to commit");
      if (verdict.error) throw verdict.error;
      return { attempts: attempt };
    }
    const commit = await repo.commit(rel, options.message, options.env);
    if ((await repo.push(options.remote, branch)) === "pushed") {
      options.say(
        `committed and pushed ${commit.slice(0, 12)} "${options.message}" to ${options.remote}/${branch}`,
      );
      if (verdict.error) throw verdict.error;
      return { pushed: commit, attempts: attempt };
    }
    options.say(
      `${options.remote}/${branch} moved while this job ran (another merge): starting again from its new tip`,
    );
  }
  throw new UserError(`${options.remote}/${branch} kept moving: gave up after ${options.attempts} attempts`, {
    hint: "What was sent to the site is adopted by the next run; run the job again.",
    exitCode: ExitCode.failed,
  });
}
