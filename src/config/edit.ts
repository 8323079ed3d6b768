import { readFile } from "node:fs/promises";
import path from "node:path";
import { type Document, isMap, isScalar, type Node, type Pair, parseDocument, stringify } from "yaml";
import { usageError } from "../errors.js";
import { atomicWrite } from "../tree/fs-ops.js";
import { sortKeys } from "../util/stable-json.js";
import { CONFIG_FILE, type Config, parseConfig } from "./config.js";

/** One change `coursesync site ...` makes to coursesync.yaml. */
export type ConfigEdit =
  | { op: "add-site"; name: string; url: string }
  | { op: "remove-site"; name: string }
  | { op: "set-default"; name: string }
  | { op: "set-ids"; name: string }
  | { op: "set-url"; name: string; url: string };

/** A span of the file's text to replace: everything outside it stays byte for byte. */
interface Splice {
  start: number;
  end: number;
  text: string;
}

/** The offset where the line holding `offset` starts. */
function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/**
 * Where an entry of a block mapping ends: after the line its value ends on, and the comment
 * lines indented deeper than its key that follow (they belong to it). A blank line, or a
 * comment at the key's column or less, heads what comes next and stays with it.
 */
function entryEnd(text: string, valueEnd: number, column: number): number {
  const eol = text[valueEnd - 1] === "\n" ? valueEnd - 1 : text.indexOf("\n", valueEnd);
  let at = eol < 0 ? text.length : eol + 1;
  for (;;) {
    const next = text.indexOf("\n", at);
    const line = text.slice(at, next < 0 ? text.length : next + 1);
    const indent = line.length - line.trimStart().length;
    if (!(line.trimStart().startsWith("#") && indent > column)) return at;
    at += line.length;
  }
}

/** A scalar's text as YAML: plain when it stays a string that way, else double-quoted. */
function scalarText(value: string, inFlow: boolean): string {
  const plain = stringify(value, { lineWidth: 0 }).trimEnd();
  return inFlow || /^["'|>]/.test(plain) || plain.includes("\n") ? JSON.stringify(value) : plain;
}

/** Whether a node is written in flow style (`{a: 1}`, `[a]`). */
function isFlow(node: unknown): boolean {
  return isMap(node) && node.flow === true;
}

function rangeOf(node: Node | null | undefined): [number, number, number] | undefined {
  return node?.range ?? undefined;
}

/** A pair of a block mapping by key, or undefined. */
function pairOf(map: unknown, key: string): Pair<Node, Node> | undefined {
  if (!isMap(map)) return undefined;
  return map.items.find((item) => isScalar(item.key) && String(item.key.value) === key) as
    | Pair<Node, Node>
    | undefined;
}

/** Replace a scalar value in place, in the quotes it had, else as its context needs. */
function replaceScalar(value: Node | null, text: string, inFlow: boolean): Splice | undefined {
  const range = rangeOf(value);
  if (!(isScalar(value) && range)) return undefined;
  const quoted =
    value.type === "QUOTE_DOUBLE"
      ? JSON.stringify(text)
      : value.type === "QUOTE_SINGLE"
        ? `'${text.replaceAll("'", "''")}'`
        : scalarText(text, inFlow);
  return { start: range[0], end: range[1], text: quoted };
}

/** The column a block mapping's keys stand at, and the indent step its values use. */
function blockIndent(text: string, sites: Node): { column: number; step: number } | undefined {
  if (!isMap(sites) || sites.flow) return undefined;
  const first = sites.items[0] as Pair<Node, Node> | undefined;
  const keyStart = rangeOf(first?.key)?.[0];
  if (keyStart === undefined) return undefined;
  const column = keyStart - lineStart(text, keyStart);
  const inner = isMap(first?.value) && !first.value.flow ? first.value.items[0] : undefined;
  const innerStart = rangeOf(inner?.key as Node | undefined)?.[0];
  const step = innerStart === undefined ? 2 : innerStart - lineStart(text, innerStart) - column;
  return { column, step: step > 0 ? step : 2 };
}

/** The edit as a splice of the text, when the file's layout allows one (block style). */
function spliceFor(text: string, doc: Document, edit: ConfigEdit, config: Config): Splice[] | undefined {
  const defaultSite = config.site;
  const sites = doc.get("sites", true) as Node | undefined;
  const sitePair = pairOf(doc.contents, "site");
  const idsPair = pairOf(doc.contents, "ids");
  const topFlow = Boolean((doc.contents as { flow?: boolean }).flow);
  const entry = pairOf(sites, edit.name);
  const inFlow = isFlow(sites);
  switch (edit.op) {
    case "set-default": {
      // The files' ids stay the old default's: named before the default changes (`ids:`).
      if (sitePair) {
        const splice = replaceScalar(sitePair.value, edit.name, topFlow);
        const keepIds = config.idsSet
          ? []
          : !topFlow && lineAfter(text, sitePair, `ids: ${scalarText(config.ids, false)}\n`);
        return splice && keepIds ? [splice, ...keepIds] : undefined;
      }
      const first = insertTop(text, doc, "site", edit.name);
      const keepIds = config.idsSet ? [] : insertTop(text, doc, "ids", config.ids);
      return first && keepIds && [...keepIds, ...first];
    }
    case "set-ids": {
      if (idsPair) {
        const splice = replaceScalar(idsPair.value, edit.name, topFlow);
        return splice && [splice];
      }
      return insertTop(text, doc, "ids", edit.name);
    }
    case "set-url": {
      const url = pairOf(entry?.value, "url");
      const splice = url && replaceScalar(url.value, edit.url, inFlow || isFlow(entry?.value));
      return splice && [splice];
    }
    case "remove-site": {
      const key = rangeOf(entry?.key);
      const value = rangeOf(entry?.value);
      if (inFlow || !key || !value) return undefined;
      const start = lineStart(text, key[0]);
      return [{ start, end: entryEnd(text, value[1], key[0] - start), text: "" }];
    }
    case "add-site": {
      const indent = sites && blockIndent(text, sites);
      const last = isMap(sites) ? rangeOf(sites.items.at(-1)?.value as Node | undefined) : undefined;
      if (!(indent && last)) return undefined;
      const at = entryEnd(text, last[1], indent.column);
      const pad = " ".repeat(indent.column);
      const body = `${pad}${scalarText(edit.name, false)}:\n${pad}${" ".repeat(indent.step)}url: ${scalarText(edit.url, false)}\n`;
      const splices = [{ start: at, end: at, text: `${text[at - 1] === "\n" ? "" : "\n"}${body}` }];
      // A lone site needs no `site:`; two do. The one there was stays the default.
      if (sitePair) return splices;
      const first = insertTop(text, doc, "site", defaultSite);
      return first && [...first, ...splices];
    }
  }
}

/** A line right after a top-level block entry (and the comment lines that belong to it). */
function lineAfter(text: string, pair: Pair<Node, Node>, line: string): Splice[] | undefined {
  const key = rangeOf(pair.key);
  const value = rangeOf(pair.value);
  if (!key || !value || isFlow(pair.value)) return undefined;
  const at = entryEnd(text, value[1], key[0] - lineStart(text, key[0]));
  return [{ start: at, end: at, text: `${text[at - 1] === "\n" || at === 0 ? "" : "\n"}${line}` }];
}

/** A `<key>: <name>` line before the first key, below the comments that head the file. */
function insertTop(text: string, doc: Document, key: "site" | "ids", name: string): Splice[] | undefined {
  if (!isMap(doc.contents) || isFlow(doc.contents)) return undefined;
  const firstKey = rangeOf(doc.contents.items[0]?.key as Node | undefined)?.[0];
  if (firstKey === undefined) return undefined;
  const at = lineStart(text, firstKey);
  return [{ start: at, end: at, text: `${key}: ${scalarText(name, false)}\n` }];
}

/** The same edit through the yaml Document API, for files in flow style. */
function documentEdit(doc: Document, config: Config, edit: ConfigEdit): string {
  if (edit.op === "add-site" || edit.op === "set-url") {
    if (edit.op === "add-site" && !doc.has("site")) doc.set("site", config.site);
    doc.setIn(["sites", edit.name, "url"], edit.url);
  } else if (edit.op === "remove-site") doc.deleteIn(["sites", edit.name]);
  else if (edit.op === "set-ids") doc.set("ids", edit.name);
  else {
    if (!doc.has("ids")) doc.set("ids", config.ids);
    doc.set("site", edit.name);
  }
  return doc.toString({ lineWidth: 0 });
}

/** What the config says once the edit is made: the check the new text must pass. */
function expected(config: Config, edit: ConfigEdit): Pick<Config, "site" | "sites" | "ids"> {
  const sites = { ...config.sites };
  if (edit.op === "add-site" || edit.op === "set-url") sites[edit.name] = { url: edit.url };
  if (edit.op === "remove-site") delete sites[edit.name];
  const ids = edit.op === "set-ids" ? edit.name : config.ids;
  return { site: edit.op === "set-default" ? edit.name : config.site, sites, ids };
}

function sortedJson(sites: Config["sites"]): string {
  return JSON.stringify(sortKeys(sites));
}

/**
 * The text of coursesync.yaml with one edit made. Block-style files are edited in place (every
 * byte outside the edited lines kept: comments, their spacing, key order, quotes); other files
 * go through the yaml Document API, which keeps comments and key order. Either way the result
 * is validated, and must say what the edit meant.
 */
export function editConfigText(text: string, config: Config, edit: ConfigEdit, displayPath = CONFIG_FILE) {
  const doc = parseDocument(text, { keepSourceTokens: true });
  const splices = spliceFor(text, doc, edit, config);
  let next: string;
  if (splices) {
    next = text;
    for (const splice of [...splices].sort((a, b) => b.start - a.start)) {
      next = next.slice(0, splice.start) + splice.text + next.slice(splice.end);
    }
  } else {
    next = documentEdit(doc, config, edit);
  }
  const result = parseConfig(next, config.root, displayPath);
  const want = expected(config, edit);
  if (
    result.site !== want.site ||
    result.ids !== want.ids ||
    sortedJson(result.sites) !== sortedJson(want.sites)
  ) {
    throw new Error(`editing ${displayPath} (${edit.op} ${edit.name}) did not give the expected sites`);
  }
  return { text: next, config: result };
}

/** Make one edit to the tree's coursesync.yaml and write it atomically; returns the new config. */
export async function writeConfigEdit(config: Config, edit: ConfigEdit): Promise<Config> {
  const file = path.join(config.root, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw usageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const current = parseConfig(text, config.root, file);
  const { text: next, config: edited } = editConfigText(text, current, edit, file);
  await atomicWrite(file, next);
  return edited;
}
