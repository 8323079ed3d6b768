import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";

/** An environment for git that reads none of the machine's config: its own HOME and global config. */
export type GitEnv = Record<string, string>;

/**
 * A git environment rooted in `dir`: HOME and the global config live there (default branch
 * main), the system config is skipped, and no identity is set (as on a fresh CI runner).
 */
export async function isolatedGit(dir: string): Promise<GitEnv> {
  await writeFile(path.join(dir, "gitconfig"), "[init]\n\tdefaultBranch = main\n");
  return {
    PATH: process.env.PATH ?? "",
    HOME: path.join(dir, "home"),
    GIT_CONFIG_GLOBAL: path.join(dir, "gitconfig"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

/** The environment with a person's name and e-mail as author and committer. */
export function asPerson(env: GitEnv, name: string): GitEnv {
  const email = `${name.toLowerCase()}@example.com`;
  return {
    ...env,
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
  };
}

/** Run git and return its stdout; a failure rejects with git's words. */
export function git(env: GitEnv, cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env }, (error, stdout, stderr) =>
      error ? reject(new Error(`git ${args.join(" ")}: ${stderr}`)) : resolve(stdout),
    );
  });
}
