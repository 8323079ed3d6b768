import { existsSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { watch as chokidarWatch, type FSWatcher } from "chokidar";
import { ignoreMatcher } from "../tree/ignore-rules.js";
import { COURSES_DIR } from "../tree/layout.js";
import { realSetTimer, type SetTimer } from "../util/timer.js";

// Live preview: chokidar watches the course folders (and the snapshot, which a pull or push
// rewrites), and each change goes to every open page as a Server-Sent Event naming its tree path.

/** How long after a change its file is looked at again: past chokidar's 50 ms. */
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

const EVENTS = ["add", "change", "unlink", "addDir", "unlinkDir"] as const;

/** What an event says: the tree path that changed (`courses` when the snapshot did). */
export interface ChangeEvent {
  path: string;
}

/** The open event streams and the watcher feeding them. */
export class LiveHub {
  readonly #streams = new Set<ServerResponse>();
  readonly #watchers: FSWatcher[] = [];

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
   * A change chokidar reported: told now, and looked at again a moment later. chokidar drops a
   * second change of a file within 50 ms of the first (a save right after another, or a write
   * in two steps), so a file whose stat moved since it was told is told again.
   */
  private seen(file: string, relPath: string): void {
    this.#looks.get(file)?.cancel();
    const stat = statKey(file);
    this.send({ path: relPath });
    const cancel = this.setTimer(() => {
      this.#looks.delete(file);
      if (statKey(file) !== stat) this.seen(file, relPath);
    }, SECOND_LOOK_MS);
    this.#looks.set(file, { stat, cancel });
  }

  /** Start watching `courses/` under root (and the snapshot folder); resolves once ready. */
  async watch(root: string, snapshotDir: string, ignore: readonly string[]): Promise<void> {
    const ignored = ignoreMatcher(ignore);
    const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");
    const coursesDir = path.join(root, COURSES_DIR);
    const courses = chokidarWatch(coursesDir, {
      ignoreInitial: true,
      ignored: (file: string) => {
        const relative = rel(file);
        return relative !== COURSES_DIR && ignored(relative);
      },
    });
    this.#watchers.push(courses);
    for (const name of EVENTS) courses.on(name, (file: string) => this.seen(file, rel(file)));
    // Its own watcher, and only when it is there: a path that is not there makes chokidar say
    // it is ready before it watches the others.
    const snapshot = existsSync(snapshotDir)
      ? chokidarWatch(snapshotDir, { ignoreInitial: true })
      : undefined;
    if (snapshot) {
      this.#watchers.push(snapshot);
      for (const name of EVENTS) snapshot.on(name, () => this.send({ path: COURSES_DIR }));
    }
    await Promise.all(
      this.#watchers.map((w) => new Promise<void>((resolve) => w.once("ready", () => resolve()))),
    );
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
    await Promise.all(this.#watchers.map((w) => w.close()));
  }
}
