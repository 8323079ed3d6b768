import { readFile } from "node:fs/promises";
import type { WireRecord } from "../../api/wire.js";
import { atomicWrite } from "../../tree/fs-ops.js";
import { nodeFs, type TreeFs } from "../../tree/tree-fs.js";

/** A write push is about to send: kept so a rerun after a crash can look for its result. */
export interface Intent {
  t: "intent";
  op: "create";
  kind: "course" | "chapter";
  key: string;
  path: string;
  fields: Record<string, unknown>;
  /** Hash of the file the create was sent from. */
  from?: string;
}

/** A write the site confirmed, with what the snapshot should now say. */
export interface Done {
  t: "done";
  op: "create" | "update" | "delete";
  kind: "course" | "chapter";
  key: string;
  id: number;
  /** Where the file (or course folder) is; for deletes, where it was. */
  path: string;
  /** The record as the site now has it; undefined for deletes. */
  record?: WireRecord;
  /** Hash of the file as it stands for `record`. */
  hash?: string;
  /** Chapters: the body key of the file (format and body hashed). */
  body?: string;
  /** Chapters: git's blob id of the file (see SnapshotEntry.blob). */
  blob?: string;
  /** Creates: hash of the file the record was created from, before it got its id. */
  from?: string;
  /** Creates: the file's text when the site changed what was sent (else: that file plus the id). */
  text?: string;
  /** Creates on a site other than the default one: the site's own id of record `id`. */
  site_id?: number;
}

/**
 * The first line of a journal: the snapshot the run started from (the hash of its canonical
 * text). A journal whose snapshot is no longer the one on disk was already folded into it
 * (the run was killed after saving the snapshot, before removing the journal): it is stale.
 */
export interface Start {
  t: "start";
  base: string;
}

/** One line of the push journal. */
export type JournalLine = Intent | Done;

/**
 * The push journal (`.coursesync/<site>.journal`): one JSON line per intent and per confirmed
 * write, appended as they happen, so a push killed at any moment can be finished by the next
 * one without sending an edit twice or creating a duplicate. Folded into the snapshot and
 * removed when a push ends.
 */
export class Journal {
  #started = false;
  /** The journal read ends in a line cut off by a kill: the next line starts on a new one. */
  #torn = false;
  /** The last append under way: the next one waits for it. */
  #appending: Promise<void> = Promise.resolve();

  #base: string | (() => string);

  /**
   * `base`: the hash of the snapshot this run started from (see `Start`), or how to compute it
   * when first needed (hashing a large snapshot is skipped when there is no journal);
   * `fs`: what it writes through.
   */
  constructor(
    readonly file: string,
    base: string | (() => string),
    private readonly fs: TreeFs = nodeFs,
  ) {
    this.#base = base;
  }

  /** The hash of the snapshot this run started from. */
  get base(): string {
    if (typeof this.#base === "function") this.#base = this.#base();
    return this.#base;
  }

  /**
   * Every complete line of a journal left by an earlier run: [] when there is none, or when it
   * is stale (its snapshot is no longer the one on disk: its lines are in it already).
   */
  async read(): Promise<JournalLine[]> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    this.#started = true;
    this.#torn = text.length > 0 && !text.endsWith("\n");
    const lines: JournalLine[] = [];
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      let parsed: JournalLine | Start;
      try {
        parsed = JSON.parse(line) as JournalLine | Start;
      } catch {
        // The last line of a run killed mid-write: it was not confirmed.
        continue;
      }
      if (parsed.t === "start") {
        if (parsed.base !== this.base) {
          this.#started = false;
          return [];
        }
        continue;
      }
      lines.push(parsed);
    }
    return lines;
  }

  /**
   * Append one line (a single small append: whole or not at all in practice). Appends go one
   * after another: writes run side by side, and an append landing before the write that starts
   * the journal would be cut away by it.
   */
  append(line: JournalLine): Promise<void> {
    const next = this.#appending.then(() => this.#append(line));
    this.#appending = next.catch(() => {});
    return next;
  }

  async #append(line: JournalLine): Promise<void> {
    let text = `${JSON.stringify(line)}\n`;
    if (!this.#started) {
      // A new journal (or one found stale): it starts with the snapshot it belongs to.
      const start: Start = { t: "start", base: this.base };
      text = `${JSON.stringify(start)}\n${text}`;
      this.#started = true;
      await this.fs.writeFile(this.file, text);
      return;
    }
    if (this.#torn) {
      text = `\n${text}`;
      this.#torn = false;
    }
    await this.fs.appendFile(this.file, text);
  }

  /**
   * Start the journal afresh for a newly saved snapshot, holding only these lines (creates
   * still unconfirmed): written to a temp file and renamed over, so it is whole or not at all.
   */
  async restart(base: string, lines: readonly JournalLine[]): Promise<void> {
    const start: Start = { t: "start", base };
    const text = [start, ...lines].map((line) => `${JSON.stringify(line)}\n`).join("");
    await atomicWrite(this.file, text, { fs: this.fs });
    this.#started = true;
    this.#torn = false;
  }

  /** Remove the journal once its lines are in the saved snapshot. */
  async clear(): Promise<void> {
    await this.fs.rm(this.file);
    this.#started = false;
  }
}

/** Intents whose write was never confirmed: creates to look for on the site before sending again. */
export function unconfirmedIntents(lines: readonly JournalLine[]): Intent[] {
  const done = new Set(lines.filter((l) => l.t === "done").map((l) => l.key));
  const open = new Map<string, Intent>();
  for (const line of lines) if (line.t === "intent" && !done.has(line.key)) open.set(line.key, line);
  return [...open.values()];
}
