import { describe, expect, it } from "vitest";
import { configText } from "../../src/cli/commands/init.js";
import { parseConfig } from "../../src/config/config.js";
import { type ConfigEdit, editConfigText } from "../../src/config/edit.js";

const PROD = "https://academy.example.com/api/v1";
const STAGING = "https://staging.example.com/api/v1";

/** A hand-edited coursesync.yaml: comments everywhere, aligned inline comments, quotes. */
const HAND = `# yaml-language-server: $schema=.coursesync/schemas/coursesync.schema.json
site: production        # the default site
sites:
  # the live school
  production:
    url: "${PROD}"   # keep quoted
    # nothing else here yet

# how bodies are kept
body: markdown
concurrency: 4
# requests_per_second: 5   # optional cap on requests started per second
ignore: []
`;

function edit(text: string, change: ConfigEdit): string {
  return editConfigText(text, parseConfig(text, "/tree"), change).text;
}

describe("editing coursesync.yaml", () => {
  it("adds a site below the others, every other byte kept", () => {
    const next = edit(HAND, { op: "add-site", name: "staging", url: STAGING });
    expect(next).toBe(
      HAND.replace(
        "    # nothing else here yet\n",
        `    # nothing else here yet\n  staging:\n    url: ${STAGING}\n`,
      ),
    );
  });

  it("adds a site to what init writes, keeping its schema line and comment", () => {
    const text = configText("production", PROD);
    const next = edit(text, { op: "add-site", name: "staging", url: STAGING });
    expect(next).toBe(
      text.replace(`    url: ${PROD}\n`, `    url: ${PROD}\n  staging:\n    url: ${STAGING}\n`),
    );
    expect(next.startsWith("# yaml-language-server: $schema=")).toBe(true);
  });

  it("follows the file's own indentation", () => {
    const text = `sites:\n    a:\n        url: ${PROD}\nsite: a\n`;
    expect(edit(text, { op: "add-site", name: "b", url: STAGING })).toBe(
      `sites:\n    a:\n        url: ${PROD}\n    b:\n        url: ${STAGING}\nsite: a\n`,
    );
  });

  it("names the lone site the default when a second one comes", () => {
    const text = `# head\nsites:\n  a:\n    url: ${PROD}\n`;
    const next = edit(text, { op: "add-site", name: "b", url: STAGING });
    expect(next).toBe(`# head\nsite: a\nsites:\n  a:\n    url: ${PROD}\n  b:\n    url: ${STAGING}\n`);
  });

  it("quotes a name YAML would read as something else than a string", () => {
    const next = edit(HAND, { op: "add-site", name: "true", url: STAGING });
    expect(next).toContain(`  "true":\n    url: ${STAGING}\n`);
    expect(parseConfig(next, "/tree").sites.true).toEqual({ url: STAGING });
  });

  it("removes a site's lines and nothing else", () => {
    const two = edit(HAND, { op: "add-site", name: "staging", url: STAGING });
    expect(edit(two, { op: "remove-site", name: "staging" })).toBe(HAND);
    const first = edit(edit(two, { op: "set-default", name: "staging" }), { op: "set-ids", name: "staging" });
    expect(edit(first, { op: "remove-site", name: "production" })).toBe(
      HAND.replace(/^site: production(.*)\n/m, "site: staging$1\nids: staging\n").replace(
        `  production:\n    url: "${PROD}"   # keep quoted\n    # nothing else here yet\n`,
        `  staging:\n    url: ${STAGING}\n`,
      ),
    );
  });

  it("changes the default and a URL in place, keeping the quotes and comments", () => {
    const two = edit(HAND, { op: "add-site", name: "staging", url: STAGING });
    const next = edit(two, { op: "set-default", name: "staging" });
    // The files' ids stay production's: said in the file before the default changes.
    expect(next).toBe(two.replace(/^site: production(.*)\n/m, "site: staging$1\nids: production\n"));
    const moved = "https://new.example.com/api/v1";
    expect(edit(next, { op: "set-url", name: "production", url: moved })).toBe(
      next.replace(`"${PROD}"`, `"${moved}"`),
    );
  });

  it("edits a file in flow style through the Document API", () => {
    const text = `site: a\nsites: {a: {url: "${PROD}"}} # all on one line\n`;
    const next = edit(text, { op: "add-site", name: "b", url: STAGING });
    const config = parseConfig(next, "/tree");
    expect(config.sites).toEqual({ a: { url: PROD }, b: { url: STAGING } });
    expect(next).toContain("# all on one line");
  });
});
