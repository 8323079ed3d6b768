import { lstatSync } from "node:fs";
import path from "node:path";
import type { StatCache } from "../../tree/stat-cache.js";
import type { Placed, WrittenAs } from "./stage-writer.js";

/**
 * The files a pull put in the tree, each with its stat taken as it landed, for the stat cache
 * at the end: as a checkout fills git's index, so the next status or pull does not read them
 * again. Any later edit changes a file's stat (its ctime at least), so the entry stops matching.
 *
 * Only on a file system that keeps mtimes finer than a millisecond: where they are coarse (FAT,
 * HFS+), an edit of the same size in the same tick would leave the stat as it was, so such a
 * file is read again next time, as it would be without this. The cache's own rule applies on
 * top: a file modified within two seconds of being recorded is trusted only once its bytes
 * were checked against its hash.
 */
export class WrittenFiles {
  readonly #root: string;
  /**
   * Paths and hashes, and their stats as numbers (size, mtimeMs, ctimeMs, ino each): tens of
   * thousands of Stats objects would weigh more than the rest of a pull's writing.
   */
  readonly #paths: string[] = [];
  readonly #hashes: string[] = [];
  #stats = new Float64Array(4 * 1024);

  constructor(root: string) {
    this.#root = root;
  }

  /**
   * The file at this tree path was just written whole, with bytes of this SHA-256. `as` says
   * where it came from: null, written here; a staged file moved here, as the staging thread
   * left it (it must be that file still); undefined, a staged file the thread said nothing
   * of, which is not recorded. `seen`: the file as the thread that moved it here saw it just
   * after (null: it could not look, and the file is not recorded); else it is looked at here.
   */
  landed(relPath: string, hash: string, as?: WrittenAs | null, seen?: Placed): void {
    if (as === undefined || seen === null || seen === false) return;
    let stat: { size: number; mtimeMs: number; ctimeMs: number; ino: number } | undefined;
    if (seen) stat = { size: seen[0], mtimeMs: seen[1], ctimeMs: seen[2], ino: seen[3] };
    else {
      const found = lstatSync(path.join(this.#root, ...relPath.split("/")), { throwIfNoEntry: false });
      if (found?.isFile()) stat = found;
    }
    if (!stat || Number.isInteger(stat.mtimeMs)) return;
    if (as !== null && (stat.ino !== as[0] || stat.size !== as[1] || stat.mtimeMs !== as[2])) return;
    const at = this.#paths.length * 4;
    if (at + 4 > this.#stats.length) {
      const grown = new Float64Array(this.#stats.length * 2);
      grown.set(this.#stats);
      this.#stats = grown;
    }
    this.#stats.set([stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino], at);
    this.#paths.push(relPath);
    this.#hashes.push(hash);
  }

  /** Put them in the stat cache (whose save the caller makes). */
  record(cache: StatCache): void {
    const stats = this.#stats;
    for (const [i, relPath] of this.#paths.entries()) {
      const at = i * 4;
      const stat = {
        size: stats[at]!,
        mtimeMs: stats[at + 1]!,
        ctimeMs: stats[at + 2]!,
        ino: stats[at + 3]!,
      };
      cache.set(relPath, stat, this.#hashes[i]!);
    }
    this.#paths.length = 0;
    this.#hashes.length = 0;
  }
}
