import { hash } from "node:crypto";

// One-shot hashing (`crypto.hash`): no Hash object per call, which on a first pull's thousands
// of small files cost more than hashing their bytes.

/**
 * SHA-256 of text as hex. Lone surrogates are hashed as their escapes, so two different
 * strings never share a hash through UTF-8 replacement.
 */
export function sha256(text: string | Uint8Array): string {
  if (typeof text === "string" && !text.isWellFormed()) return hash("sha256", JSON.stringify(text), "hex");
  return hash("sha256", text, "hex");
}

/**
 * The id git gives a file of these bytes (`git hash-object`): SHA-1 of `blob <length>\0`
 * followed by the bytes. Text is taken as the UTF-8 a file of it holds.
 */
export function gitBlobId(text: string | Uint8Array): string {
  if (typeof text === "string") {
    // Hashed as UTF-8, as the file holds it (a lone surrogate as U+FFFD, as Buffer.from writes it).
    return hash("sha1", `blob ${Buffer.byteLength(text, "utf8")}\0${text}`, "hex");
  }
  const header = Buffer.from(`blob ${text.length}\0`, "latin1");
  return hash("sha1", Buffer.concat([header, text]), "hex");
}
