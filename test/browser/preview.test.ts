import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser.js";
import { useEmulators } from "../helpers/emulator.js";
import { usePreviews } from "../helpers/preview.js";
import { type PulledSite, pulledSite, webAndGoSite } from "../helpers/site.js";
import { cleanupTestdirs } from "../helpers/testdir.js";

// The preview in a real headless Chromium: what a reader of the page sees and does.

const start = useEmulators();
const preview = usePreviews();
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
  await cleanupTestdirs();
});
afterAll(async () => {
  await browser?.close();
});

const INTRO = "courses/web/01-intro.md";

/** The few globals of the page the tests read inside it (the project is typed for Node, not the DOM). */
interface Win {
  document: {
    title: string;
    addEventListener(type: string, listener: (event: unknown) => void, options?: { once: boolean }): void;
    querySelectorAll(selector: string): { length: number };
    activeElement: { textContent: string | null } | null;
    documentElement: { scrollWidth: number };
  };
  scrollY: number;
  scrollTo(x: number, y: number): void;
  getComputedStyle(element: unknown): { color: string };
  kept?: string;
}

/** A pulled tree, its preview, and a browser page open at `at`, its live stream connected. */
async function opened(at: string, setup?: (s: PulledSite) => Promise<void>) {
  const s = await pulledSite(start, webAndGoSite());
  await setup?.(s);
  const p = await preview({ root: s.root });
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  pages.push(page);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(new URL(at, p.url).href);
  await page.locator("html[data-live=connected]").waitFor();
  return { s, p, page, errors, frame: page.frameLocator("#chapter-frame") };
}

describe("preview in a browser", () => {
  it("renders a chapter as the site gets it, inside its frame", async () => {
    const { page, frame, errors } = await opened(`/chapters/web/01-intro.md`);
    expect(await page.locator("h1").textContent()).toContain("Intro");
    expect(await frame.locator("p").allTextContents()).toEqual(["a", "b", "c"]);
    expect(errors).toEqual([]);
  });

  it("shows a saved edit without reloading the page, the scroll position kept", async () => {
    const { s, page, frame } = await opened(`/chapters/web/01-intro.md`, async (t) => {
      // A long chapter, so that the page scrolls.
      await t.replace(INTRO, "<p>c</p>", `<p>c</p>\n${"<p>more</p>\n".repeat(80)}`);
    });
    await page.setViewportSize({ width: 1000, height: 300 });
    await page.evaluate(() => {
      const win = globalThis as unknown as Win;
      win.kept = "the same page";
      win.scrollTo(0, 120);
    });
    const updated = page.evaluate(
      () =>
        new Promise((resolve) =>
          (globalThis as unknown as Win).document.addEventListener("preview:updated", resolve, {
            once: true,
          }),
        ),
    );
    await s.replace(INTRO, "<p>b</p>", "<p>b, edited</p>");
    await updated;
    expect(await frame.locator("p").nth(1).textContent()).toBe("b, edited");
    expect(await page.evaluate(() => (globalThis as unknown as Win).kept)).toBe("the same page");
    expect(await page.evaluate(() => (globalThis as unknown as Win).scrollY)).toBe(120);
    expect(await page.locator("#live-status").textContent()).toBe(`Updated: ${INTRO}`);
  });

  it("shows a file that stops parsing with its error in place, and recovers when it is fixed", async () => {
    const { s, page, frame } = await opened(`/chapters/web/01-intro.md`);
    // A save is not atomic: a look between its truncate and its write may show another problem
    // for a moment; the page settles on the file as saved, without a reload.
    await s.replace(INTRO, "ordinal: 1", "ordinal: one");
    const content = page.locator("#chapter-content");
    await page.locator(".problem", { hasText: "ordinal must be a whole number" }).waitFor();
    expect(await content.getAttribute("data-state")).toBe("invalid");
    expect(await page.locator('pre.file [data-kind="bad"]').textContent()).toContain("ordinal: one");
    await s.replace(INTRO, "ordinal: one", "ordinal: 1");
    await page.locator('#chapter-content:not([data-state="invalid"])').waitFor();
    expect(await frame.locator("p").first().textContent()).toBe("a");
  });

  it("runs no script of chapter HTML: neither in the preview's page nor in the chapter's frame", async () => {
    const { page, frame } = await opened(`/chapters/web/01-intro.md`, async (s) => {
      await s.replace(
        INTRO,
        "<p>a</p>",
        `<p id="a">a</p><script>document.getElementById("a").textContent = "ran"; parent.document.title = "taken";</script>` +
          `<img src="data:," onerror="parent.document.title = 'taken by onerror'">`,
      );
    });
    const title = await page.title();
    expect(title).toContain("Intro");
    expect(await frame.locator("#a").textContent()).toBe("a");
    expect(await page.title()).toBe(title);
    expect(
      await page.evaluate(() => (globalThis as unknown as Win).document.querySelectorAll("script").length),
    ).toBe(1);
  });

  it("shows an edit in the changes view, word by word", async () => {
    const { p, page } = await opened("/", async (t) => {
      await t.replace(INTRO, "<p>b</p>", "<p>b, edited</p>");
    });
    await page.getByRole("link", { name: "Intro" }).click();
    await page.locator("#diff-link").click();
    await page.waitForURL(new URL("/chapters/web/01-intro.md/diff", p.url).href);
    expect(await page.locator(".diff ins").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("edited")]),
    );
  });

  it("styles chapter content with the site's stylesheet (a file of the tree)", async () => {
    const { frame } = await opened(`/chapters/web/01-intro.md`, async (s) => {
      await mkdir(path.join(s.root, "styles"));
      await writeFile(path.join(s.root, "styles/site.css"), "p { color: rgb(102, 51, 153); }\n");
      await appendFile(path.join(s.root, "coursesync.yaml"), "preview:\n  stylesheet: styles/site.css\n");
    });
    const color = await frame
      .locator("p")
      .first()
      .evaluate((p) => (globalThis as unknown as Win).getComputedStyle(p).color);
    expect(color).toBe("rgb(102, 51, 153)");
  });

  it("is readable at 320 px: nothing wider than the screen, and the skip link is first for the keyboard", async () => {
    const { page } = await opened("/");
    await page.setViewportSize({ width: 320, height: 640 });
    expect(
      await page.evaluate(() => (globalThis as unknown as Win).document.documentElement.scrollWidth),
    ).toBeLessThanOrEqual(320);
    await page.keyboard.press("Tab");
    expect(
      await page.evaluate(() => (globalThis as unknown as Win).document.activeElement?.textContent),
    ).toBe("Skip to content");
    expect(await page.locator("main").count()).toBe(1);
    expect(await page.locator("h1").count()).toBe(1);
  });
});
