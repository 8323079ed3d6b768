import { nodeFs, type TreeFs } from "../../src/tree/tree-fs.js";

/** An error as Node raises it when the OS refuses a write: a code and a syscall, and no path. */
export function osError(code: string, syscall = "write"): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: refused by the OS, ${syscall}`), { code, syscall, errno: -1 });
}

/**
 * Node's file system, except that a call `fails` picks (by name and first path) throws the
 * OS error `code` instead, as a full disk or a read-only mount would.
 */
export function failingFs(code: string, fails: (call: keyof TreeFs, file: string) => boolean): TreeFs {
  const wrap =
    <A extends [string, ...unknown[]]>(call: keyof TreeFs, real: (...args: A) => Promise<void>) =>
    async (...args: A): Promise<void> => {
      if (fails(call, args[0])) throw osError(code, call);
      await real(...args);
    };
  return {
    writeFile: wrap("writeFile", nodeFs.writeFile),
    appendFile: wrap("appendFile", nodeFs.appendFile),
    rename: wrap("rename", nodeFs.rename),
    mkdir: wrap("mkdir", nodeFs.mkdir),
    rm: wrap("rm", nodeFs.rm),
    rmdir: wrap("rmdir", nodeFs.rmdir),
    readFile: nodeFs.readFile,
    readdir: nodeFs.readdir,
  };
}
