import type { Command } from "commander";
import { ExitCode, usageError } from "../../errors.js";
import { isLoopback, startPreview } from "../../preview/server.js";
import { siteSnapshot } from "../../sync/state/site-snapshot.js";
import { COMMAND_LIST } from "../command-list.js";
import { connect } from "../context.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun } from "../io.js";
import { canOpenBrowser } from "../open-browser.js";
import { Output } from "../output.js";
import { knownTreePaths } from "../paths.js";
import { openTree } from "../tree-root.js";

interface PreviewFlags {
  port: string;
  host?: string;
  /** false with --no-open. */
  open?: boolean;
}

/** The port served when --port is not given. */
export const DEFAULT_PORT = 4400;

/** --port's value: a whole number from 0 (any free port) to 65535. */
function portFlag(value: string): number {
  const port = Number(value);
  if (!(/^\d+$/.test(value) && port <= 65_535)) {
    throw usageError(
      `--port must be a whole number from 0 to 65535, got "${value}"`,
      "For example: --port 4400, or --port 0 for any free port.",
    );
  }
  return port;
}

const EXAMPLES: Example[] = [
  {
    does: "see the tree as the site will get it, live as you save (Ctrl-C stops)",
    line: "coursesync preview",
  },
  {
    does: "one course, on another port, without opening a browser",
    line: "coursesync preview courses/web --port 8080 --no-open",
  },
  {
    does: "beside watch, in a second terminal: what you save shows here and goes to the site",
    line: "coursesync watch",
  },
];

const SAFETY = `
The preview only reads: it answers GET and HEAD, and sends nothing to the site. It serves
127.0.0.1 unless --host names another address, and answers only requests whose Host is the
address served. Chapter HTML is shown in a sandboxed frame that cannot run scripts.`;

/** `coursesync preview [paths...] [--port <n>] [--host <addr>] [--no-open]` */
export function registerPreview(program: Command, run: CliRun): void {
  program
    .command("preview")
    .description(COMMAND_LIST.preview.description)
    .argument("[paths...]", "show only these course folders or chapter files")
    .option("--port <n>", "the port to serve on (0: any free port)", String(DEFAULT_PORT))
    .option("--host <addr>", "the address to serve on (default 127.0.0.1; another lets others read the tree)")
    .option("--no-open", "do not open a browser (one opens only on a terminal with a display, never in CI)")
    .addHelpText("after", SAFETY)
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (paths: string[], flags: PreviewFlags, command: Command) => {
      const globals = globalsOf(command);
      const out = new Output(run, globals.quiet);
      const port = portFlag(flags.port);
      const tree = await openTree(run, globals);
      const loaded = await siteSnapshot(tree, globals);
      const { site, snapshot } = loaded;
      const rels = paths.length ? knownTreePaths(run, tree.root, paths, snapshot) : undefined;
      const preview = await startPreview({
        root: tree.root,
        config: tree.config,
        site: site.name,
        url: globals.url,
        paths: rels,
        loaded,
        port,
        host: flags.host,
        allowRemote: flags.host !== undefined,
        // The site is read only when a page asks to compare with it.
        connect: async () => (await connect(run, globals, tree.config)).client,
      });
      try {
        // The URL alone on the first line: what a script or a test reads.
        run.stdout.write(`${preview.url}\n`);
        out.info(
          `Previewing ${tree.root} against the last sync with site "${site.name}"; nothing is sent. Ctrl-C stops.`,
        );
        if (flags.host !== undefined && !isLoopback(flags.host)) {
          out.warn(`serving on ${flags.host}: anyone who can reach it can read the tree's content`);
        }
        if (
          flags.open !== false &&
          run.openBrowser &&
          canOpenBrowser(run.env, process.platform, Boolean(run.stdout.isTTY))
        ) {
          run.openBrowser(preview.url);
        }
        const signal = await run.interrupted;
        run.exitCode = Math.max(
          run.exitCode,
          signal === "SIGTERM" ? ExitCode.terminated : ExitCode.interrupted,
        );
      } finally {
        await preview.close();
      }
    });
}
