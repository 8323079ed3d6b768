import { isAscii } from "node:buffer";
import type { Stats } from "node:fs";
import { readFileSync } from "node:fs";
import { atomicWritePieces } from "./fs-ops.js";
import { nodeFs, type TreeFs } from "./tree-fs.js";

/** How close to "now" a file's mtime may be and still be trusted (git's racy-clean rule). */
export const RACY_MS = 2_000;

/** The first line of the cache file; any other first line (an older format) reads as empty. */
const HEADER = "coursesync stat cache 4";

/**
 * Before an entry's hash: the file was modified too close to when it was recorded to trust its
 * stat alone (git's "racily clean" entries). Its bytes are read to check the hash before it
 * counts as unchanged; once that is done long enough after its mtime, it is trusted.
 */
const RACY = "?";
const RACY_CODE = RACY.charCodeAt(0);

/** About how many characters the cache file is written in at a time. */
const PIECE = 1 << 20;

/**
 * Hashes of tree files keyed by path and stat (size, mtime, ctime, inode), like git's index:
 * a file whose stat is unchanged is not read again. Entries for files modified within two
 * seconds of being recorded are not trusted, so an edit in the same clock tick is never missed.
 *
 * It also remembers when a whole-tree status found nothing pending (`clean`), with the stamp
 * of what that verdict rested on (the snapshot and the settings status reads): while the stamp
 * holds and every file's stat matches its entry, the tree is still clean without a parse.
 * Any change to the entries forgets it.
 *
 * Lives in the uncommitted cache as tab-separated lines sorted by path (path, size, mtime,
 * ctime, inode, hash), which load several times faster than JSON; a missing or broken cache is
 * simply empty. The lines stay one string as read, looked up by binary search: a run that
 * reads a few course folders of a large tree builds no map of every path (tens of thousands
 * of entries, and their slices keeping the whole text alive). What a run changes is kept
 * beside them and merged in when the file is written.
 */
export class StatCache {
  /** The file as read: its entry lines, sorted by path, start at `start`. */
  private text = "";
  private start = 0;
  /** What this run changed, by path: the new entry (stat key and hash), or null for one gone. */
  private changes = new Map<string, string | null>();
  private cleanStamp: string | undefined;
  private dirtyFolders: readonly string[] = [];
  /** The clean mark as the file held it, whatever this run changed since. */
  private loadedMark: { stamp: string; dirty: readonly string[] } | undefined;
  private dirty = false;

  constructor(
    private readonly file: string,
    private readonly now: () => number = Date.now,
    private readonly fs: TreeFs = nodeFs,
  ) {}

  /** Read the cache file; a missing or unreadable one leaves the cache empty. */
  async load(): Promise<this> {
    return this.loadSync();
  }

  /** As load, synchronously: one small read, for the fast path of status. */
  loadSync(): this {
    this.text = "";
    this.start = 0;
    this.changes = new Map();
    this.cleanStamp = undefined;
    this.dirtyFolders = [];
    this.loadedMark = undefined;
    let text: string;
    try {
      // Paths are nearly always ASCII: then the bytes are the text, without decoding UTF-8
      // (about twice as fast for the 9 MB cache of a 55,000-file tree).
      const bytes = readFileSync(this.file);
      text = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
    } catch {
      return this;
    }
    // Another format, or a file cut short, reads as empty.
    if (!text.startsWith(`${HEADER}\n`) || !text.endsWith("\n")) return this;
    const second = text.indexOf("\n", HEADER.length + 1);
    const third = text.indexOf("\n", second + 1);
    const clean = text.slice(HEADER.length + 1, second);
    const dirty = text.slice(second + 1, third).split("\t");
    if (third === -1 || dirty[0] !== "dirty") return this;
    if (clean.startsWith("clean\t")) {
      this.cleanStamp = clean.slice("clean\t".length);
      this.dirtyFolders = dirty.slice(1);
      this.loadedMark = { stamp: this.cleanStamp, dirty: this.dirtyFolders };
    }
    this.text = text;
    this.start = third + 1;
    return this;
  }

  /** A path's entry: as this run changed it, else the file's line (by binary search). */
  private entryOf(relPath: string): string | undefined {
    const changed = this.changes.get(relPath);
    if (changed !== undefined) return changed ?? undefined;
    const { text } = this;
    // Both ends are line starts (the line before `start` is the header's).
    let lo = this.start;
    let hi = text.length;
    while (lo < hi) {
      const mid = lo + ((hi - lo) >> 1);
      const line = text.lastIndexOf("\n", mid - 1) + 1;
      const end = text.indexOf("\n", line);
      const tab = text.indexOf("\t", line);
      const key = text.slice(line, tab < 0 || tab > end ? end : tab);
      if (key === relPath) return text.slice(tab + 1, end);
      if (key < relPath) lo = end + 1;
      else hi = line;
    }
    return undefined;
  }

  /** Every entry's path, the file's and this run's, in no particular order. */
  private *paths(): Generator<string> {
    const { text } = this;
    for (let at = this.start; at < text.length; ) {
      const end = text.indexOf("\n", at);
      const tab = text.indexOf("\t", at);
      if (tab > at && tab < end) {
        const relPath = text.slice(at, tab);
        if (!this.changes.has(relPath)) yield relPath;
      }
      at = end + 1;
    }
    for (const [relPath, entry] of this.changes) if (entry !== null) yield relPath;
  }

  /**
   * The entry lines as the file holds them, the file's with this run's changes merged in, in
   * pieces of about a megabyte: a cache of tens of thousands of entries is written without
   * being one string (and one buffer) first.
   */
  private *linePieces(): Generator<string> {
    const { text } = this;
    if (this.changes.size === 0) {
      for (let at = this.start; at < text.length; at += PIECE) yield text.slice(at, at + PIECE);
      return;
    }
    let piece: string[] = [];
    let size = 0;
    const push = (...parts: string[]) => {
      for (const part of parts) {
        piece.push(part);
        size += part.length;
      }
    };
    const added = [...this.changes]
      .filter((change): change is [string, string] => change[1] !== null)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    let next = 0;
    for (let at = this.start; at < text.length; ) {
      const end = text.indexOf("\n", at);
      const tab = text.indexOf("\t", at);
      if (tab > at && tab < end) {
        const relPath = text.slice(at, tab);
        for (; next < added.length && added[next]![0] < relPath; next++)
          push(added[next]![0], "\t", added[next]![1], "\n");
        if (!this.changes.has(relPath)) push(text.slice(at, end + 1));
      }
      at = end + 1;
      if (size >= PIECE) {
        yield piece.join("");
        piece = [];
        size = 0;
      }
    }
    for (; next < added.length; next++) push(added[next]![0], "\t", added[next]![1], "\n");
    yield piece.join("");
  }

  /** The entry lines as the file holds them, as one string. */
  private sortedLines(): string {
    return [...this.linePieces()].join("");
  }

  /**
   * The entries in path order, as a cursor: for comparing a walk of the tree (in the same
   * order) with the cache without building a map of every path. Valid until the cache changes.
   */
  lines(): StatLines {
    return this.changes.size === 0
      ? new StatLines(this.text, this.start)
      : new StatLines(this.sortedLines(), 0);
  }

  /** The cached hash of a file whose stat (size, mtime, ctime, inode) is unchanged, else undefined. */
  get(relPath: string, stat: Pick<Stats, "size" | "mtimeMs" | "ctimeMs" | "ino">): string | undefined {
    const entry = this.entryOf(relPath);
    if (entry === undefined) return undefined;
    const key = `${stat.size}\t${stat.mtimeMs}\t${stat.ctimeMs}\t${stat.ino}\t`;
    // A racy entry is no proof: the file is read again (and recorded anew).
    return entry.startsWith(key) && entry[key.length] !== RACY ? entry.slice(key.length) : undefined;
  }

  /**
   * Remember a file's hash. One whose mtime is too recent to trust its stat alone is kept as
   * racy: a walk reads it to check (see StatLines.take), a scan reads it again.
   */
  set(relPath: string, stat: Pick<Stats, "size" | "mtimeMs" | "ctimeMs" | "ino">, hash: string): void {
    // A name holding a tab or line break has no line in the file: such a file is read each time.
    if (/[\t\n]/.test(relPath)) return;
    const racy = this.now() - stat.mtimeMs < RACY_MS;
    // Joined, not concatenated: `+` and template literals leave a tree of rope pieces that
    // tens of thousands of entries keep alive (13 MB of them after a 50,000-chapter pull).
    const entry = [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, racy ? `${RACY}${hash}` : hash].join(
      "\t",
    );
    if (this.entryOf(relPath) !== entry) {
      this.changes.set(relPath, entry);
      this.changed();
    }
  }

  /**
   * A racy entry whose file a walk read and found with the hash it names (and the stat it
   * names): trusted from now on if its mtime is old enough by now. The tree is as the entries
   * said, so a clean mark stays.
   */
  verified(relPath: string, stat: Pick<Stats, "size" | "mtimeMs" | "ctimeMs" | "ino">, hash: string): void {
    if (this.now() - stat.mtimeMs < RACY_MS || /[\t\n]/.test(relPath)) return;
    this.changes.set(relPath, [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, hash].join("\t"));
    this.dirty = true;
  }

  /** Forget paths that were not seen in the last scan (of the paths `within` says it read). */
  keepOnly(paths: ReadonlySet<string>, within?: (relPath: string) => boolean): void {
    const gone = [...this.paths()].filter((relPath) => !paths.has(relPath) && (!within || within(relPath)));
    for (const relPath of gone) this.changes.set(relPath, null);
    if (gone.length > 0) this.changed();
  }

  /** The stamp the tree was last found clean at (but for `dirty`), if no entry changed since. */
  get clean(): string | undefined {
    return this.cleanStamp;
  }

  /**
   * The clean mark as the cache file held it when loaded, even after this run changed entries
   * (which forgets `clean`): for a run that read part of the tree to carry it over (see
   * carriedFolders).
   */
  get markAsLoaded(): { stamp: string; dirty: readonly string[] } | undefined {
    return this.loadedMark;
  }

  /** The paths whose entries this run changed or removed. */
  changedPaths(): IterableIterator<string> {
    return this.changes.keys();
  }

  /** With `clean`: the course folders that had something pending then. */
  get dirtyAtClean(): readonly string[] {
    return this.dirtyFolders;
  }

  /**
   * Record that the tree, as the entries describe it, has nothing pending against this stamp
   * but in the `dirty` folders (`courses/<name>`).
   */
  markClean(stamp: string, dirty: readonly string[] = []): void {
    if (stamp.includes("\n")) throw new Error("a stamp is one line");
    const folders = [...new Set(dirty)].sort();
    if (folders.some((folder) => /[\t\n]/.test(folder))) {
      this.forgetClean();
      return;
    }
    // With no file cached (all too recent to trust) the mark could never be used: no write for it.
    if (this.paths().next().done) return;
    if (this.cleanStamp === stamp && folders.join("\t") === this.dirtyFolders.join("\t")) return;
    this.cleanStamp = stamp;
    this.dirtyFolders = folders;
    this.dirty = true;
  }

  /** Record that the tree has something pending (or that its state is not known). */
  forgetClean(): void {
    if (this.cleanStamp === undefined) return;
    this.cleanStamp = undefined;
    this.dirtyFolders = [];
    this.dirty = true;
  }

  private changed(): void {
    this.dirty = true;
    this.cleanStamp = undefined;
    this.dirtyFolders = [];
  }

  /** Write the cache if anything changed. */
  async save(): Promise<void> {
    if (!this.dirty) return;
    const clean = this.cleanStamp === undefined ? "-" : `clean\t${this.cleanStamp}`;
    const dirty = ["dirty", ...this.dirtyFolders].join("\t");
    const header = `${HEADER}\n${clean}\n${dirty}\n`;
    const pieces = this.linePieces.bind(this);
    await atomicWritePieces(
      this.file,
      function* () {
        yield header;
        yield* pieces();
      },
      { fs: this.fs },
    );
    this.dirty = false;
  }
}

/**
 * Where the next field starts if the one at `at` (up to a tab before `end`) holds this number,
 * else -1. Fields are String(number), read back exactly by Number; they start with a digit.
 */
function fieldIs(text: string, at: number, end: number, value: number): number {
  const tab = text.indexOf("\t", at);
  const first = text.charCodeAt(at);
  if (tab <= at || tab > end || first < 48 || first > 57) return -1;
  return Number(text.slice(at, tab)) === value ? tab + 1 : -1;
}

/**
 * A cursor over the cache's lines, sorted by path. A walk that visits course folders sorted by
 * `name + "/"` and each folder's names sorted meets the cached paths in this same order.
 */
export class StatLines {
  private at: number;

  constructor(
    private readonly text: string,
    private readonly first: number,
  ) {
    this.at = first;
  }

  /** Move to the first line whose path starts with this prefix (or past the end when none does). */
  seek(prefix: string): void {
    if (this.text.startsWith(prefix, this.first)) this.at = this.first;
    else {
      const found = this.text.indexOf(`\n${prefix}`, this.first);
      this.at = found === -1 ? this.text.length : found + 1;
    }
  }

  /** Whether the line under the cursor is this path's. */
  isAt(relPath: string): boolean {
    return this.text.startsWith(relPath, this.at) && this.text.charCodeAt(this.at + relPath.length) === 9;
  }

  /** Whether the line under the cursor is of a path starting with this prefix. */
  under(prefix: string): boolean {
    return this.text.startsWith(prefix, this.at);
  }

  /** Whether the path under the cursor sorts before this one: a cached file the walk did not meet. */
  behind(relPath: string): boolean {
    if (this.done) return false;
    const tab = this.text.indexOf("\t", this.at);
    return this.text.slice(this.at, tab) < relPath;
  }

  /**
   * Whether the line under the cursor (this path's, see isAt) has this stat, compared number
   * by number (no key string per file): false, true, or for a racy entry the hash the file's
   * bytes must have to count as unchanged. Moves to the next line.
   */
  take(relPath: string, size: number, mtimeMs: number, ctimeMs: number, ino: number): boolean | string {
    const end = this.text.indexOf("\n", this.at);
    let at = this.at + relPath.length + 1;
    this.at = end + 1;
    at = fieldIs(this.text, at, end, size);
    if (at >= 0) at = fieldIs(this.text, at, end, mtimeMs);
    if (at >= 0) at = fieldIs(this.text, at, end, ctimeMs);
    if (at >= 0) at = fieldIs(this.text, at, end, ino);
    if (at < 0) return false;
    return this.text.charCodeAt(at) === RACY_CODE ? this.text.slice(at + 1, end) : true;
  }

  /** The `courses/<name>` folder of the path under the cursor. */
  folderAt(): string {
    const first = this.text.indexOf("/", this.at);
    const second = this.text.indexOf("/", first + 1);
    const tab = this.text.indexOf("\t", this.at);
    return this.text.slice(this.at, second !== -1 && second < tab ? second : tab);
  }

  /** Move past every line of a path starting with this prefix. */
  skipUnder(prefix: string): void {
    while (!this.done && this.under(prefix)) this.at = this.text.indexOf("\n", this.at) + 1;
  }

  /** Whether every line was taken. */
  get done(): boolean {
    return this.at >= this.text.length;
  }
}
