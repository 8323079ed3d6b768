import type { BodyCodec } from "../../tree/bodies.js";
import { recordFilePath } from "../../tree/layout.js";
import type { TreeFs } from "../../tree/tree-fs.js";
import { planLocalChanges } from "../local/changes.js";
import { openStateLocal } from "../local/open.js";
import { SiteState } from "../state/workspace.js";

/** What the tree holds that the site has not been sent, against the snapshot. */
export interface LocalPending {
  /** Records whose files are gone here and that the snapshot still has. */
  deletes: number;
  /** Files whose edits (new files, changed fields or bodies, invalid files) are not sent, sorted. */
  edits: string[];
  /** Those of them push skips until they are fixed. */
  invalid: string[];
}

/** Where to look, and how to read the files. */
export interface LocalPendingOptions {
  root: string;
  site: string;
  ignore: readonly string[];
  bodies: BodyCodec;
  fs?: TreeFs | undefined;
}

/**
 * What a push would still send, worked out offline from the snapshot alone (watch's burst
 * pause and its stop line): deletes counted, and the files of every other change named.
 */
export async function localPending(options: LocalPendingOptions): Promise<LocalPending> {
  const state = SiteState.open(options.root, options.site, { fs: options.fs });
  const snapshot = await state.loadSnapshot();
  if (!snapshot) return { deletes: 0, edits: [], invalid: [] };
  const side = await openStateLocal(state, snapshot, { ignore: options.ignore, bodies: options.bodies });
  // An invalid file is an edit not sent (push skips it until it is fixed), never a delete.
  const invalid = new Set(side.problems.map((problem) => problem.file));
  const edits = new Set(invalid);
  let deletes = 0;
  for (const change of planLocalChanges(snapshot, side.local)) {
    const { toSite } = change.plan;
    const file = recordFilePath(change.plan.kind, change.path);
    if (toSite.type === "delete") deletes += invalid.has(file) ? 0 : 1;
    else if (toSite.type !== "none") edits.add(file);
  }
  return { deletes, edits: [...edits].sort(), invalid: [...invalid].sort() };
}
