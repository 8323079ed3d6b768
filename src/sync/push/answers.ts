import type { WireRecord } from "../../api/wire.js";
import { fieldsEqual, valuesOfRecord } from "../entities.js";

// Whether the site's answer to a write describes the write (pure): an update answered with a
// record someone else changed.

/**
 * Fields someone else changed on the site between the re-read and the write: those the write
 * did not send whose value in the site's answer is not the one re-read. Fields the site may
 * derive from what was sent are left out (a course's dates from its status, a moved
 * chapter's position).
 */
export function racedFields(
  kind: "course" | "chapter",
  reread: WireRecord,
  answer: WireRecord,
  sent: readonly string[],
): string[] {
  const before = valuesOfRecord(kind, reread) as unknown as Record<string, unknown>;
  const after = valuesOfRecord(kind, answer) as unknown as Record<string, unknown>;
  const derived = new Set<string>(sent);
  if (sent.includes("status")) for (const field of ["published_at", "scheduled_at"]) derived.add(field);
  if (sent.includes("course_id")) derived.add("ordinal");
  return Object.keys(before).filter(
    (field) =>
      !derived.has(field) &&
      field in reread &&
      field in answer &&
      !fieldsEqual(field, before[field], after[field]),
  );
}
