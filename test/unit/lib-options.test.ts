import { describe, expect, it } from "vitest";
import { commandLine } from "../../src/lib/options.js";

describe("the library's options as their command's flags", () => {
  it("become the flags of the command, with --json, and paths after --", () => {
    expect(
      commandLine("pull", {
        dir: "tree",
        site: "staging",
        dryRun: true,
        theirs: false,
        markers: false,
        only: ["courses/a/**", "courses/b/**"],
        maxDelete: 0,
        paths: ["-odd-name"],
        token: "secret",
        onProgress: () => {},
      }),
    ).toEqual([
      "--dir",
      "tree",
      "--site",
      "staging",
      "pull",
      "--dry-run",
      "--no-markers",
      "--only",
      "courses/a/**",
      "--only",
      "courses/b/**",
      "--max-delete",
      "0",
      "--json",
      "--",
      "-odd-name",
    ]);
    expect(commandLine("restore", { yes: true, delete: true, url: "http://x/api/v1" })).toEqual([
      "--url",
      "http://x/api/v1",
      "restore",
      "--yes",
      "--delete",
      "--json",
      "--",
    ]);
  });

  it("leave credentials out of the command line", () => {
    expect(commandLine("push", { token: "t", email: "e", password: "p" })).toEqual(["push", "--json", "--"]);
  });

  it("refuse an unknown option or a value of the wrong type, naming it and listing the options", () => {
    expect(() => commandLine("status", { token: "t" })).toThrow('status: unknown option "token"');
    expect(() => commandLine("push", { yes: "yes" })).toThrow(
      'push: option "yes" must be true or false, not "yes"',
    );
    expect(() => commandLine("pull", { only: "courses/**" })).toThrow(/must be an array of strings/);
    expect(() => commandLine("pull", { dir: "" })).toThrow(/option "dir" must be a string, not ""/);
    try {
      commandLine("check", { fix: true });
    } catch (error) {
      expect(error).toMatchObject({
        exitCode: 2,
        hint: "The options of check() are: dir, site, url, env, onProgress, signal, paths.",
      });
    }
    expect.assertions(5);
  });
});
