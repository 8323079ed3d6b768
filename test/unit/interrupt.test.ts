import { afterEach, describe, expect, it } from "vitest";
import { RequestGate } from "../../src/api/gate.js";
import { abortable } from "../../src/cli/prompts.js";
import { InterruptedError } from "../../src/errors.js";
import { runCli } from "../helpers/cli.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("a run asked to stop", () => {
  it("the gate lets attempts in flight finish and starts none of those waiting", async () => {
    const gate = new RequestGate({ concurrency: 2 });
    const release = deferred();
    const started: number[] = [];
    const tasks = [1, 2, 3, 4].map((n) =>
      gate.run(async () => {
        started.push(n);
        await release.promise;
        return n;
      }),
    );
    await new Promise((r) => setImmediate(r));
    const stop = new InterruptedError("SIGINT");
    gate.close(stop);
    release.resolve();
    const settled = await Promise.allSettled(tasks);
    expect(started).toEqual([1, 2]);
    expect(settled.map((s) => (s.status === "fulfilled" ? s.value : s.reason))).toEqual([1, 2, stop, stop]);
    // Asked for after the stop: refused at once.
    await expect(gate.run(async () => 5)).rejects.toBe(stop);
  });

  it("Ctrl-C at a prompt is 'aborted', exit 130, with no stack trace", async () => {
    const ctrlC = Object.assign(new Error("User force closed the prompt with SIGINT"), {
      name: "ExitPromptError",
    });
    const aborted = abortable(Promise.reject(ctrlC));
    await expect(aborted).rejects.toBeInstanceOf(InterruptedError);
    await expect(aborted).rejects.toMatchObject({ message: "aborted", exitCode: 130 });
    // Other prompt failures pass through as they are.
    const other = new Error("no terminal");
    await expect(abortable(Promise.reject(other))).rejects.toBe(other);

    // As the command line reports it: the login prompt interrupted.
    const dir = await testdir();
    const result = await runCli(["login", "--url", "http://127.0.0.1:9/api/v1"], {
      cwd: dir,
      env: { COURSESYNC_CONFIG_DIR: dir },
      tty: true,
      prompts: { input: () => aborted },
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe("coursesync: aborted\n");
  });

  it("SIGTERM exits 143", () => {
    expect(new InterruptedError("SIGTERM").exitCode).toBe(143);
  });
});
