import path from "node:path";
import type { GitRunner } from "../../ci/git.js";

// The versions of a file that git holds: a new file (no id yet) pushed from one clone whose id
// never came back (CI that could not commit it, a publish retried on a newer tip) was created
// from one of its committed versions. Reading them lets the next push find that record on the
// site even after the file was edited.

/** The committed texts of a tree file, newest first; none outside a git repository. */
export type FileHistory = (relPath: string) => Promise<string[]>;

/** How many committed versions of one file are looked at, at most. */
export const HISTORY_DEPTH = 20;

/**
 * The committed versions of a tree's files through git (`git log`, then `git show`). A tree
 * that is not in a repository, a file git does not track, a shallow clone that lacks the older
 * commits, or no git at all: fewer versions, or none; never an error.
 */
export function gitFileHistory(git: GitRunner, root: string): FileHistory {
  return async (relPath) => {
    try {
      const log = await git(["log", `-n${HISTORY_DEPTH}`, "--format=%H", "--", relPath], root);
      if (log.code !== 0) return [];
      const prefix = await git(["rev-parse", "--show-prefix"], root);
      const inRepo = path.posix.join(prefix.stdout.trim(), relPath);
      const texts: string[] = [];
      for (const commit of log.stdout.split("\n").filter(Boolean)) {
        const shown = await git(["show", `${commit}:${inRepo}`], root);
        if (shown.code === 0 && !texts.includes(shown.stdout)) texts.push(shown.stdout);
      }
      return texts;
    } catch {
      return [];
    }
  };
}
