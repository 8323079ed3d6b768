// The benchmark's side of bench/emulator-child.mjs: start the emulator in its own process and
// call its operations over IPC.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Start an emulator child with `options`; resolves with its URLs, `call(op, args)` and `close()`. */
export async function startRemoteEmulator(options) {
  const child = spawn(process.execPath, [path.join(here, "emulator-child.mjs"), JSON.stringify(options)], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const urls = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]));
    });
    child.once("exit", (code) => reject(new Error(`the emulator child exited ${code} before listening`)));
  });
  let next = 0;
  const waiting = new Map();
  child.on("message", ({ id, result, error }) => {
    const { resolve, reject } = waiting.get(id);
    waiting.delete(id);
    if (error) reject(new Error(error));
    else resolve(result);
  });
  const call = (op, args) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      child.send({ id, op, args });
    });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    ...urls,
    pid: child.pid,
    call,
    async close() {
      await call("close");
      await exited;
    },
  };
}
