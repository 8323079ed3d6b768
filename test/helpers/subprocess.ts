import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

/** The built command, as the package ships it (npm test builds before it tests). */
export const BIN = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "dist",
  "bin",
  "coursesync.js",
);

/** What a finished subprocess printed and returned. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI to completion with no terminal attached. */
export function runBin(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", CI: "true", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** All a stream gives until it ends, as text (decoded once: no character split across chunks). */
async function textOf(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Run the built CLI with a reader that starts late, as a CI log or `| jq` behind a slow step:
 * nothing is read from its stdout or stderr until it has exited, or until one of them has
 * filled this side's buffer (so the pipe behind it, 64 KiB, fills too and the command's writes
 * wait in it). Then both are read to the end. `late` says the reading began before the exit:
 * a command that waits for its output to be taken. One that exits while output waits loses it.
 * No timer: only the child's progress decides when reading starts.
 */
export async function runBinLateReader(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Finished & { late: boolean }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", CI: "true", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let exited = false;
  const exit = new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      exited = true;
      resolve([code, signal]);
    });
  });
  // 'readable' comes with each chunk while a stream holds no more than its high-water mark;
  // unread, it stops taking chunks from the pipe past that mark.
  const full = (stream: Readable) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (stream.readableLength < stream.readableHighWaterMark) return;
        stream.off("readable", check);
        resolve();
      };
      stream.on("readable", check);
    });
  await Promise.race([exit, full(child.stdout), full(child.stderr)]);
  const late = !exited;
  child.stdout.removeAllListeners("readable");
  child.stderr.removeAllListeners("readable");
  const [stdout, stderr, [code, signal]] = await Promise.all([
    textOf(child.stdout),
    textOf(child.stderr),
    exit,
  ]);
  return { code, signal, stdout, stderr, late };
}

/**
 * Run the built CLI with a reader that stops after the first chunk of stdout and closes the
 * pipe (`| head -c 100`).
 */
export async function runBinClosedEarly(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Finished> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", CI: "true", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve([code, signal]));
  });
  const stdout = await new Promise<string>((resolve) => {
    child.stdout.once("data", (chunk: Buffer) => {
      child.stdout.destroy();
      resolve(chunk.toString("utf8"));
    });
    child.stdout.once("end", () => resolve(""));
  });
  const [stderr, [code, signal]] = await Promise.all([textOf(child.stderr), closed]);
  return { code, signal, stdout, stderr };
}

/** Start the built CLI's emulator as a subprocess; resolves with its base URL (its first line). */
export async function startBinEmulator(
  args: string[] = [],
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, "emulator", "--port", "0", "--quiet", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "" },
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGINT");
      }),
  };
}
