import { statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { ignoreMatcher } from "../tree/ignore-rules.js";
import { COURSES_DIR } from "../tree/layout.js";
import { realSetTimer, type SetTimer } from "../util/timer.js";
import { FolderWatcher } from "./dir-watch.js";

// Live preview: the course folders are watched (see FolderWatcher) (and the snapshot, which a pull or push
// rewrites), and each change goes to every open page as a Server-Sent Event naming its tree path.

/** How long after a change its file is looked at again; changes meanwhile wait for that look. */
const SECOND_LOOK_MS = 80;

/** A file's size and time of change, or `gone`. */
function statKey(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return "gone";
  }
}

/** What an event says: the tree path that changed (`courses` when the snapshot did). */
export interface ChangeEvent {
  path: string;
}

/** The open event streams and the watcher feeding them. */
export class LiveHub {
  readonly #streams = new Set<ServerResponse>();
  readonly #watchers: FolderWatcher[] = [];

  /** Per file: the stat last told of, and what cancels its second look. */
  readonly #looks = new Map<string, { stat: string; cancel: () => void }>();

  /**
   * @param onChange told of each change before the pages are
   * @param setTimer schedules the second look at a changed file (default Node's timers)
   */
  constructor(
    private readonly onChange: (event: ChangeEvent) => void,
    private readonly setTimer: SetTimer = realSetTimer,
  ) {}

  /**
   * A change the watcher reported: told now, and looked at again a moment later. A save raises
   * several events (truncate, write, rename); those before the look are not told one by one:
   * the look tells the file again when its stat moved since it was told.
   */
  private seen(file: string, relPath: string): void {
    if (this.#looks.has(file)) return;
    this.look(file, relPath);
  }

  private look(file: string, relPath: string): void {
    const stat = statKey(file);
    this.send({ path: relPath });
    const cancel = this.setTimer(() => {
      this.#looks.delete(file);
      if (statKey(file) !== stat) this.look(file, relPath);
    }, SECOND_LOOK_MS);
    this.#looks.set(file, { stat, cancel });
  }

  /** Start watching `courses/` under root (and the snapshot folder); resolves once ready. */
  async watch(root: string, snapshotDir: string, ignore: readonly string[]): Promise<void> {
    const ignored = ignoreMatcher(ignore);
    const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");
    const courses = new FolderWatcher(
      (file) => {
        const relative = rel(file);
        return relative !== COURSES_DIR && ignored(relative);
      },
      (file) => this.seen(file, rel(file)),
    );
    this.#watchers.push(courses);
    courses.add(path.join(root, COURSES_DIR));
    // A pull or push rewrites the snapshot: the whole tree is read again.
    const snapshot = new FolderWatcher(
      () => false,
      () => this.send({ path: COURSES_DIR }),
    );
    this.#watchers.push(snapshot);
    snapshot.add(snapshotDir);
  }

  /** Take a request for `/events`: the stream stays open until the page or the server closes it. */
  open(response: ServerResponse): void {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-content-type-options": "nosniff",
    });
    // The first bytes tell the page (and a test) that the stream is open.
    response.write("retry: 1000\n: connected\n\n");
    this.#streams.add(response);
    response.on("close", () => this.#streams.delete(response));
  }

  /** Tell the model and every open page of a change. */
  send(event: ChangeEvent): void {
    this.onChange(event);
    const frame = `event: change\ndata: ${JSON.stringify(event)}\n\n`;
    for (const stream of this.#streams) stream.write(frame);
  }

  /** End every stream and stop watching. */
  async close(): Promise<void> {
    for (const look of this.#looks.values()) look.cancel();
    this.#looks.clear();
    for (const stream of this.#streams) stream.end();
    this.#streams.clear();
    for (const watcher of this.#watchers) watcher.close();
  }
}
