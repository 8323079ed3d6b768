import { describe, expect, it } from "vitest";
import { BOT_IDENTITY, type GitResult, type GitRunner, Repo } from "../../src/sync/ci/git.js";

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
