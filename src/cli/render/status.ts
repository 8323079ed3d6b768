/** `coursesync status` as text: the human lines, `--short` and `--json`. */
import type { StatusEntry } from "../../sync/status.js";
import type { Output } from "../output.js";
import type { StatusJson } from "./json-types.js";
import { recordName } from "./words.js";

const STYLE = {
  new: "green",
  modified: "yellow",
  moved: "cyan",
  renamed: "cyan",
  deleted: "red",
  conflict: "magenta",
  invalid: "red",
  untracked: "gray",
} as const;

/** The two-character codes of `status --short`, like `git status --short`. */
const SHORT_CODES: Record<StatusEntry["state"], string> = {
  modified: " M",
  new: "A ",
  deleted: " D",
  renamed: "R ",
  moved: "RM",
  conflict: "UU",
  invalid: "!!",
  untracked: "??",
};

/** Which state a path shows when it has several entries (an invalid file with many problems). */
const SHORT_RANK: readonly StatusEntry["state"][] = ["invalid", "conflict"];

/** A path as `--short` prints it: quoted like JSON when it holds a quote, backslash, control character or " -> ". */
function shortPath(p: string): string {
  return /[\u0000-\u001f\u007f"\\]/.test(p) || p.includes(" -> ") ? JSON.stringify(p) : p;
}

/** `status --short`: one line per path, a two-character code and the path (`old -> new` for a rename). */
export function shortLines(entries: readonly StatusEntry[]): string[] {
  const byPath = new Map<string, StatusEntry>();
  const rank = (e: StatusEntry) => {
    const at = SHORT_RANK.indexOf(e.state);
    return at === -1 ? SHORT_RANK.length : at;
  };
  for (const entry of entries) {
    const seen = byPath.get(entry.path);
    if (!seen || rank(entry) < rank(seen)) byPath.set(entry.path, entry);
  }
  return [...byPath.values()].map((e) => {
    const where = e.from ? `${shortPath(e.from)} -> ${shortPath(e.path)}` : shortPath(e.path);
    return `${SHORT_CODES[e.state]} ${where}`;
  });
}

/** One status line for people. */
function statusLine(entry: StatusEntry, out: Output): string {
  const detail = [
    entry.kind === "file" ? undefined : recordName(entry.kind, entry.id),
    entry.from ? `from ${entry.from}` : undefined,
    entry.fields?.length ? `[${entry.fields.join(", ")}]` : undefined,
    entry.copy ? `site's version: ${entry.copy}` : undefined,
    entry.message,
  ]
    .filter(Boolean)
    .join("; ");
  return `  ${out.paint(STYLE[entry.state], entry.state.padEnd(9))} ${entry.path}${detail ? `  (${detail})` : ""}`;
}

/** The --json document of status. */
export function statusJson(
  site: { url: string },
  entries: readonly StatusEntry[],
  interrupted: boolean,
): StatusJson {
  return {
    command: "status",
    site: site.url,
    clean: entries.length === 0,
    interrupted_push: interrupted,
    entries: [...entries],
  };
}

/** How status prints: for people, `--short` or `--json`. */
export type StatusMode = "human" | "short" | "json";

/** Print status's entries for the site, with a word on an interrupted push. */
export function renderStatus(
  out: Output,
  site: { name: string; url: string },
  entries: readonly StatusEntry[],
  interrupted: boolean,
  mode: StatusMode,
): void {
  if (mode === "short") {
    if (interrupted) {
      out.warn(
        "a push was interrupted: `coursesync push` (or `pull`) finishes it; until then what it sent may show as pending",
      );
    }
    out.results(shortLines(entries));
  } else if (mode === "json") {
    out.json(statusJson(site, entries, interrupted));
  } else {
    out.result(`Site "${site.name}" (${site.url})`);
    if (interrupted) {
      out.result(
        "A push was interrupted: `coursesync push` (or `pull`) finishes it; until then what it sent may show as pending.",
      );
    }
    if (entries.length === 0) out.result("Nothing to push: the tree matches the last sync.");
    for (const entry of entries) out.result(statusLine(entry, out));
    if (entries.length) {
      const invalid = new Set(entries.filter((e) => e.state === "invalid").map((e) => e.path)).size;
      out.result(
        `${entries.length} pending` +
          (invalid
            ? `; ${invalid} invalid file${invalid === 1 ? "" : "s"} must be fixed before a push`
            : "") +
          ". `coursesync diff` shows the changes; `coursesync push` sends them.",
      );
    }
  }
}
