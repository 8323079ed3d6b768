import { diffWords } from "diff";
import type { BodyCodec } from "../../tree/bodies.js";
import { sha256 } from "../../util/hash.js";
import { fieldsEqual, valuesOfRecord } from "../model/entities.js";
import type { Fields } from "../reconcile.js";
import type { Decision, Known } from "./decide.js";
import type { PushPlan } from "./plan.js";

// What `push --force` takes from the site when it overwrites a body the site changed: the words
// of the site's body that the body sent no longer has, in the form people edit.

/** At most this many runs of removed words are listed; the rest are counted. */
const MAX_RUNS = 8;
/** A run of removed words longer than this is cut short. */
const MAX_RUN = 60;

/** A body as people edit it: Markdown where the tree keeps Markdown, else the HTML. */
function editedForm(html: string, bodies: BodyCodec): string {
  if (bodies.mode !== "markdown") return html;
  const converted = bodies.fromHtml(html);
  return converted.format === "markdown" ? converted.body : html;
}

/**
 * The runs of words in the site's body `siteHtml` that sending `sentHtml` removes, in order
 * (each cut to a readable length; past MAX_RUNS, one last entry counts the rest).
 */
export function removedWords(siteHtml: string, sentHtml: string, bodies: BodyCodec): string[] {
  const runs = diffWords(editedForm(siteHtml, bodies), editedForm(sentHtml, bodies))
    .filter((part) => part.removed)
    .map((part) => part.value.replace(/\s+/g, " ").trim())
    .filter((run) => run !== "")
    .map((run) => (run.length > MAX_RUN ? `${run.slice(0, MAX_RUN - 3)}...` : run));
  if (runs.length <= MAX_RUNS) return runs;
  return [...runs.slice(0, MAX_RUNS), `(${runs.length - MAX_RUNS} more)`];
}

/**
 * Note in each update's diff the site's value now, where it is not the last sync's; for a body
 * that --force overwrites, the words of the site's that it removes.
 */
export function showSiteValues(plan: PushPlan, decisions: ReadonlyMap<string, Decision>, known: Known): void {
  for (const op of plan.ops) {
    if (op.type !== "update") continue;
    const decision = decisions.get(op.key);
    const remote = decision?.remote;
    if (!remote) continue;
    const site: Fields = valuesOfRecord(op.kind, remote);
    for (const d of op.diff) {
      if (d.field === "content" && known.force) {
        const base = known.snapshot.chapters[op.id]?.record.content_sha256;
        const sent = decision.kind === "chapter" ? decision.merged?.content : undefined;
        if (typeof remote.content === "string" && typeof sent === "string" && sha256(remote.content) !== base)
          d.removes = removedWords(remote.content, sent, known.bodies);
      }
      if (d.field === "content" || d.field === "course_id") continue;
      if (!fieldsEqual(d.field, site[d.field], d.from)) d.site = site[d.field] ?? null;
    }
  }
}
