import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { flushed, ignoreClosedReaders } from "../../src/cli/exit.js";

/** A pipe whose reader takes each chunk only when the test says so. */
function slowPipe() {
  const taken: string[] = [];
  const waiting: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _encoding, callback) {
      waiting.push(() => {
        taken.push(chunk.toString());
        callback();
      });
    },
  });
  /** The reader takes what is waiting, one chunk after another, until nothing is left. */
  const readAll = async () => {
    while (waiting.length > 0) {
      waiting.shift()!();
      await new Promise(setImmediate);
    }
  };
  return { stream: stream as unknown as NodeJS.WriteStream, taken, readAll };
}

describe("flushed", () => {
  it("waits until the reader has taken every write made before it", async () => {
    const pipe = slowPipe();
    for (const text of ["one ", "two ", "three"]) pipe.stream.write(text);
    let done = false;
    const flushing = flushed(pipe.stream).then(() => (done = true));
    await new Promise(setImmediate);
    expect(done).toBe(false);
    await pipe.readAll();
    await flushing;
    expect(pipe.taken.join("")).toBe("one two three");
  });

  it("is at once done when nothing waits", async () => {
    const pipe = slowPipe();
    await flushed(pipe.stream);
    expect(pipe.taken).toEqual([]);
  });

  it("ends when the reader closes the pipe (EPIPE), without an error thrown", async () => {
    const pipe = slowPipe();
    ignoreClosedReaders([pipe.stream]);
    pipe.stream.write("a lot");
    const flushing = flushed(pipe.stream);
    const epipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    pipe.stream.destroy(epipe);
    await flushing;
    // Later writes go nowhere, quietly.
    pipe.stream.write("more");
    await new Promise(setImmediate);
    expect(pipe.taken).toEqual([]);
  });
});
