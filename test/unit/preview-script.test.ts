import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { PREVIEW_SCRIPT } from "../../src/preview/assets/script.js";

describe("the preview's page script", () => {
  it("is a script that parses, small, using the page's stable hooks", () => {
    expect(() => new Script(PREVIEW_SCRIPT)).not.toThrow();
    expect(PREVIEW_SCRIPT.length).toBeLessThan(4000);
    for (const hook of ['"/events"', '"[data-watch]"', '"fragment"', '"live-status"', '"preview:updated"'])
      expect(PREVIEW_SCRIPT).toContain(hook);
  });
});
