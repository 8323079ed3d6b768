import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { docExample } from "../helpers/docs.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

const exec = promisify(execFile);
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * The environment of the commands run from the temp folder: the user's npm cache (every
 * dependency is in it), nothing of an npm run around the test, and a config folder of its own.
 */
function cleanEnv(dir: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const cache = process.env.npm_config_cache;
  return {
    ...env,
    ...(cache ? { npm_config_cache: cache } : {}),
    COURSESYNC_CONFIG_DIR: path.join(dir, "config"),
  };
}

/** A project of someone else's: starts the emulator, inits a tree with the CLI, pulls it with the library. */
const SCRIPT = `
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { CoursesyncError, pull } from "coursesync";
import { startEmulator } from "coursesync/emulator";

const emulator = await startEmulator({ port: 0 });
const dir = path.resolve("tree");
const bin = path.resolve("node_modules/.bin/coursesync");
await promisify(execFile)(bin, ["init", dir, "--url", emulator.url]);
const result = await pull({ dir, email: emulator.email, password: emulator.password });
const error = await pull({ dir, maxDelete: -1 }).catch((e) => e);
await emulator.close();
console.log(JSON.stringify({ result, typed: error instanceof CoursesyncError, exitCode: error.exitCode }));
`;

/** A TypeScript caller of the library and the emulator, checked against the installed declarations. */
const TYPED = `
import { CoursesyncError, type ProgressEvent, type PullJson, pull } from "coursesync";
import { startEmulator } from "coursesync/emulator";
const emulator = await startEmulator({ port: 0, seed: null, faults: { fail: 0 } });
const onProgress = (event: ProgressEvent) => (event.type === "write" ? event.done : 0);
const result: PullJson = await pull({ dir: "tree", onProgress, url: emulator.url });
const created: number = result.counts.created;
const failed = await pull({}).catch((error: unknown) => (error instanceof CoursesyncError ? error.exitCode : 1));
export { created, failed };
`;

/** Strict, with no @types/node and no skipLibCheck: the declarations stand on their own. */
const TSCONFIG = {
  compilerOptions: {
    module: "nodenext",
    target: "es2022",
    lib: ["es2023", "dom"],
    strict: true,
    noEmit: true,
    types: [],
  },
  files: ["typed.ts"],
};

/** The project packed once for the tests below (dist/ is built already: prepack's build is left out). */
interface Packed {
  tarball: string;
  filename: string;
  files: string[];
}
let packing: Promise<Packed> | undefined;
const packDirs: string[] = [];
afterAll(async () => {
  await Promise.all(packDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
function packed(): Promise<Packed> {
  packing ??= (async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "coursesync-pack-"));
    packDirs.push(dir);
    const out = await exec(NPM, ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: ROOT,
      env: cleanEnv(dir),
    });
    const [pack] = JSON.parse(out.stdout) as [{ filename: string; files: { path: string }[] }];
    return {
      tarball: path.join(dir, pack.filename),
      filename: pack.filename,
      files: pack.files.map((f) => f.path),
    };
  })();
  return packing;
}

describe("the packed tarball", () => {
  it("installs into an empty prefix offline and runs: the command, the emulator, the library", {
    timeout: 90_000,
  }, async () => {
    expect(existsSync(path.join(ROOT, "dist", "lib.js")), "run `npm run build` first").toBe(true);
    const dir = await testdir();
    const env = cleanEnv(dir);
    const { tarball, files } = await packed();
    expect(files.filter((f) => /^(test|bench|src|scripts|docs\/screenshots)\//.test(f))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "LICENSE",
        "docs/content-as-code.md",
        "dist/lib.js",
        "dist/lib.d.ts",
        "dist/emulator/index.d.ts",
        "dist/bin/coursesync.js",
      ]),
    );
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);

    const prefix = path.join(dir, "project");
    await exec(NPM, ["install", "--prefix", prefix, tarball, "--offline", "--no-audit", "--no-fund"], {
      cwd: dir,
      env,
    });
    const bin = path.join(prefix, "node_modules", ".bin", "coursesync");
    const version = await exec(bin, ["--version"], { cwd: dir, env });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

    await writeFile(path.join(prefix, "pull.mjs"), SCRIPT);
    const run = await exec(process.execPath, ["pull.mjs"], { cwd: prefix, env });
    const out = JSON.parse(run.stdout) as {
      result: Record<string, unknown>;
      typed: boolean;
      exitCode: number;
    };
    expect(out.result).toMatchObject({ command: "pull", dry_run: false, remote: { courses: 3 }, errors: [] });
    expect((out.result.counts as { created: number }).created).toBeGreaterThan(3);
    expect(out).toMatchObject({ typed: true, exitCode: 2 });
    expect(await readdir(path.join(prefix, "tree", "courses"))).toHaveLength(3);

    // The library example of docs/library.md, run as a user would run it, prints what the page shows.
    await copyFile(path.join(ROOT, "docs", "examples", "library.mjs"), path.join(prefix, "library.mjs"));
    const example = await exec(process.execPath, ["library.mjs"], { cwd: prefix, env });
    expect(example.stdout).toBe(`${(await docExample("library-output")).join("\n")}\n`);

    await writeFile(path.join(prefix, "typed.ts"), TYPED);
    await writeFile(path.join(prefix, "tsconfig.json"), JSON.stringify(TSCONFIG));
    await writeFile(path.join(prefix, "package.json"), JSON.stringify({ type: "module" }));
    const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const typed = await exec(process.execPath, [tsc, "-p", "."], { cwd: prefix, env }).catch(
      (e: { stdout: string }) => e,
    );
    expect(typed.stdout).toBe("");
  });

  it("installs globally as the README says, with no install script, and runs with npx without installing", {
    timeout: 90_000,
  }, async () => {
    expect(existsSync(path.join(ROOT, "dist", "lib.js")), "run `npm run build` first").toBe(true);
    const dir = await testdir();
    const env = cleanEnv(dir);
    const { tarball, filename } = await packed();
    await copyFile(tarball, path.join(dir, filename));
    // The Quick start names the tarball `npm pack` writes for this version.
    const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
    expect(readme).toContain(`npm install -g ./${filename}`);
    expect(readme).toContain(`npx ./${filename} --help`);

    // `npm install -g ./coursesync-<v>.tgz` into an empty global prefix; the command runs in any folder.
    const prefix = path.join(dir, "global");
    const elsewhere = path.join(dir, "elsewhere");
    await mkdir(elsewhere);
    const installed = await exec(
      NPM,
      ["install", "--global", "--prefix", prefix, `./${filename}`, "--offline", "--no-audit", "--no-fund"],
      { cwd: dir, env },
    );
    // Nothing to build or allow at install: the tarball holds the build (npm 11 warns of install scripts).
    expect(installed.stderr).not.toMatch(/install-scripts|prepare/);
    const bin = path.join(
      prefix,
      process.platform === "win32" ? "coursesync.cmd" : path.join("bin", "coursesync"),
    );
    const version = await exec(bin, ["--version"], { cwd: elsewhere, env });
    expect(version.stdout.trim()).toBe(
      JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")).version,
    );
    const status = await exec(bin, ["status"], { cwd: elsewhere, env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(status).toMatchObject({ code: 2, stderr: expect.stringContaining("coursesync init") });

    // `npx ./coursesync-<v>.tgz --help` (--yes: no terminal here to confirm the install).
    const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
    const npx = await exec(NPX, ["--yes", "--offline", `./${filename}`, "--help"], { cwd: dir, env });
    expect(npx.stdout).toMatch(/^Usage: coursesync /);
    expect(npx.stdout).toContain("pull");
  });
});
