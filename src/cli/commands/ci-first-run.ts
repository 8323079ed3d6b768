import type { PinnedInstall } from "../../ci/package.js";

/** What `ci github` and `ci gitlab` say must exist before the jobs' first run. */
export interface FirstRun {
  /** What package.json pins. */
  pinned: string;
  install: PinnedInstall;
  branch: string;
}

/** The install: the lockfile (and the tarball) the jobs' `npm ci` needs, committed. */
function installStep({ pinned, install }: FirstRun): string {
  const lock =
    install.lock === "current"
      ? "package-lock.json locks it: commit it with package.json"
      : `${install.lock === "stale" ? "package-lock.json locks another coursesync: run" : "Run"} \`npm install\` at the repository's top to write package-lock.json, and commit both`;
  const tarball = install.missingTarball
    ? ` First put the tarball at ${install.missingTarball} (\`npm pack\` in a copy of coursesync makes it) and commit it too.`
    : "";
  return `package.json pins coursesync ${pinned}. ${lock}: the jobs run \`npm ci\`, which installs only what the lockfile says, checked by its integrity hashes, and fails without it.${tarball}`;
}

/** The lines for `ci github`. */
export function githubFirstRun(first: FirstRun): string[] {
  return [
    "Before the first run:",
    `  1. ${installStep(first)}`,
    "  2. The repository secret COURSESYNC_TOKEN (`coursesync login --print-token | gh secret set COURSESYNC_TOKEN`), " +
      "or the secrets COURSESYNC_EMAIL and COURSESYNC_PASSWORD: publish and backup need them; check needs none.",
    `  3. Publish and backup commit the new ids and the snapshot back to ${first.branch} with the workflow's token: ` +
      `if ${first.branch} is protected, allow GitHub Actions to push to it (a bypass in the rule), else the commit-back is refused and the next publish has to adopt what this one created.`,
    "Then commit and push these files. See docs/content-as-code.md (in the package, and in its repository).",
  ];
}

/** The lines for `ci gitlab`. */
export function gitlabFirstRun(first: FirstRun): string[] {
  return [
    "Before the first run:",
    `  1. ${installStep(first)}`,
    "  2. The CI/CD variables (masked) COURSESYNC_TOKEN (or COURSESYNC_EMAIL and COURSESYNC_PASSWORD) and " +
      `COURSESYNC_GIT_TOKEN, a project access token with write_repository whose role may push to ${first.branch}.`,
    "  3. A pipeline schedule for the backup (Build > Pipeline schedules).",
    "Then commit and push these files. See docs/content-as-code.md (in the package, and in its repository).",
  ];
}
