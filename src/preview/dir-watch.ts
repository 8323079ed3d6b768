import { type Dirent, type FSWatcher, lstatSync, readdirSync, watch } from "node:fs";
import path from "node:path";

// A watcher of a folder and the folders under it, one inotify watch per folder (fs.watch, not
// recursive): nothing is read at the start but the folders' names. chokidar, and Node 20's own
// recursive fs.watch on Linux, stat and watch every file, which on a tree of 50,000 files took
// longer than reading the tree.

/** Watches the folders under a root; tells each path that changed (a file or a folder). */
export class FolderWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
  #closed = false;

  /**
   * @param ignored whether a path under the root is left alone (its events are not told)
   * @param onPath told of an absolute path that was added, changed or removed
   */
  constructor(
    private readonly ignored: (file: string) => boolean,
    private readonly onPath: (file: string) => void,
  ) {}

  /** Watch `dir` and the folders under it; a folder that is not there is left out. */
  add(dir: string): void {
    if (this.#closed || this.#watchers.has(dir) || this.ignored(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (_type, name) => this.#event(dir, name));
    } catch {
      return; // gone meanwhile, or not a folder
    }
    // A folder removed under the watch ends it; its parent's watch tells of that.
    watcher.on("error", () => this.#drop(dir));
    this.#watchers.set(dir, watcher);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) this.add(path.join(dir, entry.name));
  }

  #event(dir: string, name: string | Buffer | null): void {
    if (this.#closed) return;
    // Without a name, the folder itself changed (or the event queue overflowed).
    const file = name === null ? dir : path.join(dir, name.toString());
    if (file !== dir && this.ignored(file)) return;
    if (isFolder(file)) this.add(file);
    else if (this.#watchers.has(file)) this.#drop(file);
    this.onPath(file);
  }

  /** Stop watching a folder that is gone, and those under it. */
  #drop(dir: string): void {
    for (const [watched, watcher] of this.#watchers) {
      if (watched === dir || watched.startsWith(`${dir}${path.sep}`)) {
        watcher.close();
        this.#watchers.delete(watched);
      }
    }
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}

/** A folder, not a link to one (the scan does not follow links either). */
function isFolder(file: string): boolean {
  try {
    return lstatSync(file).isDirectory();
  } catch {
    return false;
  }
}
