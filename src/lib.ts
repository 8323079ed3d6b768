/**
 * The library: `import { pull, push, status, restore, check } from "coursesync"`. Each function
 * runs its command with the same options, returns the document its --json prints, tells its
 * progress to `onProgress`, and throws a CoursesyncError. It never prints, prompts or exits.
 */
import type { CheckJson, PullJson, PushJson, StatusJson } from "./cli/render/json-types.js";
import type { CheckOptions, PullOptions, PushOptions, RestoreOptions, StatusOptions } from "./lib/options.js";
import { runCommand } from "./lib/run.js";

export type {
  ChangeJson,
  CheckJson,
  InvalidFileJson,
  PlanOpJson,
  ProgressEvent,
  PullJson,
  PushJson,
  StatusJson,
} from "./cli/render/json-types.js";
export { CoursesyncError } from "./lib/error.js";
export type {
  CheckOptions,
  PullOptions,
  PushOptions,
  RestoreOptions,
  SelectOptions,
  SiteOptions,
  StatusOptions,
  TreeOptions,
} from "./lib/options.js";

/** `coursesync pull`: write the site's changes into the tree. */
export function pull(options: PullOptions = {}): Promise<PullJson> {
  return runCommand("pull", options);
}

/** `coursesync push`: send the tree's edits to the site (applied only with `yes: true`). */
export function push(options: PushOptions = {}): Promise<PushJson> {
  return runCommand("push", options);
}

/** `coursesync restore`: make the site hold the tree (applied only with `yes: true`). */
export function restore(options: RestoreOptions = {}): Promise<PushJson> {
  return runCommand("restore", options);
}

/** `coursesync status`: what is pending in the tree since the last sync (offline). */
export function status(options: StatusOptions = {}): Promise<StatusJson> {
  return runCommand("status", options);
}

/** `coursesync check`: every problem of every file, as push would find them (offline). */
export function check(options: CheckOptions = {}): Promise<CheckJson> {
  return runCommand("check", options);
}
