import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { parseBaseUrl, redactUrl } from "../../api/login-url.js";
import { probeSite } from "../../api/probe.js";
import { CONFIG_FILE, validSiteName } from "../../config/config.js";
import { usageError } from "../../errors.js";
import { FOLDER_ATTRIBUTES, FOLDER_IGNORE_LINES, unignoreFolders } from "../../sync/state/git-files.js";
import { jsonSchemas, schemaText } from "../../tree/json-schema.js";
import { CONFLICT_COPY_PATTERNS, COURSES_DIR } from "../../tree/layout.js";
import { stringifyYamlFields } from "../../tree/yaml-text.js";
import { COMMAND_LIST } from "../command-list.js";
import { globalsOf } from "../globals.js";
import { EXAMPLE_URL, type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { Output } from "../output.js";

/** Where init writes the JSON Schemas editors validate the tree's files with (committed). */
const SCHEMAS_DIR = ".coursesync/schemas";

/** The line of init's .gitignore block that keeps the schemas committed. */
const SCHEMAS_UNIGNORED = `!${SCHEMAS_DIR}/`;

/** Lines init adds to .gitignore: the transient files; the snapshot itself is committed. */
export const GITIGNORE_BLOCK = `# coursesync: transient files (the snapshot folders .coursesync/<site>/ are committed)
.coursesync/*
!.coursesync/*.json
${FOLDER_IGNORE_LINES.join("\n")}
${SCHEMAS_UNIGNORED}
${CONFLICT_COPY_PATTERNS.join("\n")}
`;

/** Lines init adds to .gitattributes: no line-ending conversion of the mirrored files. */
const GITATTRIBUTES_BLOCK = `# coursesync: keep the mirrored files byte-exact (no line-ending conversion)
coursesync.yaml -text
.coursesync/*.json -text
${FOLDER_ATTRIBUTES}
${COURSES_DIR}/** -text
events.ndjson -text
`;

/** The text of a fresh coursesync.yaml: its first line points YAML editors at its schema. */
export function configText(site: string, url: string): string {
  return `# yaml-language-server: $schema=${SCHEMAS_DIR}/coursesync.schema.json
${stringifyYamlFields([
  ["site", site],
  ["sites", { [site]: { url } }],
  ["body", "markdown"],
  ["concurrency", 4],
])}# requests_per_second: 5   # optional cap on requests started per second
ignore: []
`;
}

/** VS Code's YAML extension: each course.yaml validated with its schema. */
const VSCODE_SETTINGS = `${JSON.stringify(
  { "yaml.schemas": { [`./${SCHEMAS_DIR}/course.schema.json`]: "courses/*/course.yaml" } },
  null,
  2,
)}\n`;

/**
 * Bring the tree's JSON Schemas up to this version of coursesync (they are generated files),
 * and unignore them and the snapshot folders in a .gitignore that an older init wrote. Returns
 * the files written.
 */
export async function refreshSchemas(root: string): Promise<string[]> {
  const written: string[] = [];
  await mkdir(path.join(root, SCHEMAS_DIR), { recursive: true });
  for (const [name, schema] of Object.entries(jsonSchemas())) {
    const file = path.join(root, SCHEMAS_DIR, name);
    const text = schemaText(schema);
    if (existsSync(file) && (await readFile(file, "utf8")) === text) continue;
    await writeFile(file, text);
    written.push(`${SCHEMAS_DIR}/${name}`);
  }
  const gitignore = path.join(root, ".gitignore");
  const ignored = existsSync(gitignore) ? await readFile(gitignore, "utf8") : "";
  const lines = ignored.split("\n");
  const at = lines.indexOf("!.coursesync/*.json");
  if (at >= 0 && !lines.includes(SCHEMAS_UNIGNORED)) {
    lines.splice(at + 1, 0, SCHEMAS_UNIGNORED);
    await writeFile(gitignore, lines.join("\n"));
    written.push(".gitignore");
  }
  for (const file of await unignoreFolders(root)) if (!written.includes(file)) written.push(file);
  return written;
}

/**
 * Write the JSON Schemas into the tree, and VS Code settings that use them unless the tree
 * has its own (those are left alone: said, with what to add).
 */
async function writeSchemas(root: string): Promise<"created" | "kept"> {
  await refreshSchemas(root);
  const settings = path.join(root, ".vscode", "settings.json");
  if (existsSync(settings)) return "kept";
  await mkdir(path.dirname(settings), { recursive: true });
  await writeFile(settings, VSCODE_SETTINGS);
  return "created";
}

async function appendBlock(file: string, block: string): Promise<"created" | "updated" | "unchanged"> {
  // The first line up to its parenthesis: an earlier version's block is the same block.
  const firstLine = (block.split("\n")[0] ?? "").split(" (")[0]!;
  if (!existsSync(file)) {
    await writeFile(file, block);
    return "created";
  }
  const current = await readFile(file, "utf8");
  if (current.includes(firstLine)) return "unchanged";
  await writeFile(file, `${current}${current === "" || current.endsWith("\n") ? "" : "\n"}\n${block}`);
  return "updated";
}

const EXAMPLES: Example[] = [
  {
    does: "start a tree in a new folder for the site's content",
    line: `coursesync init my-school --url ${EXAMPLE_URL}`,
  },
  {
    does: "in the current folder (a git checkout, say), naming the site",
    line: `coursesync init --url ${EXAMPLE_URL} --site academy`,
  },
];

/** `coursesync init [dir] --url <api-base-url> [--site <name>]` */
export function registerInit(program: Command, run: CliRun): void {
  program
    .command("init")
    .description(COMMAND_LIST.init.description)
    .argument("[dir]", "the folder to set up (created if missing)", ".")
    .option(
      "--no-check",
      "do not try the URL (init never needs the network; it only warns when the URL looks wrong)",
    )
    .usage("[dir] --url <api-base-url> [--site <name>] [--no-check]")
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (dir: string, options: { check: boolean }, command: Command) => {
      const globals = globalsOf(command);
      const out = new Output(run, globals.quiet);
      if (globals.url === undefined) {
        throw usageError(
          "init needs --url <api-base-url>",
          "Example: coursesync init --url https://academy.example.com/api/v1",
        );
      }
      const url = parseBaseUrl(globals.url).toString();
      const site = globals.site ?? "production";
      if (!validSiteName(site))
        throw usageError(`--site "${site}": use letters, digits, . _ - only (not cache or schemas)`);
      const root = path.resolve(run.cwd, globals.dir ?? ".", dir);
      const configFile = path.join(root, CONFIG_FILE);
      if (existsSync(configFile)) {
        throw usageError(`${configFile} already exists`, "Edit it to add a site, or init another folder.");
      }
      await mkdir(root, { recursive: true });
      await writeFile(configFile, configText(site, url), { flag: "wx" });
      const ignore = await appendBlock(path.join(root, ".gitignore"), GITIGNORE_BLOCK);
      const attributes = await appendBlock(path.join(root, ".gitattributes"), GITATTRIBUTES_BLOCK);
      const settings = await writeSchemas(root);
      out.info(`Initialised ${root} for site "${site}" (${url}).`);
      out.info(`  ${CONFIG_FILE}: created; .gitignore: ${ignore}; .gitattributes: ${attributes}`);
      out.info(`  ${SCHEMAS_DIR}/: JSON Schemas for editors; .vscode/settings.json: ${settings}`);
      if (settings === "kept") {
        out.info(
          `  To validate course.yaml files in VS Code, add to .vscode/settings.json:\n${VSCODE_SETTINGS}`,
        );
      }
      if (options.check) await checkUrl(url, run, out);
      out.info("Next: `coursesync login`, then `coursesync pull`.");
    });
}

/**
 * Try the URL once without a login (see probeSite) and say what answered. The files are
 * written either way: a tree may be set up offline, and the URL fixed in coursesync.yaml.
 */
async function checkUrl(url: string, run: CliRun, out: Output): Promise<void> {
  const probe = await probeSite(url, { now: run.now });
  if (probe.kind === "api") {
    out.info(
      `  ${url}: the API answered (${probe.status === 401 ? "it wants a login" : `${probe.status}`}).`,
    );
    return;
  }
  const lead =
    probe.kind === "unreachable"
      ? "could not be reached (offline?)"
      : probe.kind === "wrong-url"
        ? `looks wrong: fix it in ${CONFIG_FILE}`
        : "answered with an error";
  out.warn(
    `the files are written, but the URL ${lead}:\n  ${redactUrl(probe.error.message)}${probe.error.hint ? `\n  ${redactUrl(probe.error.hint)}` : ""}`,
  );
}
