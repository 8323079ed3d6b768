import { createHash } from "node:crypto";

/**
 * SHA-256 of text as hex. Lone surrogates are hashed as their escapes, so two different
 * strings never share a hash through UTF-8 replacement.
 */
export function sha256(text: string | Uint8Array): string {
  const hash = createHash("sha256");
  if (typeof text === "string" && !text.isWellFormed()) hash.update(JSON.stringify(text));
  else hash.update(text);
  return hash.digest("hex");
}

/**
 * The id git gives a file of these bytes (`git hash-object`): SHA-1 of `blob <length>\0`
 * followed by the bytes. Text is taken as the UTF-8 a file of it holds.
 */
export function gitBlobId(text: string | Uint8Array): string {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}
