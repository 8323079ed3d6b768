import { CREDENTIALS_HINT } from "../../api/errors.js";
import { type Change, conflictReason } from "../../sync/model/report.js";
import type { Pending, WatchEvent } from "../../sync/watch/watch.js";
import { counted } from "../../util/words.js";
import type { Output } from "../output.js";

// What watch says: one line for people per event (with --json, the event itself is the line).

/** The local time of day, HH:MM:SS, that starts each line. */
function clock(at: number): string {
  return new Date(at).toTimeString().slice(0, 8);
}

/** What resolves a conflict a save of watch's met: a record the site deleted is not pulled back. */
function conflictNext(change: Change): string {
  if (change.reason === conflictReason({ fields: [], reason: "deleted-remotely-edited-locally" }))
    return change.resolve ?? "run `coursesync push --force` to create it again from the file";
  return "run `coursesync pull` to bring the site's version in, then save again";
}

/** One line for people per watch event, stamped with the time `at` (ms since the epoch). */
export function watchLine(event: WatchEvent, out: Output, deletes: boolean, at: number): string {
  const t = out.paint("gray", clock(at));
  switch (event.type) {
    case "ready":
      return `${t}  watching ${event.root} (Ctrl-C to stop); ${deletes ? "deletes are sent" : "deletes wait for a plain `coursesync push`"}`;
    case "change": {
      const c = event.change;
      const what = c.fields?.length ? ` [${c.fields.join(", ")}]` : "";
      const why = c.reason ? ` (${c.reason})` : "";
      const next = c.outcome === "conflict" ? `; ${conflictNext(c)}` : "";
      return `${t}  ${c.outcome.padEnd(9)} ${c.path}${what}${why}  ${event.ms} ms${next}`;
    }
    case "pulled":
      return `${t}  ${pulledText(event.change, event.merged, out)}`;
    case "bouncing":
      return `${t}  ${out.paint("yellow", "paused")}: ${event.path}: the site changed it right after each of the last ${event.times} pushes (something on the site undoes them?); it is not sent again while watch runs. Check the record on the site, then \`coursesync push\` sends your version`;
    case "invalid":
      return `${t}  ${out.paint("red", "invalid")}   ${event.path}${event.line === undefined ? "" : `:${event.line}`}: ${event.message} (skipped until it is fixed)`;
    case "held-delete":
      return `${t}  deleted   ${event.path} (not sent: run \`coursesync push\` to delete it on the site, or watch with --delete)`;
    case "paused":
      return `${t}  ${out.paint("yellow", "paused")}: ${counted(event.deleted, "file")} disappeared at once (a branch switch?). Nothing is sent until they are back, or until a plain \`coursesync push\` settles the deletes.`;
    case "resumed":
      return `${t}  resumed: the tree is whole again`;
    case "retrying":
      return `${t}  ${out.paint("yellow", "waiting")}: ${event.message}; trying again in ${Math.round(event.inMs / 1000)} s`;
    case "signed-out":
      return `${t}  ${out.paint("red", "signed out")}: ${event.message}. ${event.hint ?? CREDENTIALS_HINT} Watching goes on: saves wait, and are sent once a token works (each try reads the stored token again, so \`coursesync login\` in another terminal is enough).`;
    case "signed-in":
      return `${t}  signed in again: the site took the token, and what waited is sent`;
    case "stopped":
      return `${t}  stopped; the snapshot is saved${pendingText(event.pending)}`;
  }
}

/** A change the site made, as written into the tree: what came in and what the author does next. */
function pulledText(c: Change, merged: boolean, out: Output): string {
  const what = c.fields?.length ? ` [${c.fields.join(", ")}]` : "";
  const from = c.from ? ` (was ${c.from})` : "";
  const head = `${out.paint("cyan", "↓")} ${c.outcome.padEnd(9)} ${c.path}${what}${from}`;
  if (c.outcome !== "conflict") {
    const done = c.outcome === "deleted" ? "deleted on the site" : "from the site";
    return `${head}: ${done}${merged ? ", merged with your edit (sent next)" : ""}`;
  }
  const why = c.reason ? `: ${c.reason}` : "";
  if (c.resolution === "markers")
    return `${head}${why}; conflict markers in the file: it is not sent until you resolve them and save`;
  if (c.copy) return `${head}${why}; the site's version is in ${c.copy}: merge it into the file and save`;
  return `${head}${why}; your file is kept`;
}

/** What a stopped watch left unsent, and what settles it. */
function pendingText({ edits, invalid, signedOut, deletes, conflicts }: Pending): string {
  const parts: string[] = [];
  if (edits.length > 0) {
    const them = edits.length === 1 ? "it" : "them";
    const how = signedOut
      ? `run \`coursesync login\`, then \`coursesync push\` sends ${them}`
      : `\`coursesync push\` sends ${them}`;
    const named = edits.map((file) => (invalid.includes(file) ? `${file} (invalid: fix it first)` : file));
    parts.push(`${counted(edits.length, "edit")} not sent (${how}): ${named.join(", ")}`);
  }
  if (deletes > 0)
    parts.push(
      `${counted(deletes, "delete")} not sent (\`coursesync push\` sends ${deletes === 1 ? "it" : "them"})`,
    );
  if (conflicts.length > 0)
    parts.push(
      `${counted(conflicts.length, "conflict")} with the site (\`coursesync pull\` brings its version in): ${conflicts.join(", ")}`,
    );
  return parts.length > 0 ? `; ${parts.join("; ")}` : "";
}
