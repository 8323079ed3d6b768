import { execFile } from "node:child_process";
import { redactUrl } from "../api/login-url.js";
import { ExitCode, UserError, usageError } from "../errors.js";

/** What one git command printed and returned. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `git <args>` in a folder: the one seam every git call of `coursesync ci` goes through. */
export type GitRunner = (args: readonly string[], cwd: string) => Promise<GitResult>;

/**
 * Git as a child process with the given environment. Git never asks for a password here
 * (GIT_TERMINAL_PROMPT=0): a CI job has nobody to answer, and a question would hang it.
 */
export function processGit(env: Readonly<Record<string, string | undefined>>): GitRunner {
  return (args, cwd) =>
    new Promise((resolve, reject) => {
      execFile(
        "git",
        [...args],
        { cwd, env: { ...env, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : undefined) : 0;
          if (code === undefined) {
            reject(
              usageError(
                `cannot run git: ${redactUrl(error?.message ?? "")}`,
                "Install git and put it on PATH.",
              ),
            );
            return;
          }
          resolve({ code, stdout, stderr });
        },
      );
    });
}

/** Who commits when git has no identity configured (a fresh CI runner). */
export const BOT_IDENTITY = { name: "coursesync", email: "coursesync@users.noreply.github.com" } as const;

/** The outcome of `git push` of the branch: sent, or refused because the branch moved meanwhile. */
export type PushOutcome = "pushed" | "moved";

/** The git repository holding a tree, seen through a runner; every message is free of secrets. */
export class Repo {
  private constructor(
    private readonly git: GitRunner,
    /** The repository's top folder. */
    readonly top: string,
  ) {}

  /** The repository that holds `dir`, or a usage error when there is none. */
  static async at(git: GitRunner, dir: string): Promise<Repo> {
    const found = await git(["rev-parse", "--show-toplevel"], dir);
    const top = found.stdout.trim();
    if (found.code !== 0 || top === "") {
      throw usageError(
        `${dir} is not in a git repository`,
        "Run `git init` (and commit the tree) first: the CI recipes keep the tree in git.",
      );
    }
    return new Repo(git, top);
  }

  /** Run git in the repository; a non-zero exit is an error that quotes git (secrets redacted). */
  async run(args: readonly string[], what: string): Promise<string> {
    const result = await this.git(args, this.top);
    if (result.code !== 0) throw gitError(what, result);
    return result.stdout;
  }

  /** Run git and return whether it exited 0 (for questions git answers by its exit code). */
  async test(args: readonly string[]): Promise<boolean> {
    return (await this.git(args, this.top)).code === 0;
  }

  /** The paths `git status` reports under `rel` (tracked changes, and untracked files too unless told). */
  async changed(rel: string, untracked = true): Promise<string[]> {
    const out = await this.run(
      ["status", "--porcelain", `--untracked-files=${untracked ? "all" : "no"}`, "--", rel],
      "git status",
    );
    return out.split("\n").filter((line) => line !== "");
  }

  /** The current branch, or undefined on a detached HEAD. */
  async currentBranch(): Promise<string | undefined> {
    const out = await this.git(["symbolic-ref", "--quiet", "--short", "HEAD"], this.top);
    return out.code === 0 && out.stdout.trim() !== "" ? out.stdout.trim() : undefined;
  }

  /** Fetch the branch from the remote; returns the commit at its tip. */
  async fetchTip(remote: string, branch: string): Promise<string> {
    await this.run(["fetch", "--quiet", remote, `refs/heads/${branch}`], `git fetch ${remote} ${branch}`);
    return (await this.run(["rev-parse", "FETCH_HEAD"], "git rev-parse FETCH_HEAD")).trim();
  }

  /** Check out `commit` as the local `branch`, dropping anything this job made since (a clean tree). */
  async checkout(branch: string, commit: string): Promise<void> {
    await this.run(["checkout", "--quiet", "--force", "-B", branch, commit], `git checkout ${branch}`);
    await this.run(["reset", "--quiet", "--hard", commit], `git reset --hard ${commit.slice(0, 12)}`);
  }

  /** The subject line of a commit. */
  async subject(commit: string): Promise<string> {
    return (await this.run(["log", "-1", "--format=%s", commit], "git log")).trim();
  }

  /** Stage every change under `rel` (ignored files stay out) and commit it with `message`. */
  async commit(
    rel: string,
    message: string,
    env: Readonly<Record<string, string | undefined>>,
  ): Promise<string> {
    await this.run(["add", "--all", "--", rel], "git add");
    const identity = (await this.hasIdentity(env))
      ? []
      : ["-c", `user.name=${BOT_IDENTITY.name}`, "-c", `user.email=${BOT_IDENTITY.email}`];
    await this.run([...identity, "commit", "--quiet", "--no-verify", "-m", message], "git commit");
    return (await this.run(["rev-parse", "HEAD"], "git rev-parse HEAD")).trim();
  }

  /**
   * Push HEAD to the remote branch, never forcing. A refusal because the branch moved (another
   * merge landed since the fetch) is "moved"; any other failure is an error quoting git.
   */
  async push(remote: string, branch: string): Promise<PushOutcome> {
    const pushed = await this.git(["push", "--quiet", remote, `HEAD:refs/heads/${branch}`], this.top);
    if (pushed.code === 0) return "pushed";
    const tip = await this.fetchTip(remote, branch);
    if (!(await this.test(["merge-base", "--is-ancestor", tip, "HEAD"]))) return "moved";
    throw gitError(`git push ${remote} ${branch}`, pushed);
  }

  /** Whether commits get an author without our help: env names one, or git config has one. */
  private async hasIdentity(env: Readonly<Record<string, string | undefined>>): Promise<boolean> {
    if (env.GIT_AUTHOR_EMAIL && env.GIT_COMMITTER_EMAIL) return true;
    const email = await this.git(["config", "--get", "user.email"], this.top);
    return email.code === 0 && email.stdout.trim() !== "";
  }
}

/** A failed git command as a user error: what ran, and git's own words with secrets redacted. */
function gitError(what: string, result: GitResult): UserError {
  const said = redactUrl(`${result.stderr}${result.stdout}`.trim());
  return new UserError(`${what} failed (exit ${result.code})${said ? `:\n${said}` : ""}`, {
    exitCode: ExitCode.failed,
  });
}
