import { isUtf8 } from "node:buffer";
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";

/** One entry of a folder, its name read from the bytes on disk. */
export interface FolderEntry {
  /**
   * The name as text: exact for a UTF-8 name. For any other, each bad byte reads as U+FFFD,
   * which names no file on disk: such a name is only matched against ignore rules.
   */
  name: string;
  /** For a name that is not valid UTF-8: the name for messages, bad bytes escaped (`\xff`). */
  odd: string | undefined;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/**
 * The entries of a folder. Read as bytes: Node decodes a name that is not UTF-8 lossily, and
 * the decoded name then opens nothing (ENOENT), so such names are told apart here.
 */
export async function readFolder(dir: string): Promise<FolderEntry[]> {
  const entries = await readdir(dir, { withFileTypes: true, encoding: "buffer" });
  return entries.map((entry: Dirent<Buffer>) => ({
    name: entry.name.toString("utf8"),
    odd: escapedName(entry.name),
    isFile: () => entry.isFile(),
    isDirectory: () => entry.isDirectory(),
    isSymbolicLink: () => entry.isSymbolicLink(),
  }));
}

/** How many bytes a UTF-8 sequence starting with this byte takes; 0 for a byte no sequence starts with. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * A name that is not valid UTF-8, written as a shell's `$'...'` reads it: each bad byte and
 * control character as `\xNN`, backslash and quote escaped, so `mv $'<it>' new-name` renames
 * the file. Undefined for a valid UTF-8 name.
 */
export function escapedName(bytes: Uint8Array): string | undefined {
  if (isUtf8(bytes)) return undefined;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = "";
  let bad = false;
  for (let at = 0; at < buffer.length; ) {
    const length = sequenceLength(buffer[at]!);
    const sequence = buffer.subarray(at, at + length);
    const text = sequence.toString("utf8");
    // A complete, shortest-form, non-surrogate sequence is exactly what its text encodes to.
    if (length > 0 && sequence.length === length && Buffer.from(text, "utf8").equals(sequence)) {
      out += /[\u0000-\u001f\u007f]/.test(text) ? hex(buffer[at]!) : text.replace(/[\\']/, "\\$&");
      at += length;
    } else {
      out += hex(buffer[at]!);
      bad = true;
      at += 1;
    }
  }
  return bad ? out : undefined;
}

function hex(byte: number): string {
  return `\\x${byte.toString(16).padStart(2, "0")}`;
}
