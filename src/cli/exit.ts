/**
 * How the process ends: only once stdout and stderr have handed all they hold to the pipe or
 * terminal. On a pipe, node writes asynchronously: what the reader has not taken yet (past the
 * pipe's 64 KiB) waits in the process, and `process.exit` would drop it.
 */

/** A stream of the process's own output, as node gives it. */
type Out = Pick<NodeJS.WriteStream, "write" | "once" | "off" | "destroyed" | "writableLength">;

/**
 * Resolves once everything written to `stream` so far has been taken (an empty write is called
 * back after those before it), or the stream is gone (the reader closed it).
 */
export function flushed(stream: Out): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableLength === 0) return resolve();
    const done = () => {
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    };
    stream.once("close", done);
    stream.once("error", done);
    stream.write("", done);
  });
}

/**
 * A reader that stops reading early (`coursesync status --json | head -1`) closes the pipe:
 * the next write fails with EPIPE. That is not the run's failure: what is left to print is
 * dropped, and the command finishes and exits with its own code, without a stack trace.
 */
export function ignoreClosedReaders(streams: readonly NodeJS.WriteStream[]): void {
  for (const stream of streams) stream.on("error", () => {});
}

/** Exit with `code` once stdout and stderr are flushed (see `flushed`). */
export async function exitFlushed(code: number): Promise<never> {
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}
