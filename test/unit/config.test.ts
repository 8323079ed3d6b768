import { stat } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { configText } from "../../src/cli/commands/init.js";
import { parseConfig, resolveSite } from "../../src/config/config.js";
import { CredentialStore } from "../../src/config/credentials.js";
import { UserError } from "../../src/errors.js";
import { cleanupTestdirs, testdir } from "../helpers/testdir.js";

afterEach(cleanupTestdirs);

function configError(text: string): UserError {
  try {
    parseConfig(text, "/tree");
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error("expected a config error");
}

describe("coursesync.yaml", () => {
  it("reads what init writes, with defaults", () => {
    const config = parseConfig(configText("production", "https://academy.example.com/api/v1"), "/tree");
    expect(config).toEqual({
      root: "/tree",
      site: "production",
      ids: "production",
      idsSet: false,
      sites: { production: { url: "https://academy.example.com/api/v1" } },
      body: "markdown",
      concurrency: 4,
      requestsPerSecond: undefined,
      ignore: [],
      limits: { title_chars: 1000, excerpt_chars: 10000, body_bytes: 5000000 },
      preview: {},
    });
  });

  it("reads preview: a stylesheet of the tree or at a URL, and the site's address", () => {
    const base = "sites:\n  a:\n    url: https://x.test/api/v1\n";
    expect(
      parseConfig(
        `${base}preview:\n  stylesheet: styles/site.css\n  site_url: https://school.example\n`,
        "/t",
      ).preview,
    ).toEqual({ stylesheet: "styles/site.css", siteUrl: "https://school.example" });
    expect(
      parseConfig(`${base}preview:\n  stylesheet: https://cdn.example/site.css\n`, "/t").preview,
    ).toEqual({
      stylesheet: "https://cdn.example/site.css",
    });
  });

  it("reads limits: each one set replaces its default, the others stay", () => {
    const config = parseConfig(
      "sites:\n  a:\n    url: https://x.test/api/v1\nlimits:\n  body_bytes: 20000000\n  title_chars: 255\n",
      "/tree",
    );
    expect(config.limits).toEqual({ title_chars: 255, excerpt_chars: 10000, body_bytes: 20000000 });
  });

  it("takes the only site as the default and reads every option", () => {
    const config = parseConfig(
      "sites:\n  staging:\n    url: http://localhost:3000/school/api/v1/\nbody: html\nconcurrency: 8\nrequests_per_second: 2.5\nignore: ['drafts/**']\n",
      "/tree",
    );
    expect(config.site).toBe("staging");
    expect(config.sites.staging?.url).toBe("http://localhost:3000/school/api/v1");
    expect(config).toMatchObject({
      body: "html",
      concurrency: 8,
      requestsPerSecond: 2.5,
      ignore: ["drafts/**"],
    });
  });

  it.each([
    ["sites:\n  a:\n    url: [\n", /coursesync\.yaml:\d+: YAML does not parse/],
    [
      "site: a\nsites:\n  a:\n    url: https://x.test/api/v1\ncolour: red\n",
      /coursesync\.yaml:5: unknown key "colour"/,
    ],
    ["sites:\n  a:\n    url: https://x.test/api/v2\n", /coursesync\.yaml:3: .*does not end in \/api\/v1/],
    ["sites:\n  a:\n    url: ftp://x.test/api/v1\n", /coursesync\.yaml:3: .*must use http or https/],
    ["sites:\n  a: {}\n", /coursesync\.yaml:2: site "a" needs a url/],
    [
      "site: b\nsites:\n  a:\n    url: https://x.test/api/v1\n",
      /coursesync\.yaml:1: default site "b" is not under sites/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nbody: rtf\n",
      /coursesync\.yaml:4: body must be markdown or html/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nconcurrency: 0\n",
      /coursesync\.yaml:4: concurrency must be/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nrequests_per_second: -1\n",
      /:4: requests_per_second must be/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nrequests_per_second: .inf\n",
      /coursesync\.yaml:4: requests_per_second must be a number from 0\.1 to 10000, not Infinity/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nrequests_per_second: 0.0001\n",
      /coursesync\.yaml:4: requests_per_second must be a number from 0\.1 to 10000, not 0\.0001/,
    ],
    ["- a\n- b\n", /coursesync\.yaml:1: expected a mapping/],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\npreview:\n  site_url: school.example\n",
      /coursesync\.yaml:5: preview\.site_url must be an http or https address, not "school\.example"/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\npreview:\n  stylesheet: ../outside.css\n",
      /coursesync\.yaml:5: preview\.stylesheet must be a file of the tree or an http\(s\) URL/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\npreview:\n  theme: dark\n",
      /coursesync\.yaml:5: unknown preview key "theme"/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nlimits: 5\n",
      /coursesync\.yaml:4: limits must map limit names to numbers/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nlimits:\n  body: 10\n",
      /coursesync\.yaml:5: unknown limit "body"/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nlimits:\n  title_chars: 0\n",
      /coursesync\.yaml:5: limits\.title_chars must be a whole number of 1 or more, not 0/,
    ],
    [
      "sites:\n  a:\n    url: https://x.test/api/v1\nlimits:\n  body_bytes: 5MB\n",
      /coursesync\.yaml:5: limits\.body_bytes must be a whole number of 1 or more, not "5MB"/,
    ],
  ])("rejects %j with the file, line and exit 2", (text, message) => {
    const error = configError(text);
    expect(error.message).toMatch(message);
    expect(error.exitCode).toBe(2);
  });

  it("lets --url override the config and works without one", () => {
    const config = parseConfig(configText("production", "https://a.test/api/v1"), "/tree");
    expect(resolveSite(config, {})).toEqual({ name: "production", url: "https://a.test/api/v1" });
    expect(resolveSite(config, { url: "https://b.test/x/api/v1" }).url).toBe("https://b.test/x/api/v1");
    expect(resolveSite(undefined, { url: "https://b.test/api/v1" }).url).toBe("https://b.test/api/v1");
    expect(() => resolveSite(undefined, {})).toThrow(/no coursesync\.yaml/);
    expect(() => resolveSite(config, { site: "nope" })).toThrow(/site "nope" is not in coursesync\.yaml/);
  });

  it.each(["../../escape", "", "a/b", ".hidden", "..", "a\\b"])(
    "refuses the site name %j, with --url too (it names files under .coursesync/)",
    (site) => {
      const config = parseConfig(configText("production", "https://a.test/api/v1"), "/tree");
      for (const c of [config, undefined])
        expect(() => resolveSite(c, { site, url: "https://b.test/api/v1" })).toThrow(
          /a site name holds only/,
        );
    },
  );
});

describe("the token store", () => {
  it("keeps tokens per site in a 0600 file and forgets them on delete", async () => {
    const dir = await testdir();
    const store = new CredentialStore(`${dir}/config`);
    expect(await store.get("https://a.test/api/v1")).toBeUndefined();
    await store.set("https://a.test/api/v1/", { token: "t-a", email: "a@x.test", saved_at: "now" });
    await store.set("https://b.test/api/v1", { token: "t-b", saved_at: "now" });
    expect((await store.get("https://a.test/api/v1"))?.token).toBe("t-a");
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect(await store.delete("https://a.test/api/v1")).toBe(true);
    expect(await store.delete("https://a.test/api/v1")).toBe(false);
    expect((await store.get("https://b.test/api/v1"))?.token).toBe("t-b");
  });
});
