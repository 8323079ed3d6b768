import ignore, { type Ignore } from "ignore";
import { CONFLICT_COPY_PATTERNS } from "./layout.js";

/**
 * Files the tool never reads as content: editors' swap, backup and lock files, OS litter,
 * sync tools' conflict copies, and coursesync's own conflict copies.
 */
const BUILT_IN = [
  ".*", // .DS_Store, .#lock files, .swp/.swx of vim (".name.swp"), hidden temp files
  "*~",
  "*.swp",
  "*.swx",
  "*.tmp",
  "4913",
  "Thumbs.db",
  "desktop.ini",
  ...CONFLICT_COPY_PATTERNS,
  "*.sync-conflict-*",
  "* (conflicted copy)*",
  "*.orig",
  "*.rej",
];

/** A matcher for paths relative to the tree root (with /), built-in rules plus the config's. */
export function ignoreMatcher(patterns: readonly string[]): (relPath: string) => boolean {
  const matcher: Ignore = ignore()
    .add(BUILT_IN)
    .add([...patterns]);
  return (relPath) => relPath !== "" && matcher.ignores(relPath);
}
