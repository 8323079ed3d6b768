import { courseFolderContaining } from "../tree/layout.js";
import type { LiveHub } from "./live.js";
import type { PreviewModel } from "./model.js";
import { readModelIn } from "./model-part.js";

// The model the pages are rendered from, as saves change the tree, and the index rendered once
// for each read of it.

/** The first read, once the watcher is ready too; the watcher closed when the read fails. */
export async function whileWatching(
  watching: Promise<void>,
  reading: Promise<PreviewModel>,
  hub: LiveHub,
): Promise<PreviewModel> {
  try {
    const [model] = await Promise.all([reading, watching]);
    return model;
  } catch (error) {
    await Promise.allSettled([reading, watching]);
    await hub.close();
    throw error;
  }
}

/** The model the pages are rendered from, read again after each change. */
export interface LiveModel {
  current(): Promise<PreviewModel>;
  /** A tree path changed (`courses` when the snapshot did). */
  changed(path: string): void;
}

/**
 * Changes coming faster than the tree is read start one read after the one under way, which
 * sees them all: a page asking after a change never gets a model read before it. A change
 * within course folders reads only those folders again; any other, the whole tree.
 */
export function liveModel(first: PreviewModel, read: () => Promise<PreviewModel>): LiveModel {
  let model: Promise<PreviewModel> = Promise.resolve(first);
  let queued: Promise<PreviewModel> | undefined;
  let changed: Set<string> | "all" = new Set();
  const next = async (previous: PreviewModel | undefined) => {
    queued = undefined;
    const folders = changed;
    changed = new Set();
    const part = previous && folders !== "all" ? await readModelIn(previous, folders) : undefined;
    return part ?? read();
  };
  return {
    current: () => model,
    changed: (path) => {
      const folder = courseFolderContaining(path);
      if (folder === undefined) changed = "all";
      else if (changed !== "all") changed.add(folder);
      if (queued) return;
      queued = model.then(
        (previous) => next(previous),
        () => next(undefined),
      );
      model = queued;
      // A failed read is shown by the page that asks; it must not end the process meanwhile.
      model.catch(() => {});
    },
  };
}

/** A page as answered: its status and HTML. */
export interface Rendered {
  status: number;
  text: string;
}

/**
 * Renders pages, the index (whole or its live part) once for each read of the tree: a large
 * tree's index is not rendered again for each request.
 */
export function indexCache(
  render: (url: URL, model: PreviewModel, origin: string) => Promise<Rendered>,
): (url: URL, model: PreviewModel, origin: string) => Promise<Rendered> {
  const indexes = new WeakMap<PreviewModel, Map<string, Rendered>>();
  return async (url, model, origin) => {
    const params = [...url.searchParams.keys()];
    const cached = url.pathname === "/" && params.every((name) => name === "page" || name === "fragment");
    const key = `${origin} ${url.searchParams.get("page")} ${url.searchParams.get("fragment")}`;
    const known = cached ? indexes.get(model)?.get(key) : undefined;
    if (known) return known;
    const rendered = await render(url, model, origin);
    if (cached && rendered.status === 200)
      indexes.set(model, (indexes.get(model) ?? new Map()).set(key, rendered));
    return rendered;
  };
}
