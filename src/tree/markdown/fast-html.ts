import { type DefaultTreeAdapterTypes, html } from "parse5";
import {
  CLOSES_P,
  COUNTED,
  FORMATTING,
  HEADINGS,
  isAlpha,
  isSpace,
  lowerCase,
  namedReference,
  plainCodePoint,
  SPECIAL_TAGS,
  TABLE_CHILDREN,
  VOID_IN_BODY,
} from "./fast-html-rules.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;
type Fragment = DefaultTreeAdapterTypes.DocumentFragment;
type TextNode = DefaultTreeAdapterTypes.TextNode;
type Attribute = Element["attrs"][number];

/**
 * A fast path for the gate's HTML parser: the tree parse5's `parseFragment` builds, for HTML
 * that is plainly well formed (what markdown-it renders and what the raw-block writer writes),
 * or undefined for anything else, which parse5 then reads; `npm run bench -- markdown` shows
 * what it saves.
 *
 * It accepts only input that the HTML tree-construction rules leave as written: every end tag
 * closes the element opened last; no start tag that the rules close, move or read specially
 * (a block inside <p>, a list item outside its list, table parts outside their table, text in
 * a table, an <a> inside an <a>, forms, foreign content, raw text other than <iframe>'s);
 * quoted attributes; character references with their semicolon; plain comments. Anything else
 * (so every input whose tree needs the error-recovery rules) is declined. Tests hold its trees
 * equal to parse5's on every corpus and on generated input.
 */
export function fastParseFragment(source: string): Fragment | undefined {
  return readable(source) ? new FastParser(source).run(false) : undefined;
}

/**
 * `fastParseFragment`, declining also HTML that leaves an element open at its end: what it
 * accepts leaves the parser as it started, so it parses the same wherever it stands between
 * closed elements of a longer input (no rule here reads anything but the open elements).
 */
export function fastParseClosed(source: string): Fragment | undefined {
  return readable(source) ? new FastParser(source).run(true) : undefined;
}

/** Carriage returns (normalized by the parser), NUL (dropped) and a byte-order mark: declined. */
function readable(source: string): boolean {
  return source.indexOf("\r") === -1 && source.indexOf("\0") === -1 && source.charCodeAt(0) !== 0xfeff;
}

const ATTRIBUTE_NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const REFERENCE = /&(?:([A-Za-z][A-Za-z0-9]*)|#([0-9]{1,7})|#[xX]([0-9A-Fa-f]{1,6}));/y;
const IFRAME_END = /<\/iframe[\t\n\f />]/gi;

class Decline {}
const DECLINE = new Decline();

class FastParser {
  private readonly fragment: Fragment = { nodeName: "#document-fragment", childNodes: [] };
  private readonly open: Element[] = [];
  // The node new nodes go into (the element opened last, or the fragment), and whether it is
  // one of the table elements that take only certain children.
  private parent: Element | Fragment = this.fragment;
  private tableParent: ReadonlySet<string> | undefined;
  /** How many elements of each tag the rules ask about (`COUNTED`) are open. */
  private readonly openCount = new Map<string, number>();
  private pos = 0;
  // The first `&` at or after the last place asked about (the source's length for none): one
  // scan of the source for them all, where asking afresh for each text would scan to its end.
  // It holds because the parser only moves forward: never ask about a place before the last.
  private amp = -1;

  constructor(private readonly source: string) {}

  run(closed: boolean): Fragment | undefined {
    try {
      this.parse();
      return closed && this.open.length > 0 ? undefined : this.fragment;
    } catch (error) {
      if (error === DECLINE) return undefined;
      throw error;
    }
  }

  private parse(): void {
    const source = this.source;
    const length = source.length;
    while (this.pos < length) {
      const lt = source.indexOf("<", this.pos);
      const end = lt === -1 ? length : lt;
      if (end > this.pos) this.text(this.pos, end);
      if (lt === -1) return;
      this.pos = lt;
      const next = source.charCodeAt(lt + 1);
      if (isAlpha(next)) this.startTag();
      else if (next === 47 /* / */) this.endTag();
      else if (source.startsWith("<!--", lt)) this.comment();
      else throw DECLINE;
    }
  }

  private push(element: Element): void {
    this.open.push(element);
    this.parent = element;
    this.tableParent = TABLE_CHILDREN.get(element.tagName);
    if (COUNTED.has(element.tagName))
      this.openCount.set(element.tagName, this.countOpen(element.tagName) + 1);
  }

  private pop(): void {
    const popped = this.open.pop();
    if (popped !== undefined && COUNTED.has(popped.tagName)) {
      this.openCount.set(popped.tagName, this.countOpen(popped.tagName) - 1);
    }
    const top = this.open[this.open.length - 1];
    this.parent = top ?? this.fragment;
    this.tableParent = top === undefined ? undefined : TABLE_CHILDREN.get(top.tagName);
  }

  private append(node: ChildNode): void {
    const parent = this.parent;
    node.parentNode = parent as Element;
    parent.childNodes.push(node);
  }

  private appendText(value: string): void {
    const parent = this.parent;
    const siblings = parent.childNodes;
    const last = siblings[siblings.length - 1];
    if (last !== undefined && last.nodeName === "#text") (last as TextNode).value += value;
    else siblings.push({ nodeName: "#text", value, parentNode: parent as Element });
  }

  private ampersandFrom(pos: number): number {
    if (this.amp < pos) {
      const found = this.source.indexOf("&", pos);
      this.amp = found === -1 ? this.source.length : found;
    }
    return this.amp;
  }

  private text(start: number, end: number): void {
    const source = this.source;
    const tableContext = this.tableParent !== undefined;
    let value: string;
    const amp = this.ampersandFrom(start);
    if (amp >= end) {
      value = source.slice(start, end);
    } else {
      // In a table only whitespace stays put, and only as it is written.
      if (tableContext) throw DECLINE;
      value = this.decode(start, end, amp);
    }
    if (tableContext) {
      for (let i = 0; i < value.length; i++) if (!isSpace(value.charCodeAt(i))) throw DECLINE;
    }
    this.appendText(value);
  }

  // Text with character references, from `start` to `end`; the first `&` is at `amp`.
  private decode(start: number, end: number, amp: number): string {
    const source = this.source;
    let out = "";
    let from = start;
    while (amp < end) {
      out += source.slice(from, amp);
      REFERENCE.lastIndex = amp;
      const match = REFERENCE.exec(source);
      if (match !== null && match.index + match[0].length <= end) {
        out += this.reference(match);
        from = amp + match[0].length;
      } else {
        // A bare `&` before a character no reference starts with stays as it is.
        const after = amp + 1 < end ? source.charCodeAt(amp + 1) : -1;
        if (after === -1 || after === 35 /* # */ || isAlpha(after) || (after >= 48 && after <= 57))
          throw DECLINE;
        out += "&";
        from = amp + 1;
      }
      amp = this.ampersandFrom(from);
    }
    return out + source.slice(from, end);
  }

  private reference(match: RegExpExecArray): string {
    const [, name, decimal, hex] = match;
    if (name !== undefined) {
      const value = namedReference(name);
      if (value === "") throw DECLINE;
      return value;
    }
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16);
    if (!plainCodePoint(code)) throw DECLINE;
    return String.fromCodePoint(code);
  }

  private startTag(): void {
    const source = this.source;
    let pos = this.tagNameEnd(this.pos + 1);
    const tag = lowerCase(source.slice(this.pos + 1, pos));
    const attrs: Attribute[] = [];
    let selfClosing = false;
    for (;;) {
      const code = source.charCodeAt(pos);
      if (code === 62 /* > */) {
        pos++;
        break;
      }
      if (code === 47 /* / */ && source.charCodeAt(pos + 1) === 62) {
        selfClosing = true;
        pos += 2;
        break;
      }
      if (!isSpace(code)) throw DECLINE;
      while (isSpace(source.charCodeAt(pos))) pos++;
      if (source.charCodeAt(pos) === 62 || source.charCodeAt(pos) === 47) continue;
      pos = this.attribute(pos, attrs);
    }
    this.pos = pos;
    this.insert(tag, attrs, selfClosing);
  }

  // One attribute from `pos`: a name alone, or a name and a quoted value.
  private attribute(pos: number, attrs: Attribute[]): number {
    const source = this.source;
    ATTRIBUTE_NAME.lastIndex = pos;
    const match = ATTRIBUTE_NAME.exec(source);
    if (match === null) throw DECLINE;
    const name = lowerCase(match[0]);
    pos += match[0].length;
    let value = "";
    const code = source.charCodeAt(pos);
    if (code === 61 /* = */) {
      const quote = source.charCodeAt(pos + 1);
      if (quote !== 34 && quote !== 39) throw DECLINE;
      const close = source.indexOf(quote === 34 ? '"' : "'", pos + 2);
      if (close === -1) throw DECLINE;
      const amp = this.ampersandFrom(pos + 2);
      value = amp > close ? source.slice(pos + 2, close) : this.decode(pos + 2, close, amp);
      pos = close + 1;
      const after = source.charCodeAt(pos);
      if (!isSpace(after) && after !== 62 && after !== 47) throw DECLINE;
    } else if (isSpace(code)) {
      // `name = "value"` is legal, but not written here.
      let ahead = pos;
      while (isSpace(source.charCodeAt(ahead))) ahead++;
      if (source.charCodeAt(ahead) === 61) throw DECLINE;
    } else if (code !== 62 && code !== 47) {
      throw DECLINE;
    }
    // The parser keeps the first of two attributes with one name.
    if (!attrs.some((attr) => attr.name === name)) attrs.push({ name, value });
    return pos;
  }

  private insert(tag: string, attrs: Attribute[], selfClosing: boolean): void {
    const parent = this.open[this.open.length - 1];
    const allowed = this.tableParent;
    if (allowed !== undefined) {
      if (!allowed.has(tag)) throw DECLINE;
    } else {
      // Table parts outside their table fall to the last branch: special, so declined.
      if (CLOSES_P.has(tag)) {
        if (this.isOpen("p")) throw DECLINE;
        if (HEADINGS.has(tag) && parent !== undefined && HEADINGS.has(parent.tagName)) throw DECLINE;
        if (tag === "li" && parent?.tagName !== "ul" && parent?.tagName !== "ol") throw DECLINE;
        if ((tag === "dd" || tag === "dt") && parent?.tagName !== "dl") throw DECLINE;
      } else if (FORMATTING.has(tag)) {
        if (tag === "a" ? this.isOpen("a") : this.countOpen(tag) >= 3) throw DECLINE;
      } else if (SPECIAL_TAGS.has(tag) && !VOID_IN_BODY.has(tag) && tag !== "iframe") {
        throw DECLINE;
      }
    }
    const element: Element = {
      nodeName: tag,
      tagName: tag,
      attrs,
      namespaceURI: html.NS.HTML,
      childNodes: [],
      parentNode: null,
    };
    this.append(element);
    if (VOID_IN_BODY.has(tag) || tag === "col") return;
    if (selfClosing) throw DECLINE;
    if (tag === "iframe") {
      this.rawText(element);
      return;
    }
    this.push(element);
    if (tag === "pre" || tag === "listing") {
      // The parser drops one line end right after these start tags.
      const next = this.source.charCodeAt(this.pos);
      if (next === 10) this.pos++;
      else if (next === 38 /* & */) throw DECLINE;
    }
  }

  // An iframe's content is raw text up to its end tag.
  private rawText(element: Element): void {
    IFRAME_END.lastIndex = this.pos;
    const match = IFRAME_END.exec(this.source);
    if (match === null) throw DECLINE;
    if (match.index > this.pos) {
      element.childNodes.push({
        nodeName: "#text",
        value: this.source.slice(this.pos, match.index),
        parentNode: element,
      });
    }
    this.pos = match.index;
    this.push(element);
    this.endTag();
  }

  private endTag(): void {
    const source = this.source;
    const nameEnd = this.tagNameEnd(this.pos + 2);
    let pos = nameEnd;
    while (isSpace(source.charCodeAt(pos))) pos++;
    if (source.charCodeAt(pos) !== 62) throw DECLINE;
    // Only the element opened last may close: anything else needs the recovery rules.
    const current = this.open[this.open.length - 1];
    if (current === undefined || current.tagName !== lowerCase(source.slice(this.pos + 2, nameEnd))) {
      throw DECLINE;
    }
    this.pop();
    this.pos = pos + 1;
  }

  // Where the tag name starting at `start` ends: an ASCII letter, then letters, digits and
  // `:_.-`, up to whitespace, `/` or `>`.
  private tagNameEnd(start: number): number {
    const source = this.source;
    if (!isAlpha(source.charCodeAt(start))) throw DECLINE;
    let end = start + 1;
    for (;;) {
      const code = source.charCodeAt(end);
      if (
        isAlpha(code) ||
        (code >= 48 && code <= 58) /* 0-9 : */ ||
        code === 95 ||
        code === 46 ||
        code === 45
      ) {
        end++;
      } else if (isSpace(code) || code === 47 || code === 62) {
        return end;
      } else {
        throw DECLINE;
      }
    }
  }

  private comment(): void {
    const source = this.source;
    const start = this.pos + 4;
    const close = source.indexOf("-->", start);
    if (close === -1) throw DECLINE;
    const data = source.slice(start, close);
    // Plain comments only: no `--` inside, none of the short or odd endings.
    if (
      data.startsWith(">") ||
      data.startsWith("->") ||
      data.endsWith("-") ||
      data.includes("--") ||
      data.includes("<!-")
    ) {
      throw DECLINE;
    }
    if (this.parent.nodeName === "colgroup") throw DECLINE;
    this.append({ nodeName: "#comment", data, parentNode: null });
    this.pos = close + 3;
  }

  // Counted as elements open and close, not by walking the stack: deep nesting stays linear.
  private isOpen(tag: "p" | "a"): boolean {
    return this.countOpen(tag) > 0;
  }

  private countOpen(tag: string): number {
    return this.openCount.get(tag) ?? 0;
  }
}
