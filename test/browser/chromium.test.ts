import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser.js";

let browser: Browser;
let server: Server;
let url: string;

beforeAll(async () => {
  browser = await launchBrowser();
  server = createServer((request, response) => {
    if (request.url === "/csp") {
      response.setHeader("Content-Security-Policy", "script-src 'none'");
    }
    response.setHeader("Content-Type", "text/html; charset=utf-8");
    response.end(`<!doctype html><title>t</title><p id="out">static</p>
<script>document.getElementById("out").textContent = "script ran";</script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe("the test browser (the Chromium npm ci installs)", () => {
  it("renders a page and runs its script", async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/`);
    expect(await page.textContent("#out")).toBe("script ran");
    await page.close();
  });

  it("enforces a Content-Security-Policy", async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/csp`);
    expect(await page.textContent("#out")).toBe("static");
    await page.close();
  });
});
