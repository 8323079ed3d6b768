import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PROJECT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** README.md and every page of docs/, as paths from the project's top. */
export async function docFiles(): Promise<string[]> {
  const pages = (await readdir(path.join(PROJECT, "docs"))).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...pages.map((name) => `docs/${name}`)];
}

/**
 * The lines of the code block that follows `<!-- example: <name> ` in the README or a page of
 * docs/. Exactly one file holds each name; none, or more than one, is an error naming them.
 */
export async function docExample(name: string): Promise<string[]> {
  const marker = `<!-- example: ${name} `;
  const found: { file: string; text: string; at: number }[] = [];
  for (const file of await docFiles()) {
    const text = await readFile(path.join(PROJECT, file), "utf8");
    const at = text.indexOf(marker);
    if (at >= 0) found.push({ file, text, at });
  }
  if (found.length !== 1) {
    const where = found.length === 0 ? "none of README.md, docs/*.md" : found.map((f) => f.file).join(", ");
    throw new Error(`the example named ${name} must be in exactly one file; found in ${where}`);
  }
  const { text, at } = found[0]!;
  const fence = text.indexOf("\n", text.indexOf("```", at)) + 1;
  return text.slice(fence, text.indexOf("\n```", fence)).split("\n");
}
