import { decodeHTMLStrict } from "entities/decode";

// What the fast HTML parser knows of the HTML tree-construction rules: which tags they treat
// specially, the character classes of the tokenizer, and what its named references stand for.

/** The heading elements. */
export const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

// Elements whose start tag closes an open <p> (parse5's in-body rules): never inside one here.
export const CLOSES_P = new Set([
  ...(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer " +
    "header hgroup main menu nav ol p search section summary ul pre listing table hr li dd dt"
  ).split(" "),
  ...HEADINGS,
]);

// Formatting elements (the active-formatting list): a fourth of one kind open would be dropped
// from that list (the "Noah's Ark" rule), and an <a> inside an <a> closes the first.
export const FORMATTING = new Set([
  "a",
  "b",
  "big",
  "code",
  "em",
  "font",
  "i",
  "s",
  "small",
  "strike",
  "strong",
  "tt",
  "u",
]);

/** The tags whose open elements the parser counts: <p>, and the formatting ones. */
export const COUNTED: ReadonlySet<string> = new Set([...FORMATTING, "p"]);

// Every tag the in-body rules (or the first tag of a template's content) treat other than by
// inserting it as it is; any other name, custom or unknown, is an ordinary element.
export const SPECIAL_TAGS = new Set(
  (
    "a address applet area article aside b base basefont bgsound big blockquote body br button caption center " +
    "code col colgroup dd details dialog dir div dl dt em embed fieldset figcaption figure font footer form frame " +
    "frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe image img input keygen li link listing main " +
    "marquee math menu meta nav nobr noembed noframes noscript object ol optgroup option p param plaintext pre rb " +
    "rp rt rtc s script search section select small source strike strong style summary svg table tbody td " +
    "template textarea tfoot th thead title tr track tt u ul wbr xmp"
  ).split(" "),
);

// Elements the in-body rules insert and close at once (the last five by the in-head rules).
export const VOID_IN_BODY = new Set(
  "area br embed hr img input keygen param source track wbr base basefont bgsound link meta".split(" "),
);

// In a table context only these children are left where they stand; each by its parent.
export const TABLE_CHILDREN: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["table", new Set(["caption", "colgroup", "thead", "tbody", "tfoot"])],
  ["thead", new Set(["tr"])],
  ["tbody", new Set(["tr"])],
  ["tfoot", new Set(["tr"])],
  ["tr", new Set(["td", "th"])],
  ["colgroup", new Set(["col"])],
]);

/** HTML whitespace other than a carriage return (declined before parsing). */
export function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 12;
}

// ASCII lower case, as the tokenizer folds tag and attribute names.
export function lowerCase(name: string): string {
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code >= 65 && code <= 90) return name.toLowerCase();
  }
  return name;
}

/** An ASCII letter. */
export function isAlpha(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

// A character reference's code point, when the parser keeps it as it is (no replacement).
export function plainCodePoint(code: number): boolean {
  return (
    code === 9 ||
    code === 10 ||
    (code >= 0x20 && code < 0x7f) ||
    (code >= 0xa0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff))
  );
}

// The named references met so far and what they stand for: at most HTML's 2,231 names.
const namedReferences = new Map<string, string>();

/** What a named reference stands for ("" for none). */
export function namedReference(name: string): string {
  const known = namedReferences.get(name);
  if (known !== undefined) return known;
  // With its semicolon a name matches whole or not at all: the longest-prefix rule that
  // reads `&notit;` as `¬it;` applies only when the whole name is not one.
  const reference = `&${name};`;
  const decoded = decodeHTMLStrict(reference);
  if (decoded === reference) return "";
  namedReferences.set(name, decoded);
  return decoded;
}
