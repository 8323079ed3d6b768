import type { ResolvedSite } from "../../config/config.js";
import { NOT_RESTORED } from "../../sync/push/other-site.js";
import type { PushPlan } from "../../sync/push/plan.js";
import { counted } from "../../util/words.js";

/** What a restore into an empty site says before it asks: the counts, and what it cannot bring back. */
export function restoreLines(plan: PushPlan, site: ResolvedSite): string[] {
  const count = (kind: "course" | "chapter") =>
    plan.ops.filter((op) => op.type === "create" && op.kind === kind).length;
  return [
    `Restore into "${site.name}" (${site.url}), which is empty and has no snapshot: will create ${counted(count("course"), "course")} and ${counted(count("chapter"), "chapter")}.`,
    `Not restored (the API does not take them on create): ${NOT_RESTORED}.`,
  ];
}
