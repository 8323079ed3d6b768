import { type SourceBlock, sourceBlocks } from "../markdown/source-blocks.js";
import { alignment } from "./three-way.js";

/** A text with some of its blocks' lines replaced (`spell` gives the new lines, or undefined). */
function replaceBlocks(
  text: string,
  blocks: SourceBlock[],
  spell: (i: number) => string[] | undefined,
): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let at = 0;
  blocks.forEach((block, i) => {
    const spelled = spell(i);
    if (spelled === undefined) return;
    for (; at < block.start; at++) out.push(lines[at]!);
    for (const line of spelled) out.push(line);
    at = block.end;
  });
  for (; at < lines.length; at++) out.push(lines[at]!);
  return out.join("\n");
}

/**
 * The base and the site's side of a Markdown merge with each top-level block the author left
 * as it renders spelled the author's way: then an author's spelling (`_em_` for `*em*`, `* `
 * bullets, a setext heading) is no change of theirs, and cannot touch a site edit of the same
 * block. Blocks align by the HTML they render to; undefined when the alignment gives up.
 */
export function inAuthorsSpelling(
  base: string,
  local: string,
  remote: string,
): { base: string; remote: string } | undefined {
  const [b, l, r] = [sourceBlocks(base), sourceBlocks(local), sourceBlocks(remote)];
  const html = (blocks: SourceBlock[]) => blocks.map((block) => block.html);
  const mine = alignment(html(b), html(l));
  const theirs = alignment(html(b), html(r));
  if (mine === undefined || theirs === undefined) return undefined;
  // For each base block, the lines of the local block that renders as it.
  const localLines = local.split("\n");
  const spelling: Array<string[] | undefined> = b.map(() => undefined);
  l.forEach((block, j) => {
    if (mine.kept[j]) spelling[mine.at[j]!] = localLines.slice(block.start, block.end);
  });
  return {
    base: replaceBlocks(base, b, (i) => spelling[i]),
    remote: replaceBlocks(remote, r, (k) => (theirs.kept[k] ? spelling[theirs.at[k]!] : undefined)),
  };
}
