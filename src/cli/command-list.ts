// The commands, in the order `--help` lists them: how each is written in that list and what
// it does. Each command's module takes its description from here, and the top-level help is
// made from this list alone, without loading any command (see main.ts): `coursesync --help`
// and `--version` start as fast as node does.

/** One command as the top-level help lists it. */
export interface CommandSummary {
  /** How the list writes it: the name, `[options]` when it has any, and its arguments. */
  term: string;
  description: string;
}

export const COMMAND_LIST = {
  init: {
    term: "init [options] [dir]",
    description: "start a tree: write coursesync.yaml, .gitignore and .gitattributes",
  },
  login: {
    term: "login [options]",
    description: "log in to the site and store its token in your config folder (never in the tree)",
  },
  logout: {
    term: "logout",
    description: "forget the stored token of the site",
  },
  site: {
    term: "site",
    description:
      "the sites this tree syncs with, like git remotes: add, list, remove, default, set-url, move-ids",
  },
  pull: {
    term: "pull [options] [paths...]",
    description: "page through every course and chapter of the site and write the tree",
  },
  status: {
    term: "status [options] [paths...]",
    description: "show local changes against the last sync (offline, fast)",
  },
  diff: {
    term: "diff [options] [paths...]",
    description: "show local changes as unified diffs against the last sync (offline)",
  },
  push: {
    term: "push [options] [paths...]",
    description: "send local edits to the site: creates, updates of changed fields, deletes",
  },
  watch: {
    term: "watch [options]",
    description:
      "push as you save and bring the site's edits in (= push --watch); deletes only with --delete",
  },
  preview: {
    term: "preview [options] [paths...]",
    description:
      "serve the tree in a browser as the site will get it, with sync states and diffs, live as you save",
  },
  restore: {
    term: "restore [options] [paths...]",
    description:
      "make the site hold the tree: create what it lacks, send what differs; delete only with --delete",
  },
  check: {
    term: "check [options] [paths...]",
    description: "validate the tree's files as push would, offline: every problem of every file",
  },
  doctor: {
    term: "doctor [options]",
    description:
      "check the tree, the site URL, the credentials and the account; one line each with what to do",
  },
  emulator: {
    term: "emulator [options]",
    description:
      "serve the site's API from memory on 127.0.0.1 (for demos and tests); prints the base URL first",
  },
  ci: {
    term: "ci",
    description: "CI recipes: write the workflow files, and the publish and backup steps they run",
  },
  completion: {
    term: "completion [options] [shell]",
    description: "print a shell completion script: commands, flags, site names and course folders",
  },
} as const satisfies Record<string, CommandSummary>;
