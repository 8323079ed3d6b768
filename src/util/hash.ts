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
