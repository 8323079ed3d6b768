// The two HTML corpora the body figures are measured on: the CommonMark spec's distinct outputs
// (with its → marks as the tabs they stand for) and the rich-text-editor snippets of
// test/fixtures/editor-html, one a file.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import spec from "commonmark-spec";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const fixtures = path.join(root, "test", "fixtures", "editor-html");

export const specCorpus = [...new Set(spec.tests.map((test) => test.html.replace(/→/g, "\t")))];
export const editorCorpus = readdirSync(fixtures)
  .filter((name) => name.endsWith(".html"))
  .sort()
  .map((name) => readFileSync(path.join(fixtures, name), "utf8"));
