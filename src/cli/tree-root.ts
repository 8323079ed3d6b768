import { existsSync } from "node:fs";
import path from "node:path";
import { CONFIG_FILE, type Config, findRoot, loadConfig } from "../config/config.js";
import { usageError } from "../errors.js";
import type { CliRun, GlobalOptions } from "./io.js";

/** The tree a command works on: its root folder and validated config. */
export interface TreeContext {
  root: string;
  config: Config;
}

/** The tree root for -C or the working folder, or undefined when there is no coursesync.yaml. */
function locateRoot(run: CliRun, globals: GlobalOptions): { start: string; root: string | undefined } {
  const start = path.resolve(run.cwd, globals.dir ?? ".");
  if (globals.dir === undefined) return { start, root: findRoot(start) };
  if (!existsSync(start)) throw usageError(`-C ${globals.dir}: no such folder`);
  return { start, root: existsSync(path.join(start, CONFIG_FILE)) ? start : undefined };
}

/** Find the tree from -C or the working folder, and read its coursesync.yaml. */
export async function openTree(run: CliRun, globals: GlobalOptions): Promise<TreeContext> {
  const { start, root } = locateRoot(run, globals);
  if (!root) {
    throw usageError(
      `no ${CONFIG_FILE} in ${globals.dir !== undefined ? start : `${start} or any folder above it`}`,
      "Run `coursesync init --url <api-base-url>` to start a tree, or pass -C <dir>.",
    );
  }
  return { root, config: await loadConfig(root) };
}

/** Read the config when there is one (for commands that also work with --url alone). */
export async function maybeOpenTree(run: CliRun, globals: GlobalOptions): Promise<TreeContext | undefined> {
  const { root } = locateRoot(run, globals);
  return root ? { root, config: await loadConfig(root) } : undefined;
}
