/** `coursesync diff` as text: unified diffs, `--name-only` and `--stat`. */
import { createTwoFilesPatch } from "diff";
import { type FileDiff, lineCounts, NO_FILE } from "../../sync/diff.js";
import type { Output } from "../output.js";
import { recordName } from "./words.js";

/** A unified diff of two texts, coloured on a terminal. */
function printPatch(out: Output, oldName: string, newName: string, before: string, after: string): void {
  const patch = createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { context: 3 });
  for (const line of patch.split("\n").slice(1)) {
    if (line === "") continue;
    const style =
      line.startsWith("+") && !line.startsWith("+++")
        ? "green"
        : line.startsWith("-") && !line.startsWith("---")
          ? "red"
          : line.startsWith("@@")
            ? "cyan"
            : undefined;
    out.result(style ? out.paint(style, line) : line);
  }
}

/** The file a change is known by: the new path, or the old one for a delete. */
function shownName(d: FileDiff): string {
  return d.newName === NO_FILE ? d.oldName : d.newName;
}

/** The widest +/- bar of `--stat`; longer ones are scaled down, as git does. */
const STAT_WIDTH = 40;

/** `diff --stat`: ` path | n +++--` per file, then `k files changed, a insertions(+), r deletions(-)`. */
function printStat(out: Output, diffs: readonly FileDiff[]): void {
  if (diffs.length === 0) return;
  const rows = diffs.map((d) => {
    const name =
      d.oldName !== NO_FILE && d.newName !== NO_FILE && d.oldName !== d.newName
        ? `${d.oldName} => ${d.newName}`
        : shownName(d);
    return { name, counts: d.missingBase ? undefined : lineCounts(d.before, d.after) };
  });
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const most = Math.max(0, ...rows.map((r) => (r.counts ? r.counts.added + r.counts.removed : 0)));
  const numberWidth = Math.max(
    1,
    ...rows.map((r) => String(r.counts ? r.counts.added + r.counts.removed : "?").length),
  );
  const scale = most > STAT_WIDTH ? STAT_WIDTH / most : 1;
  let added = 0;
  let removed = 0;
  for (const { name, counts } of rows) {
    if (!counts) {
      out.result(` ${name.padEnd(nameWidth)} | ${"?".padStart(numberWidth)}`);
      continue;
    }
    added += counts.added;
    removed += counts.removed;
    const total = counts.added + counts.removed;
    // Scaled down, a side that changed keeps at least one mark.
    const plus = counts.added ? Math.max(1, Math.round(counts.added * scale)) : 0;
    const minus = counts.removed ? Math.max(1, Math.round(counts.removed * scale)) : 0;
    const bar = `${out.paint("green", "+".repeat(plus))}${out.paint("red", "-".repeat(minus))}`;
    out.result(
      ` ${name.padEnd(nameWidth)} | ${String(total).padStart(numberWidth)}${total ? ` ${bar}` : ""}`,
    );
  }
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  out.result(
    [
      ` ${plural(rows.length, "file changed", "files changed")}`,
      ...(added ? [`${plural(added, "insertion(+)", "insertions(+)")}`] : []),
      ...(removed ? [`${plural(removed, "deletion(-)", "deletions(-)")}`] : []),
    ].join(", "),
  );
}

/** The diffs in the form the flags ask for. */
export function printDiffs(
  out: Output,
  diffs: readonly FileDiff[],
  flags: { nameOnly?: boolean | undefined; stat?: boolean | undefined },
): void {
  if (flags.nameOnly) {
    for (const d of diffs) out.result(shownName(d));
    return;
  }
  if (flags.stat) {
    printStat(out, diffs);
    return;
  }
  for (const d of diffs) {
    out.result(out.paint("bold", `${recordName(d.kind, d.id)}: ${d.what}`));
    if (d.missingBase) {
      out.result(
        "  (the last synced body is neither in the local cache nor in git, e.g. in a shallow clone; `coursesync pull` restores it)",
      );
      continue;
    }
    printPatch(
      out,
      d.oldName === NO_FILE ? d.oldName : `${d.remote ? "site" : "a"}/${d.oldName}`,
      d.newName === NO_FILE ? d.newName : `b/${d.newName}`,
      d.before,
      d.after,
    );
  }
}
