import type { Command } from "commander";
import { CONFIG_FILE, resolveSite } from "../../config/config.js";
import { writeConfigEdit } from "../../config/edit.js";
import { ExitCode, UserError, usageError } from "../../errors.js";
import { guardIdsSite } from "../../sync/state/ids-owner.js";
import { acquireLock } from "../../sync/state/lock.js";
import { unfinishedMove } from "../../sync/state/move-ids-journal.js";
import { moveIds } from "../../sync/state/move-ids-run.js";
import { unfinishedWrites } from "../../sync/state/sites.js";
import { counted } from "../../util/words.js";
import { globalsOf } from "../globals.js";
import { type Example, examplesText } from "../help.js";
import type { CliRun, GlobalOptions } from "../io.js";
import { Output } from "../output.js";
import { openTree } from "../tree-root.js";

const HELP = `
The ids in the files belong to one site (ids: in coursesync.yaml); every other site's snapshot
maps them to its own. move-ids makes another site's ids the files' own: every record must be on
that site and known to its snapshot (push --site <name>, then pull --site <name>). All of it
moves or nothing does; a run cut short is finished by running it again.`;

const EXAMPLES: Example[] = [
  { does: "see what would move", line: "coursesync site move-ids staging --dry-run" },
  {
    does: "move the files' ids to staging's (then production may be removed)",
    line: "coursesync site move-ids staging --yes",
  },
];

/** Ask before the move: on a terminal; elsewhere --yes is needed (exit 3). */
async function confirmMove(run: CliRun, question: string, name: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!run.stdinIsTTY) {
    throw new UserError("moving the files' ids needs confirmation, and there is no terminal to ask", {
      hint: `Nothing was changed. Run again with --yes: coursesync site move-ids ${name} --yes`,
      exitCode: ExitCode.stopped,
    });
  }
  if (!(await run.prompts.confirm(question)))
    throw new UserError("nothing was moved", { exitCode: ExitCode.stopped });
}

/** `coursesync site move-ids <name> [--yes] [--dry-run]` */
async function moveIdsCommand(
  run: CliRun,
  globals: GlobalOptions,
  name: string,
  flags: { yes?: boolean; dryRun?: boolean },
): Promise<void> {
  const out = new Output(run, globals.quiet);
  const tree = await openTree(run, globals);
  resolveSite(tree.config, { site: name });
  const from = tree.config.ids;
  const sites = Object.keys(tree.config.sites);
  const releases: Array<() => Promise<void>> = [];
  try {
    for (const site of sites) releases.push(await acquireLock(tree.root, site, "site move-ids"));
    const options = {
      root: tree.root,
      from,
      to: name,
      sites,
      ignore: tree.config.ignore,
      setIds: async (site: string) => {
        await writeConfigEdit(tree.config, { op: "set-ids", name: site });
      },
    };
    const resuming = (await unfinishedMove(tree.root)) !== undefined;
    if (!resuming) {
      if (from === name) {
        out.result(`The files already carry the ids of "${name}"; nothing to do.`);
        return;
      }
      await guardIdsSite(tree.root, sites, from);
      for (const site of sites) {
        if ((await unfinishedWrites(tree.root, site)) > 0)
          throw new UserError(
            `a push to "${site}" did not finish (its journal holds writes); nothing was changed`,
            {
              hint: `Finish it first: coursesync push --site ${site}`,
              exitCode: ExitCode.stopped,
            },
          );
      }
    }
    const finishing = await moveIds({ ...options, dryRun: true });
    const what = `${counted(finishing.files, "file")}' ids from "${finishing.resumed ? "the old site" : from}" to "${name}", and the snapshots of ${finishing.sites.map((s) => `"${s}"`).join(", ")}`;
    if (flags.dryRun) {
      out.result(`Would move ${what}. Nothing was changed (--dry-run).`);
      return;
    }
    if (!finishing.resumed) await confirmMove(run, `Move ${what}?`, name, flags.yes === true);
    const done = await moveIds(options);
    out.result(
      `${done.resumed ? "Finished the move cut short: " : "Moved "}${what}. ${CONFIG_FILE} now says \`ids: ${name}\`.`,
    );
    out.info("Commit the change: the files, coursesync.yaml and .coursesync/ together.");
  } finally {
    for (const release of releases.reverse()) await release();
  }
}

/** Register `coursesync site move-ids` under the site command. */
export function registerMoveIds(site: Command, run: CliRun): void {
  site
    .command("move-ids")
    .description("make another site's ids the ones the files carry (all records, all at once)")
    .argument("<name>", "a site in coursesync.yaml whose snapshot maps every record")
    .option("-y, --yes", "move without asking (needed without a terminal)")
    .option("--dry-run", "say what would move; change nothing")
    .addHelpText("after", HELP)
    .addHelpText("after", examplesText(EXAMPLES))
    .action(async (name: string, flags: { yes?: boolean; dryRun?: boolean }, command: Command) => {
      const globals = globalsOf(command);
      if (globals.site !== undefined || globals.url !== undefined)
        throw usageError(
          "coursesync site move-ids takes the site's name as an argument, not --site or --url",
        );
      await moveIdsCommand(run, globals, name, flags);
    });
}
