import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import chromium from "@sparticuz/chromium";
import { type Browser, chromium as playwright } from "playwright-core";
import lockfile from "proper-lockfile";

// A real headless Chromium for browser tests: the build `@sparticuz/chromium` ships inside its
// npm package (installed by `npm ci`), unpacked once into the temp folder, driven by
// playwright-core. Nothing is downloaded at test time.

/**
 * Flags for a browser on a machine whose network is closed: no background requests of its own.
 * The package's own flags for serverless hosts are not taken: some turn web security off
 * (`--disable-web-security`), which the preview's tests need on.
 */
const FLAGS = [
  "--no-sandbox",
  "--no-zygote",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-domain-reliability",
  "--no-pings",
  "--use-gl=angle",
  "--use-angle=swiftshader",
];

/** The browser's executable, unpacked once (test files in parallel wait for the first). */
async function executable(): Promise<string> {
  const folder = path.join(tmpdir(), "coursesync-chromium");
  await mkdir(folder, { recursive: true });
  const release = await lockfile.lock(folder, { retries: { retries: 100, minTimeout: 50, maxTimeout: 500 } });
  try {
    return await chromium.executablePath();
  } finally {
    await release();
  }
}

/** Start a headless Chromium (close it when done). */
export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({ executablePath: await executable(), args: FLAGS, headless: true });
}
