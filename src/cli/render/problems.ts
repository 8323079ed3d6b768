import type { FileProblem, Rule } from "../../tree/yaml-text.js";
import { counted } from "../../util/words.js";

/** One problem as `check --json` prints it; `file` is relative to the tree root, with /. */
export interface ProblemRecord {
  file: string;
  line: number | null;
  column: number | null;
  rule: Rule;
  message: string;
  hint: string | null;
}

/** Problems as plain records, in the order given. */
export function problemRecords(problems: readonly FileProblem[]): ProblemRecord[] {
  return problems.map((p) => ({
    file: p.file,
    line: p.line ?? null,
    column: p.column ?? null,
    rule: p.rule,
    message: p.problem,
    hint: p.hint ?? null,
  }));
}

/** `N problems in M files`. */
export function problemSummary(records: readonly ProblemRecord[]): string {
  const files = new Set(records.map((r) => r.file)).size;
  const n = records.length;
  return `${counted(n, "problem")} in ${counted(files, "file")}`;
}

function position(record: ProblemRecord): string {
  if (record.line === null) return record.file;
  return `${record.file}:${record.line}${record.column === null ? "" : `:${record.column}`}`;
}

/**
 * Problems for people, one `file:line:col: message` each (the form editors and terminals make
 * links of), its hint indented below, a blank line between files.
 */
export function humanProblems(records: readonly ProblemRecord[]): string {
  const lines: string[] = [];
  records.forEach((record, i) => {
    if (i > 0 && records[i - 1]?.file !== record.file) lines.push("");
    lines.push(`${position(record)}: ${record.message} [${record.rule}]`);
    if (record.hint) lines.push(...record.hint.split("\n").map((line) => `    ${line}`));
  });
  return lines.join("\n");
}

/** A workflow command's message, escaped as GitHub Actions reads it. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command's property value: its message escapes plus `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * Problems as GitHub Actions `::error` workflow commands, so each shows on the pull request's
 * diff at its line. `prefix` is the tree's folder within the repository ("" at its root).
 */
export function githubProblems(records: readonly ProblemRecord[], prefix: string): string {
  return records
    .map((record) => {
      const properties = [`file=${escapeProperty(prefix ? `${prefix}/${record.file}` : record.file)}`];
      if (record.line !== null) properties.push(`line=${record.line}`);
      if (record.line !== null && record.column !== null) properties.push(`col=${record.column}`);
      properties.push(`title=${escapeProperty(`coursesync check: ${record.rule}`)}`);
      const message = record.hint ? `${record.message}\n${record.hint}` : record.message;
      return `::error ${properties.join(",")}::${escapeData(message)}`;
    })
    .join("\n");
}
