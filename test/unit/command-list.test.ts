import { describe, expect, it } from "vitest";
import { COMMAND_LIST } from "../../src/cli/command-list.js";
import type { CliRun } from "../../src/cli/io.js";
import { buildProgram, main } from "../../src/cli/main.js";

/** A run whose output is kept. */
function io() {
  let out = "";
  let err = "";
  const run = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    exitCode: 0,
  } as unknown as CliRun;
  return { run, out: () => out, err: () => err };
}

describe("the top-level help made from the command list, no command loaded", () => {
  it("is the help of the program with every command registered, to the byte", async () => {
    const listed = await buildProgram(io().run, undefined, true);
    const whole = await buildProgram(io().run);
    expect(listed.helpInformation()).toBe(whole.helpInformation());
    expect(listed.commands.map((c) => c.name())).toEqual(Object.keys(COMMAND_LIST));
  });

  it("answers --version, --help, `help <command>` and a typo as the whole program does", async () => {
    const version = io();
    expect(await main(["--version"], version.run)).toBe(0);
    expect(version.out()).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = io();
    expect(await main(["help", "pull"], help.run)).toBe(0);
    expect(help.out()).toMatch(/^Usage: coursesync pull \[options\] \[paths\.\.\.\]\n/);
    const typo = io();
    expect(await main(["pul"], typo.run)).toBe(2);
    expect(typo.err()).toContain("unknown command 'pul'");
    expect(typo.err()).toContain("(Did you mean pull?)");
  });
});
