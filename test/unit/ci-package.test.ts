import { describe, expect, it } from "vitest";
import { gitignoreWith, lockState, pinnedPackageJson, pinnedSpec } from "../../src/ci/package.js";
import { UserError } from "../../src/errors.js";

describe("what `ci github` and `ci gitlab` pin coursesync to", () => {
  it("takes an exact version or a tarball in the repository", () => {
    for (const spec of [
      "0.1.0",
      "1.2.3-rc.1",
      "file:vendor/coursesync-0.1.0.tgz",
      "file:coursesync-0.1.0.tgz",
    ])
      expect(pinnedSpec(spec)).toBe(spec);
  });

  it("refuses what could install another version, saying what to give", () => {
    for (const spec of [
      "^0.1.0",
      "~0.1.0",
      "latest",
      "*",
      "0.1",
      "file:/abs/c.tgz",
      "file:../c.tgz",
      "https://x/c.tgz",
    ]) {
      let error: unknown;
      try {
        pinnedSpec(spec);
      } catch (caught) {
        error = caught;
      }
      expect(error, spec).toBeInstanceOf(UserError);
      expect((error as UserError).exitCode).toBe(2);
      expect((error as UserError).hint).toContain("file:vendor/coursesync-0.1.0.tgz");
    }
  });
});

describe("package.json", () => {
  it("is written private, with coursesync as a devDependency at the exact spec", () => {
    const text = pinnedPackageJson(undefined, "0.1.0");
    expect(JSON.parse(String(text))).toMatchObject({
      private: true,
      devDependencies: { coursesync: "0.1.0" },
    });
    expect(text?.endsWith("}\n")).toBe(true);
  });

  it("of the project's own keeps everything else, its indentation, and where coursesync was listed", () => {
    const own =
      '{\n    "name": "docs",\n    "scripts": { "build": "x" },\n    "devDependencies": { "vite": "5.0.0" }\n}\n';
    const text = String(pinnedPackageJson(own, "file:vendor/coursesync-0.1.0.tgz"));
    expect(JSON.parse(text)).toEqual({
      name: "docs",
      scripts: { build: "x" },
      devDependencies: { vite: "5.0.0", coursesync: "file:vendor/coursesync-0.1.0.tgz" },
    });
    expect(text).toMatch(/^\{\n {4}"name"/);
    const inDeps = '{\n  "dependencies": { "coursesync": "0.0.9" }\n}\n';
    expect(JSON.parse(String(pinnedPackageJson(inDeps, "0.1.0")))).toEqual({
      dependencies: { coursesync: "0.1.0" },
    });
    // Already so: nothing to write.
    expect(pinnedPackageJson(text, "file:vendor/coursesync-0.1.0.tgz")).toBeUndefined();
  });

  it("that is not JSON is a usage error naming it", () => {
    expect(() => pinnedPackageJson("{ nope", "0.1.0")).toThrow(
      /package\.json at the repository's top is not valid JSON/,
    );
  });
});

describe("the lockfile and .gitignore", () => {
  const lock = (entry: object) => JSON.stringify({ packages: { "node_modules/coursesync": entry } });

  it("tells a lockfile that locks the pinned coursesync from a missing or stale one", () => {
    expect(lockState(undefined, "0.1.0")).toBe("missing");
    expect(lockState(lock({ version: "0.1.0", integrity: "sha512-x" }), "0.1.0")).toBe("current");
    expect(lockState(lock({ version: "0.0.9", integrity: "sha512-x" }), "0.1.0")).toBe("stale");
    const tarball = "file:vendor/coursesync-0.1.0.tgz";
    expect(lockState(lock({ version: "0.1.0", resolved: tarball, integrity: "sha512-x" }), tarball)).toBe(
      "current",
    );
    expect(lockState(lock({ version: "0.1.0", integrity: "sha512-x" }), tarball)).toBe("stale");
    expect(lockState("{", "0.1.0")).toBe("stale");
  });

  it("keeps the install out of git, adding only what is missing", () => {
    expect(gitignoreWith(undefined, ["node_modules/"])).toMatch(/\nnode_modules\/\n$/);
    expect(gitignoreWith("dist\n/node_modules\n", ["node_modules/"])).toBeUndefined();
    expect(gitignoreWith("dist", ["node_modules/", ".npm/"])).toMatch(
      /^dist\n# .*\nnode_modules\/\n\.npm\/\n$/,
    );
  });
});
