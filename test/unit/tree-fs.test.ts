import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CliIO } from "../../src/cli/io.js";
import { reportError } from "../../src/cli/main.js";
import { UserError } from "../../src/errors.js";
import { guardedFs, type TreeFs } from "../../src/tree/tree-fs.js";
import { failingFs, osError } from "../helpers/failing-fs.js";
import { fakeTime } from "../helpers/time.js";

const ROOT = path.resolve("/home/ann/site");
const at = (rel: string) => path.join(ROOT, ...rel.split("/"));

/** The error a call of a guarded file system whose every call fails with `code` ends with. */
async function failure(code: string, call: (fs: TreeFs) => Promise<void>): Promise<unknown> {
  return call(
    guardedFs(
      ROOT,
      failingFs(code, () => true),
    ),
  ).then(
    () => expect.unreachable("the call should fail"),
    (error: unknown) => error,
  );
}

describe("file-system failures the user can fix", () => {
  it.each([
    ["ENOSPC", "no space left on the device", "Free some space on that disk"],
    ["EDQUOT", "the disk quota is used up", "Free some space, or ask for a larger quota"],
    ["EACCES", "permission denied", "Make it and its folder writable for you"],
    ["EPERM", "operation not permitted", "Make it and its folder writable for you"],
    ["EROFS", "the file system is read-only", "Mount it writable, or work on a copy of the tree"],
    ["EMFILE", "too many open files", "Raise the limit of open files (e.g. `ulimit -n 4096`)"],
    ["ENFILE", "the system has too many open files", "Close some programs"],
  ])(
    "%s is a UserError naming the file in the tree, why, and what to do (exit 1)",
    async (code, why, todo) => {
      const error = await failure(code, (fs) =>
        fs.writeFile(at(`courses/web/01-intro.md.${process.pid}.7.tmp`), "x"),
      );
      expect(error).toBeInstanceOf(UserError);
      const user = error as UserError;
      expect(user.message).toBe(`cannot write courses/web/01-intro.md: ${why} (${code})`);
      expect(user.hint).toContain(todo);
      expect(user.hint).toContain(
        "what was done so far is kept, and running the command again finishes the rest.",
      );
      expect(user.exitCode).toBe(1);
    },
  );

  it("names what each call was doing, with paths relative to the tree", async () => {
    const message = async (call: (fs: TreeFs) => Promise<void>) =>
      ((await failure("ENOSPC", call)) as Error).message;
    expect(await message((fs) => fs.appendFile(at(".coursesync/production.journal"), "x"))).toBe(
      "cannot write .coursesync/production.journal: no space left on the device (ENOSPC)",
    );
    expect(
      await message((fs) =>
        fs.rename(at(`.coursesync/production.json.${process.pid}.2.tmp`), at(".coursesync/production.json")),
      ),
    ).toBe("cannot write .coursesync/production.json: no space left on the device (ENOSPC)");
    expect(await message((fs) => fs.rename(at("courses/web/01-a.md"), at("courses/go/01-a.md")))).toBe(
      "cannot move courses/web/01-a.md to courses/go/01-a.md: no space left on the device (ENOSPC)",
    );
    expect(await message((fs) => fs.mkdir(at("courses/go")))).toBe(
      "cannot make the folder courses/go: no space left on the device (ENOSPC)",
    );
    expect(await message((fs) => fs.rm(at("courses/web/01-a.md")))).toBe(
      "cannot remove courses/web/01-a.md: no space left on the device (ENOSPC)",
    );
  });

  it("leaves other failures as they are, for the caller to act on (a folder gone, a bug)", async () => {
    const gone = await failure("ENOENT", (fs) => fs.writeFile(at("courses/web/01-a.md"), "x"));
    expect(gone).not.toBeInstanceOf(UserError);
    expect((gone as NodeJS.ErrnoException).code).toBe("ENOENT");
    const bug = new TypeError("not a string");
    const base: TreeFs = { ...failingFs("ENOSPC", () => false), writeFile: () => Promise.reject(bug) };
    await expect(guardedFs(ROOT, base).writeFile(at("x"), "x")).rejects.toBe(bug);
  });

  it("is reported without a stack trace when it escapes with Node's own path (a read, the lock)", () => {
    const out: string[] = [];
    const time = fakeTime();
    const io: CliIO = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => out.push(text) },
      stdinIsTTY: false,
      env: {},
      cwd: ROOT,
      interrupted: new Promise(() => {}),
      prompts: { input: async () => "", password: async () => "", confirm: async () => false },
      sleep: time.sleep,
      now: time.now,
    };
    const error = Object.assign(osError("EACCES", "open"), { path: "/home/ann/site/courses/web/01-a.md" });
    expect(reportError(error, io)).toBe(1);
    expect(out.join("")).toBe(
      "coursesync: cannot open /home/ann/site/courses/web/01-a.md: permission denied (EACCES)\n" +
        "Make it and its folder writable for you (ls -l shows who owns them; chmod u+w changes it); " +
        "what was done so far is kept, and running the command again finishes the rest.\n",
    );
  });
});
