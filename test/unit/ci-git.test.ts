import { describe, expect, it } from "vitest";
import { BOT_IDENTITY, type GitResult, type GitRunner, Repo } from "../../src/ci/git.js";
import { type JobOptions, runJob } from "../../src/ci/job.js";
import { backupVerdict, publishVerdict } from "../../src/ci/verdicts.js";
import type { UserError } from "../../src/errors.js";

/** A git that answers from a script: each call's args joined by spaces → its result (default: success). */
function scriptedGit(answers: Record<string, Partial<GitResult>>): { git: GitRunner; calls: string[] } {
  const calls: string[] = [];
  const git: GitRunner = async (args) => {
    const line = args.join(" ");
    calls.push(line);
    const answer = Object.entries(answers).find(([start]) => line.startsWith(start))?.[1] ?? {};
    return { code: 0, stdout: "", stderr: "", ...answer };
  };
  return { git, calls };
}

const TOP = {
  "rev-parse --show-toplevel": { stdout: "/repo\n" },
  "rev-parse FETCH_HEAD": { stdout: "abc\n" },
};

describe("the git of coursesync ci", () => {
  it("a push refused for another reason than a moved branch fails quoting git, the remote's token redacted", async () => {
    const { git } = scriptedGit({
      ...TOP,
      push: {
        code: 1,
        stderr:
          "To https://oauth2:glpat-s3cr3t@gitlab.example.com/school/content.git\n ! [remote rejected] HEAD -> main (protected branch hook declined)\n",
      },
    });
    const repo = await Repo.at(git, "/repo/content");
    const error = await repo.push("origin", "main").then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("git push origin main failed (exit 1)");
    expect(error?.message).toContain("protected branch hook declined");
    expect(error?.message).toContain("https://[redacted]@gitlab.example.com/school/content.git");
    expect(error?.message).not.toContain("glpat-s3cr3t");
  });

  it("a push refused because the branch moved (its new tip is not in HEAD) is 'moved'", async () => {
    const { git, calls } = scriptedGit({
      ...TOP,
      push: { code: 1, stderr: " ! [rejected] HEAD -> main (fetch first)\n" },
      "merge-base --is-ancestor": { code: 1 },
    });
    const repo = await Repo.at(git, "/repo");
    expect(await repo.push("origin", "main")).toBe("moved");
    expect(calls).toContain("fetch --quiet origin refs/heads/main");
    expect(calls).toContain("merge-base --is-ancestor abc HEAD");
  });

  it("commits as the coursesync bot only when git has no identity", async () => {
    const bare = scriptedGit({ ...TOP, "config --get user.email": { code: 1 } });
    await (await Repo.at(bare.git, "/repo")).commit(".", "msg", {});
    expect(bare.calls).toContain(
      `-c user.name=${BOT_IDENTITY.name} -c user.email=${BOT_IDENTITY.email} commit --quiet --no-verify -m msg`,
    );
    const configured = scriptedGit({ ...TOP, "config --get user.email": { stdout: "me@example.com\n" } });
    await (await Repo.at(configured.git, "/repo")).commit(".", "msg", {});
    expect(configured.calls).toContain("commit --quiet --no-verify -m msg");
    const fromEnv = scriptedGit({ ...TOP, "config --get user.email": { code: 1 } });
    await (await Repo.at(fromEnv.git, "/repo")).commit(".", "msg", {
      GIT_AUTHOR_EMAIL: "a@example.com",
      GIT_COMMITTER_EMAIL: "a@example.com",
    });
    expect(fromEnv.calls).toContain("commit --quiet --no-verify -m msg");
  });
});

/**
 * A repository for runJob: the command run "writes" a file (status shows it until the commit),
 * pushes answer in turn from `pushes` (true: accepted; false: the branch moved), and every call
 * is recorded without its identity flags.
 */
function fakeRepo(pushes: boolean[]) {
  const calls: string[] = [];
  let dirty = false;
  const git: GitRunner = async (args) => {
    const line = args.join(" ").replace(/^-c \S+ -c \S+ /, "");
    calls.push(line);
    const ok = (stdout = "") => ({ code: 0, stdout, stderr: "" });
    if (line === "rev-parse --show-toplevel") return ok("/repo\n");
    if (line.startsWith("rev-parse")) return ok("abc\n");
    if (line.startsWith("status")) return ok(dirty ? " M a.md\n" : "");
    if (line.startsWith("commit")) dirty = false;
    if (line.startsWith("push")) return pushes.shift() ? ok() : { code: 1, stdout: "", stderr: "rejected" };
    if (line.startsWith("merge-base")) return { code: 1, stdout: "", stderr: "" };
    return ok();
  };
  return { git, calls, write: () => (dirty = true) };
}

/** Run a job whose command exits with the given codes in turn, "writing" a file each time. */
async function job(repo: ReturnType<typeof fakeRepo>, codes: number[], verdict: JobOptions["verdict"]) {
  const ran: string[] = [];
  const options: JobOptions = {
    git: repo.git,
    treeRoot: "/repo",
    remote: "origin",
    branch: "main",
    attempts: 2,
    command: ["pull"],
    runCommand: async (args) => {
      ran.push(args.join(" "));
      repo.write();
      return codes.shift() ?? 0;
    },
    verdict,
    snapshot: ".coursesync/production.json",
    message: "coursesync: backup of production [skip ci]",
    env: {},
    say: () => {},
  };
  const error = await runJob(options, { rel: ".", repo: await Repo.at(repo.git, "/repo") }).then(
    () => undefined,
    (e: unknown) => e as UserError,
  );
  const writes = repo.calls.filter((c) => /^(add|commit|push)\b/.test(c));
  return { ran, error, writes };
}

describe("a CI job (runJob) over a fake repository", () => {
  it("a backup whose pull left files out commits and pushes what it pulled, then fails (exit 1)", async () => {
    const { ran, error, writes } = await job(fakeRepo([true]), [1], backupVerdict);
    expect(ran).toEqual(["pull"]);
    expect(writes).toEqual([
      "add --all -- .",
      "commit --quiet --no-verify -m coursesync: backup of production [skip ci]",
      "push --quiet origin HEAD:refs/heads/main",
    ]);
    expect(error?.exitCode).toBe(1);
    expect(error?.message).toContain("what it pulled is committed");
  });

  it("a pull stopped with exit 3 and no record in conflict (its delete guard) commits nothing, and fails with exit 3", async () => {
    const { error, writes } = await job(fakeRepo([true]), [3], backupVerdict);
    expect(writes).toEqual([]);
    expect(error?.exitCode).toBe(3);
    expect(error?.message).toContain("nothing was committed");
  });

  it("a pull that met conflicts (exit 3) commits everything it pulled, then fails with exit 3 naming what waits", async () => {
    const held = ["courses/web/01-intro.md"];
    const { error, writes } = await job(fakeRepo([true]), [3], (code, changed) =>
      backupVerdict(code, changed, held),
    );
    expect(writes).toEqual([
      "add --all -- .",
      "commit --quiet --no-verify -m coursesync: backup of production [skip ci]",
      "push --quiet origin HEAD:refs/heads/main",
    ]);
    expect(error?.exitCode).toBe(3);
    expect(error?.message).toBe(
      "backup: 1 record waits on a conflict: courses/web/01-intro.md (see above); everything else pulled, with the events, is committed",
    );
  });

  it("a publish that held records (exit 3) commits what push sent, then fails with exit 3 naming them", async () => {
    const held = ["courses/web/01-intro.md", "courses/web"];
    const { error, writes } = await job(fakeRepo([true]), [3], (code) => publishVerdict(code, held));
    expect(writes.filter((c) => c.startsWith("commit"))).toHaveLength(1);
    expect(error?.exitCode).toBe(3);
    expect(error?.message).toContain(
      "publish held 2 records back, in conflict with the site or waiting on one: courses/web/01-intro.md, courses/web (see above)",
    );
  });

  it("a push refused because the branch moved runs the command again on the new tip, up to --attempts", async () => {
    const moved = await job(fakeRepo([false, true]), [0, 0], (code) => publishVerdict(code));
    expect(moved.error).toBeUndefined();
    expect(moved.ran).toEqual(["pull", "pull"]);
    expect(moved.writes.filter((c) => c.startsWith("push"))).toHaveLength(2);
    const always = await job(fakeRepo([false, false]), [0, 0], (code) => publishVerdict(code));
    expect(always.ran).toEqual(["pull", "pull"]);
    expect(always.error?.message).toBe("origin/main kept moving: gave up after 2 attempts");
  });
});
