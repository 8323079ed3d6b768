import type { Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import { atomicWrite } from "./fs-ops.js";
import { nodeFs, type TreeFs } from "./tree-fs.js";

interface Entry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
}

/** How close to "now" a file's mtime may be and still be trusted (git's racy-clean rule). */
const RACY_MS = 2_000;

/**
 * Hashes of tree files keyed by path and stat (size, mtime, ctime, inode), like git's index:
 * a file whose stat is unchanged is not read again. Entries for files modified within two
 * seconds of being recorded are not trusted, so an edit in the same clock tick is never missed.
 * Lives in the uncommitted cache; a missing or broken cache is simply empty.
 */
export class StatCache {
  private entries = new Map<string, Entry>();
  private dirty = false;

  constructor(
    private readonly file: string,
    private readonly now: () => number = Date.now,
    private readonly fs: TreeFs = nodeFs,
  ) {}

  /** Read the cache file; a missing or unreadable one leaves the cache empty. */
  async load(): Promise<this> {
    try {
      const data = JSON.parse(await readFile(this.file, "utf8")) as {
        version?: number;
        entries?: Record<string, Entry>;
      };
      if (data.version === 1 && data.entries) this.entries = new Map(Object.entries(data.entries));
    } catch {
      this.entries = new Map();
    }
    return this;
  }

  /** The cached hash of a file whose stat is unchanged, else undefined. */
  get(relPath: string, stat: Stats): string | undefined {
    const entry = this.entries.get(relPath);
    if (
      entry &&
      entry.size === stat.size &&
      entry.mtimeMs === stat.mtimeMs &&
      entry.ctimeMs === stat.ctimeMs &&
      entry.ino === stat.ino
    ) {
      return entry.hash;
    }
    return undefined;
  }

  /** Remember a file's hash, unless its mtime is too recent to trust. */
  set(relPath: string, stat: Stats, hash: string): void {
    if (this.now() - stat.mtimeMs < RACY_MS) {
      if (this.entries.delete(relPath)) this.dirty = true;
      return;
    }
    const entry = { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, hash };
    const old = this.entries.get(relPath);
    if (
      !old ||
      old.hash !== hash ||
      old.mtimeMs !== entry.mtimeMs ||
      old.ctimeMs !== entry.ctimeMs ||
      old.ino !== entry.ino ||
      old.size !== entry.size
    ) {
      this.entries.set(relPath, entry);
      this.dirty = true;
    }
  }

  /** Forget paths that were not seen in the last scan. */
  keepOnly(paths: ReadonlySet<string>): void {
    for (const key of this.entries.keys()) {
      if (!paths.has(key)) {
        this.entries.delete(key);
        this.dirty = true;
      }
    }
  }

  /** Write the cache if anything changed. */
  async save(): Promise<void> {
    if (!this.dirty) return;
    const entries = Object.fromEntries([...this.entries].sort(([a], [b]) => (a < b ? -1 : 1)));
    await atomicWrite(this.file, JSON.stringify({ version: 1, entries }), { fs: this.fs });
    this.dirty = false;
  }
}
