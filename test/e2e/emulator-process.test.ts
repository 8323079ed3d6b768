import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { BIN, startBinEmulator } from "../helpers/subprocess.js";

describe("the emulator as a process", () => {
  it("stops on SIGTERM: exits 0 and the port is closed", async () => {
    const emulator = await startBinEmulator(["--empty"]);
    expect((await fetch(`${emulator.url}/courses`)).status).toBe(401);
    const exited = once(emulator.child, "exit");
    emulator.child.kill("SIGTERM");
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    await expect(fetch(`${emulator.url}/courses`)).rejects.toThrow();
  });

  it("stops once the process that started it is killed (kill -9), with no one left to stop it", async () => {
    // The wrapper starts the emulator with its own stdout, prints the emulator's pid, and waits.
    const wrapperCode = `
      const { spawn } = require("node:child_process");
      const child = spawn(process.execPath, [${JSON.stringify(BIN)}, "emulator", "--port", "0", "--quiet", "--empty"], {
        stdio: ["ignore", "inherit", "inherit"],
      });
      process.stdout.write("pid " + child.pid + "\\n");
      setInterval(() => {}, 1 << 30);
    `;
    const wrapper = spawn(process.execPath, ["-e", wrapperCode], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "" },
    });
    const lines: string[] = [];
    const reader = createInterface({ input: wrapper.stdout });
    for await (const line of reader) {
      lines.push(line);
      if (lines.length === 2) break;
    }
    const url = lines.find((line) => line.startsWith("http://"));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(lines.some((line) => /^pid \d+$/.test(line))).toBe(true);
    expect((await fetch(`${url}/courses`)).status).toBe(401);

    // The wrapper's stdout closes only when every process writing to it has ended: the
    // emulator holds it too, so "close" is the emulator gone, told by an event, not a timer.
    const closed = once(wrapper, "close");
    wrapper.kill("SIGKILL");
    await closed;
    await expect(fetch(`${url}/courses`)).rejects.toThrow();
  });
});
