/** Secrets (password, token) removed from text a server echoed, in every encoding it may use. */

/**
 * Secrets shorter than this are not searched for: replacing every `a` or space in a message
 * would garble it and still reveal the secret by where the gaps are. The tool never prints
 * them itself (they travel only in headers and redacted query parameters).
 */
const MIN_SECRET = 4;

/**
 * Replace each secret (password, token) with `[redacted]` wherever it appears in the text, in
 * any of the forms a server echoes it in: plain, URL-encoded, JSON-escaped (`\"`, `\\`, `\u0027`)
 * or HTML-escaped (`&quot;`, `&#39;`, `&#x27;`, `&amp;`...), even mixed within one occurrence.
 * Secrets shorter than MIN_SECRET characters, or only whitespace, are left alone.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret === undefined || [...secret.trim()].length < MIN_SECRET) continue;
    result = result.replace(secretPattern(secret), "[redacted]");
  }
  return result;
}

/** A pattern matching the secret with each character in any of its encoded forms. */
function secretPattern(secret: string): RegExp {
  const chars = [...secret].map((char) => `(?:${[...new Set(charForms(char))].join("|")})`);
  return new RegExp(chars.join(""), "g");
}

const JSON_SHORT: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

const HTML_NAMED: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** The regex sources of one character: literal, JSON, HTML and URL encodings. */
function charForms(char: string): string[] {
  const code = char.codePointAt(0) ?? 0;
  const units = Array.from({ length: char.length }, (_, i) => char.charCodeAt(i));
  const forms = [
    escapeRegExp(char),
    units.map((unit) => `\\\\u${hexDigits(unit.toString(16).padStart(4, "0"))}`).join(""),
    `&#0*${code};`,
    `&#[xX]0*${hexDigits(code.toString(16))};`,
    [...new TextEncoder().encode(char)]
      .map((byte) => `%${hexDigits(byte.toString(16).padStart(2, "0"))}`)
      .join(""),
  ];
  if (JSON_SHORT[char] !== undefined) forms.push(escapeRegExp(JSON_SHORT[char]));
  if (HTML_NAMED[char] !== undefined) forms.push(escapeRegExp(HTML_NAMED[char]));
  if (char === " ") forms.push("\\+");
  return forms;
}

/** Hex digits matching either case. */
function hexDigits(hex: string): string {
  return hex.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

/** The text as a regex source that matches it literally. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
