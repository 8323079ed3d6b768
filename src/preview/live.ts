import type { ServerResponse } from "node:http";
import path from "node:path";
import { watch as chokidarWatch, type FSWatcher } from "chokidar";
import { ignoreMatcher } from "../tree/ignore-rules.js";
import { COURSES_DIR } from "../tree/layout.js";

// Live preview: chokidar watches the course folders (and the snapshot, which a pull or push
// rewrites), and each change goes to every open page as a Server-Sent Event naming its tree path.

/** What an event says: the tree path that changed (`courses` when the snapshot did). */
export interface ChangeEvent {
  path: string;
}

/** The open event streams and the watcher feeding them. */
export class LiveHub {
  readonly #streams = new Set<ServerResponse>();
  #watcher: FSWatcher | undefined;

  constructor(private readonly onChange: (event: ChangeEvent) => void) {}

  /** Start watching `courses/` under root (and the snapshot folder); resolves once ready. */
  async watch(root: string, snapshotDir: string, ignore: readonly string[]): Promise<void> {
    const ignored = ignoreMatcher(ignore);
    const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");
    const coursesDir = path.join(root, COURSES_DIR);
    const watcher = chokidarWatch([coursesDir, snapshotDir], {
      ignoreInitial: true,
      ignored: (file: string) => {
        if (!file.startsWith(coursesDir)) return false;
        const relative = rel(file);
        return relative !== COURSES_DIR && ignored(relative);
      },
    });
    this.#watcher = watcher;
    const changed = (file: string) =>
      this.send({ path: file.startsWith(coursesDir) ? rel(file) : COURSES_DIR });
    for (const name of ["add", "change", "unlink", "addDir", "unlinkDir"] as const) watcher.on(name, changed);
    await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
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
    for (const stream of this.#streams) stream.end();
    this.#streams.clear();
    await this.#watcher?.close();
  }
}
