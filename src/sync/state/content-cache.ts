import { closeSync, openSync, readSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import PQueue from "p-queue";
import { atomicWrite } from "../../tree/fs-ops.js";
import { nodeFs, type TreeFs } from "../../tree/tree-fs.js";
import { sha256 } from "../../util/hash.js";

/** Where one entry's payload sits in its pack. */
interface Located {
  offset: number;
  length: number;
  /** `t`: the text as UTF-8; `j`: a JSON string (text with lone surrogates). */
  kind: "t" | "j";
}

/** What is known of one pack file: its entries, its size, whether its tail is torn. */
interface Pack {
  entries: Map<string, Located>;
  size: number;
  /** The file ends in a partial entry (a run killed mid-append): the next write rewrites it. */
  torn: boolean;
}

/** Staged entries are written once they add up to this many bytes (and at `flush`). */
const FLUSH_BYTES = 4 << 20;

/** Packs a flush writes at once. */
const FLUSH_LANES = 8;

const HEADER = /^([0-9a-f]{64}) ([tj])(\d+)$/;

/**
 * Content-addressed store of chapter HTML under the uncommitted cache, so the snapshot stays
 * small and the base of a body merge is at hand. Missing entries are normal (a fresh clone).
 *
 * Texts live in 256 pack files (`packs/<first two hex digits of the hash>.pack`), not one file
 * each: a site of 50,000 chapters adds 256 files, not 50,000. An entry is a header line
 * (`<sha256> t<bytes>` or `j<bytes>`), the payload and a newline; new entries are appended. A
 * run killed mid-append leaves a torn tail: readers stop before it, and the next write to that
 * pack rewrites it whole (temp file, rename). Every read checks the text against its hash.
 * Files of the older layout (`content/<xx>/<hash>`) are still read; `prune` moves the ones
 * still needed into the packs and removes that folder.
 */
export class ContentCache {
  readonly #packs = new Map<string, Promise<Pack>>();
  /** The same packs, once read. */
  readonly #known = new Map<string, Pack>();
  /** Entries staged and not yet written, by pack: their texts, readable meanwhile. */
  readonly #staged = new Map<string, Map<string, string>>();
  #stagedBytes = 0;
  /** The flush under way (settled when none is). */
  #flushing: Promise<void> = Promise.resolve();
  /** The names in the packs folder when it was first looked at (the packs this run did not make). */
  #present: Promise<Set<string>> | undefined;
  /** Open read handles, by pack file, for `textSync`. */
  readonly #handles = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly fs: TreeFs = nodeFs,
  ) {}

  #packFile(bucket: string): string {
    return path.join(this.dir, "packs", `${bucket}.pack`);
  }

  #legacyFile(hash: string): string {
    return path.join(this.dir, "content", hash.slice(0, 2), hash);
  }

  #pack(bucket: string): Promise<Pack> {
    let pack = this.#packs.get(bucket);
    if (!pack) {
      // A pack the folder did not hold is empty without a look: a first pull would otherwise
      // try to open each of the 256 and fail.
      this.#present ??= readdir(path.join(this.dir, "packs")).then(
        (names) => new Set(names),
        () => new Set<string>(),
      );
      const file = this.#packFile(bucket);
      pack = this.#present.then((present) =>
        present.has(path.basename(file)) ? readPack(file) : { entries: new Map(), size: 0, torn: false },
      );
      pack = pack.then((read) => {
        this.#known.set(bucket, read);
        return read;
      });
      this.#packs.set(bucket, pack);
    }
    return pack;
  }

  /** Store text; returns its hash. Writing the same content twice is a no-op. */
  async put(text: string): Promise<string> {
    const hash = await this.stage(text);
    await this.flush();
    return hash;
  }

  /**
   * Store text later: held in memory until `flush` (or until enough is staged, then written
   * in one append per pack). Returns its hash. `known`: the text's SHA-256, when the caller has
   * it already (a spilled text's).
   */
  async stage(text: string, known?: string): Promise<string> {
    const hash = known ?? sha256(text);
    const bucket = hash.slice(0, 2);
    if (this.#staged.get(bucket)?.has(hash) || (await this.#pack(bucket)).entries.has(hash)) return hash;
    let staged = this.#staged.get(bucket);
    if (!staged) {
      staged = new Map();
      this.#staged.set(bucket, staged);
    }
    staged.set(hash, text);
    this.#stagedBytes += text.length;
    if (this.#stagedBytes >= FLUSH_BYTES) await this.flush();
    return hash;
  }

  /**
   * Write every staged entry: one append per pack (a rewrite for a pack with a torn tail), a
   * few packs at once (a first pull makes up to 256 new files, one after another they took a
   * quarter of a second on a disk where creating a file costs a millisecond). One flush at a
   * time: a second one waits for the first, then writes what was staged meanwhile.
   */
  flush(): Promise<void> {
    const flushed = this.#flushing.then(() => this.#flushStaged());
    this.#flushing = flushed.catch(() => {});
    return flushed;
  }

  async #flushStaged(): Promise<void> {
    const batches = [...this.#staged].map(([bucket, texts]) => [bucket, [...texts]] as const);
    if (batches.length === 0) return;
    await this.fs.mkdir(path.join(this.dir, "packs"));
    const lanes = new PQueue({ concurrency: FLUSH_LANES });
    // Every pack's write is over before the flush settles, the failed ones too: the first
    // failure is thrown then.
    const written = await Promise.allSettled(
      batches.map(([bucket, texts]) => lanes.add(() => this.#flushPack(bucket, texts))),
    );
    const failed = written.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** Write these staged texts to their pack, then unstage them (texts staged meanwhile stay). */
  async #flushPack(
    bucket: string,
    texts: ReadonlyArray<readonly [hash: string, text: string]>,
  ): Promise<void> {
    const pack = await this.#pack(bucket);
    const kept = pack.torn ? await keptBytes(this.#packFile(bucket), pack) : undefined;
    let offset = kept ? kept.length : pack.size;
    const parts: string[] = [];
    for (const [hash, text] of texts) {
      if (pack.entries.has(hash)) continue;
      const entry = encode(hash, text);
      pack.entries.set(hash, {
        offset: offset + entry.headerBytes,
        length: entry.length,
        kind: entry.kind,
      });
      offset += entry.bytes;
      parts.push(entry.text);
    }
    const added = parts.join("");
    if (kept) {
      await atomicWrite(this.#packFile(bucket), Buffer.concat([kept, Buffer.from(added)]), { fs: this.fs });
      pack.torn = false;
    } else if (added.length > 0) {
      await this.fs.appendFile(this.#packFile(bucket), added);
    }
    pack.size = offset;
    this.#closeHandle(bucket);
    const staged = this.#staged.get(bucket);
    for (const [hash, text] of texts) {
      if (staged?.delete(hash)) this.#stagedBytes -= text.length;
    }
    if (staged?.size === 0) this.#staged.delete(bucket);
  }

  /** The text with this hash, or undefined when the cache does not hold it. */
  async get(hash: string): Promise<string | undefined> {
    if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
    const bucket = hash.slice(0, 2);
    const staged = this.#staged.get(bucket)?.get(hash);
    if (staged !== undefined) return staged;
    const at = (await this.#pack(bucket)).entries.get(hash);
    if (at) {
      const text = this.#read(bucket, hash, at);
      if (text !== undefined) return text;
    }
    return this.#legacy(hash);
  }

  /**
   * The text of an entry this run staged or found in a pack, read at once (without waiting):
   * for records whose content was moved out of memory. Undefined when it is not there.
   */
  textSync(hash: string): string | undefined {
    const bucket = hash.slice(0, 2);
    const staged = this.#staged.get(bucket)?.get(hash);
    if (staged !== undefined) return staged;
    const at = this.#known.get(bucket)?.entries.get(hash);
    return at && this.#read(bucket, hash, at);
  }

  #read(bucket: string, hash: string, at: Located): string | undefined {
    let fd = this.#handles.get(bucket);
    try {
      if (fd === undefined) {
        fd = openSync(this.#packFile(bucket), "r");
        this.#handles.set(bucket, fd);
      }
      const buffer = Buffer.alloc(at.length);
      if (readSync(fd, buffer, 0, at.length, at.offset) !== at.length) return undefined;
      const raw = buffer.toString("utf8");
      const text = at.kind === "j" ? (JSON.parse(raw) as string) : raw;
      return sha256(text) === hash ? text : undefined;
    } catch {
      return undefined;
    }
  }

  #closeHandle(bucket: string): void {
    const fd = this.#handles.get(bucket);
    if (fd !== undefined) closeSync(fd);
    this.#handles.delete(bucket);
  }

  async #legacy(hash: string): Promise<string | undefined> {
    let raw: string;
    try {
      raw = await readFile(this.#legacyFile(hash), "utf8");
    } catch {
      return undefined;
    }
    const text = raw.startsWith("j") ? (JSON.parse(raw.slice(1)) as string) : raw.slice(1);
    return sha256(text) === hash ? text : undefined;
  }

  /**
   * Keep only the entries in `keep`: packs holding more than a quarter of bytes nobody needs are
   * rewritten without them, and texts still in the older one-file-per-text layout move into the
   * packs (that folder is then removed). For a run that knows every needed hash (a full pull).
   */
  async prune(keep: ReadonlySet<string>): Promise<void> {
    const legacyDir = path.join(this.dir, "content");
    const legacy = (await readdir(legacyDir, { recursive: true }).catch(() => [])) as string[];
    for (const name of legacy) {
      const hash = path.basename(name);
      if (!keep.has(hash) || (await this.#pack(hash.slice(0, 2))).entries.has(hash)) continue;
      const text = await this.#legacy(hash);
      if (text !== undefined) await this.stage(text);
    }
    await this.flush();
    if (legacy.length > 0) await rm(legacyDir, { recursive: true, force: true });
    for (const bucket of await this.#buckets()) {
      const pack = await this.#pack(bucket);
      let unused = 0;
      // An entry's header line and newline add about 70 bytes to its payload.
      for (const [hash, at] of pack.entries) if (!keep.has(hash)) unused += at.length + 70;
      if (unused * 4 <= pack.size && !pack.torn) continue;
      const parts: string[] = [];
      const entries = new Map<string, Located>();
      let offset = 0;
      for (const [hash, at] of pack.entries) {
        if (!keep.has(hash)) continue;
        const text = this.#read(bucket, hash, at);
        if (text === undefined) continue;
        const entry = encode(hash, text);
        entries.set(hash, { offset: offset + entry.headerBytes, length: entry.length, kind: entry.kind });
        offset += entry.bytes;
        parts.push(entry.text);
      }
      this.#closeHandle(bucket);
      if (entries.size === 0) await this.fs.rm(this.#packFile(bucket));
      else await atomicWrite(this.#packFile(bucket), parts.join(""), { fs: this.fs });
      const settled = { entries, size: offset, torn: false };
      this.#known.set(bucket, settled);
      this.#packs.set(bucket, Promise.resolve(settled));
    }
  }

  /** Buckets that have a pack file. */
  async #buckets(): Promise<string[]> {
    const names = (await readdir(path.join(this.dir, "packs")).catch(() => [])) as string[];
    return names.filter((name) => /^[0-9a-f]{2}\.pack$/.test(name)).map((name) => name.slice(0, 2));
  }

  /** Let go of the open read handles. */
  close(): void {
    for (const bucket of [...this.#handles.keys()]) this.#closeHandle(bucket);
  }
}

/** One entry as written: its text, its size in bytes, and where its payload starts. */
function encode(hash: string, text: string) {
  // Lone surrogates cannot be UTF-8: such text is stored as a JSON string instead.
  const kind: "t" | "j" = text.isWellFormed() ? "t" : "j";
  const payload = kind === "t" ? text : JSON.stringify(text);
  const length = Buffer.byteLength(payload);
  const header = `${hash} ${kind}${length}\n`;
  return {
    text: `${header}${payload}\n`,
    headerBytes: header.length,
    length,
    kind,
    bytes: header.length + length + 1,
  };
}

/** Read a pack's entries (not their texts); a missing file is an empty pack. */
async function readPack(file: string): Promise<Pack> {
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch {
    return { entries: new Map(), size: 0, torn: false };
  }
  const entries = new Map<string, Located>();
  let at = 0;
  while (at < data.length) {
    const newline = data.indexOf(10, at);
    const match = newline < 0 ? null : HEADER.exec(data.toString("latin1", at, newline));
    if (!match) break;
    const length = Number(match[3]);
    const end = newline + 1 + length;
    if (end >= data.length || data[end] !== 10) break;
    entries.set(match[1]!, { offset: newline + 1, length, kind: match[2] as "t" | "j" });
    at = end + 1;
  }
  return { entries, size: at, torn: at < data.length };
}

/** The whole entries of a torn pack, to rewrite it without its broken tail. */
async function keptBytes(file: string, pack: Pack): Promise<Buffer> {
  const data = await readFile(file).catch(() => Buffer.alloc(0));
  return data.subarray(0, pack.size);
}
