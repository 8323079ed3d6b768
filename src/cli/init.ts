import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { parseBaseUrl } from "../api/login-url.js";
import { CONFIG_FILE, SITE_NAME } from "../config/config.js";
import { usageError } from "../errors.js";
import { stringifyYamlFields } from "../tree/yaml-text.js";
import type { CliRun } from "./io.js";
import { globalsOf } from "./main.js";
import { Output } from "./output.js";

/** Lines init adds to .gitignore: the transient files; the snapshot itself is committed. */
export const GITIGNORE_BLOCK = `# coursesync: transient files (the snapshot .coursesync/<site>.json is committed)
.coursesync/*
!.coursesync/*.json
*.remote.md
course.remote.yaml
`;

/** Lines init adds to .gitattributes: no line-ending conversion of the mirrored files. */
export const GITATTRIBUTES_BLOCK = `# coursesync: keep the mirrored files byte-exact (no line-ending conversion)
coursesync.yaml -text
.coursesync/*.json -text
courses/** -text
events.ndjson -text
`;

/** The text of a fresh coursesync.yaml. */
export function configText(site: string, url: string): string {
  return `${stringifyYamlFields([
    ["site", site],
    ["sites", { [site]: { url } }],
    ["body", "markdown"],
    ["concurrency", 4],
  ])}# requests_per_second: 5   # optional cap on requests started per second
ignore: []
`;
}

async function appendBlock(file: string, block: string): Promise<"created" | "updated" | "unchanged"> {
  const firstLine = block.split("\n")[0] ?? "";
  if (!existsSync(file)) {
    await writeFile(file, block);
    return "created";
  }
  const current = await readFile(file, "utf8");
  if (current.includes(firstLine)) return "unchanged";
  await writeFile(file, `${current}${current === "" || current.endsWith("\n") ? "" : "\n"}\n${block}`);
  return "updated";
}

/** `coursesync init [dir] --url <api-base-url> [--site <name>]` */
export function registerInit(program: Command, run: CliRun): void {
  program
    .command("init")
    .description("start a tree: write coursesync.yaml, .gitignore and .gitattributes")
    .argument("[dir]", "the folder to set up (created if missing)", ".")
    .action(async (dir: string, _options: unknown, command: Command) => {
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
      if (!SITE_NAME.test(site)) throw usageError(`--site "${site}": use letters, digits, . _ - only`);
      const root = path.resolve(run.cwd, globals.dir ?? ".", dir);
      const configFile = path.join(root, CONFIG_FILE);
      if (existsSync(configFile)) {
        throw usageError(`${configFile} already exists`, "Edit it to add a site, or init another folder.");
      }
      await mkdir(root, { recursive: true });
      await writeFile(configFile, configText(site, url), { flag: "wx" });
      const ignore = await appendBlock(path.join(root, ".gitignore"), GITIGNORE_BLOCK);
      const attributes = await appendBlock(path.join(root, ".gitattributes"), GITATTRIBUTES_BLOCK);
      out.info(`Initialised ${root} for site "${site}" (${url}).`);
      out.info(`  ${CONFIG_FILE}: created; .gitignore: ${ignore}; .gitattributes: ${attributes}`);
      out.info("Next: `coursesync login`, then `coursesync pull`.");
    });
}
