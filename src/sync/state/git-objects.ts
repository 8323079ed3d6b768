import { spawn } from "node:child_process";

// Reading blobs out of the git repository a tree sits in, by id: the texts the last sync wrote,
// for a clone without the content cache. Git is asked once per run for all of them
// (`git cat-file --batch`); any failure is a reason to fall back, never an error.

/** What reading blobs from git gave: the blobs found, and why the others are not there. */
export interface BlobsRead {
  blobs: Map<string, Buffer>;
  /** Why a blob asked for is missing (one reason for all: git could not be asked, or the clone is shallow). */
  missing?: string;
}

/** Reads blobs by id from the repository holding the tree. */
export type BlobReader = (ids: readonly string[]) => Promise<BlobsRead>;

/** What one run of git gave: its exit code (undefined when it could not start), output and words. */
interface Ran {
  code: number | undefined;
  stdout: Buffer;
  stderr: string;
  /** Why git could not start (not installed), when it could not. */
  failed?: string;
}

/** Run git in `cwd` with `input` on stdin; never rejects. */
function runGit(
  args: readonly string[],
  cwd: string,
  input: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Ran> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let stderr = "";
    let failed: string | undefined;
    const child = spawn("git", [...args], {
      cwd,
      env: { ...env, GIT_TERMINAL_PROMPT: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      failed =
        error.code === "ENOENT"
          ? "git is not installed (not on PATH)"
          : `git did not start: ${error.message}`;
    });
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.stdin.on("error", () => {}); // git gone before reading all: its exit code tells
    child.on("close", (code) =>
      resolve({
        code: failed ? undefined : (code ?? undefined),
        stdout: Buffer.concat(out),
        stderr,
        ...(failed ? { failed } : {}),
      }),
    );
    child.stdin.end(input);
  });
}

/** Parse `git cat-file --batch` output: `<id> blob <size>\n<bytes>\n` or `<id> missing\n` per id. */
export function parseBatch(out: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const newline = out.indexOf(10, at);
    if (newline < 0) break;
    const [id, type, size] = out.toString("latin1", at, newline).split(" ");
    at = newline + 1;
    if (size === undefined || id === undefined) continue; // `<id> missing` (or ambiguous)
    const length = Number(size);
    if (type === "blob") blobs.set(id, out.subarray(at, at + length));
    at += length + 1;
  }
  return blobs;
}

/**
 * A BlobReader over the git on PATH, for the repository holding `dir`. When blobs are missing,
 * it says why if it can tell: git is not installed, `dir` is in no repository, or the clone is
 * shallow (its history, and the older texts with it, were not fetched).
 */
export function gitBlobReader(
  dir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): BlobReader {
  return async (ids) => {
    const wanted = ids.filter((id) => /^[0-9a-f]{40}$/.test(id));
    if (wanted.length === 0) return { blobs: new Map() };
    const ran = await runGit(["cat-file", "--batch"], dir, `${wanted.join("\n")}\n`, env);
    if (ran.code !== 0) {
      const said = ran.failed ?? (ran.stderr.trim().split("\n")[0] || `git cat-file exited ${ran.code}`);
      const notRepo = /not a git repository/i.test(said);
      return { blobs: new Map(), missing: notRepo ? "the tree is not in a git repository" : said };
    }
    const blobs = parseBatch(ran.stdout);
    if (blobs.size === wanted.length) return { blobs };
    const shallow = await runGit(["rev-parse", "--is-shallow-repository"], dir, "", env);
    const isShallow = shallow.stdout.toString("utf8").trim() === "true";
    return {
      blobs,
      missing: isShallow
        ? "this clone is shallow and lacks the text the last sync wrote (fetch the history: fetch-depth: 0)"
        : "the text the last sync wrote is not in this repository (never committed, or pruned)",
    };
  };
}
