import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The package's root folder: two levels above this module, in the sources (src/cli/), the
 * compiled modules (dist/cli/) and the bundled command (dist/bin/) alike.
 */
const PACKAGE_ROOT: URL = new URL("../../", import.meta.url);

/** A path in the package, from its root (`sample-site`, `package.json`). */
export function packagePath(relative: string): string {
  return fileURLToPath(new URL(relative, PACKAGE_ROOT));
}

/** The package version, read once from its package.json. */
export const VERSION: string = (
  JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string }
).version;
