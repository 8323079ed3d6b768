import type { BodyCodec } from "../../tree/bodies.js";
import type { Limits } from "../../tree/schema.js";
import type { TreeFs } from "../../tree/tree-fs.js";

/** The tree and the site a pull, push or watch works between: what each of them is told first. */
export interface SyncTarget {
  /** The tree's root folder. */
  root: string;
  /** The site's name in coursesync.yaml: names its snapshot, journal, lock and cache. */
  site: string;
  /** The site's API root, kept in the snapshot. */
  siteUrl: string;
  /**
   * The tree's default site, whose ids the files carry; another site is read and written
   * through its id map. @default site
   */
  idsSite?: string | undefined;
  /** coursesync.yaml's `ignore:` patterns, on top of editor junk. */
  ignore: readonly string[];
  /** How chapter bodies are written and read (coursesync.yaml's `body`). */
  bodies: BodyCodec;
  /** The file system the tree is written through (default: Node's). */
  fs?: TreeFs | undefined;
  /** Sizes refused before anything is sent (push and watch). @default DEFAULT_LIMITS */
  limits?: Limits;
}
