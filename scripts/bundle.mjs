// Bundle the compiled command (dist/cli/bin.js, from `tsc`) and its dependencies into
// dist/bin/: the `coursesync` command people run. Node loads a few large files much faster than
// the hundreds of small modules the command and its dependencies are: a pull sent its first
// request about 100 ms sooner, and `status` on a small tree ended 40 ms sooner.
//
// Each command's module is still loaded only when it runs (code splitting keeps the dynamic
// imports). Entries beside the command: `main.js` and `heap.js` for the benchmarks, which run
// the command in their own process, and the Markdown converter's worker thread.
import { rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * got imports http2-wrapper (and with it node:http2) as it loads, but uses it only for a
 * request made with `http2: true`, which coursesync never makes: the command gets a stand-in
 * that loads it on first use. Every command that talks to a site loads got before its first
 * request; this takes http2-wrapper off that path.
 */
const lazyHttp2Wrapper = {
  name: "lazy-http2-wrapper",
  setup(build) {
    const namespace = "lazy-http2-wrapper";
    build.onResolve({ filter: /^http2-wrapper$/ }, (args) =>
      args.namespace === namespace
        ? undefined
        : { path: "http2-wrapper", namespace, pluginData: { resolveDir: args.resolveDir } },
    );
    build.onLoad({ filter: /.*/, namespace }, (args) => ({
      contents: [
        "let loaded;",
        'const load = () => (loaded ??= require("http2-wrapper"));',
        "export default new Proxy({}, { get: (_target, key) => load()[key] });",
      ].join("\n"),
      resolveDir: args.pluginData.resolveDir,
      loader: "js",
    }));
  },
};
/**
 * @sindresorhus/is (which got loads as it starts) makes two `Intl.ListFormat`s as it loads, for
 * the messages of failed assertions, which coursesync's requests never fail: the first Intl
 * object of a process loads the locale data, about 15-20 ms before any command that talks to a
 * site could send its first request. The bundle makes them on first use instead.
 */
const lazyListFormat = {
  name: "lazy-list-format",
  setup(build) {
    build.onLoad({ filter: /[\\/]@sindresorhus[\\/]is[\\/]distribution[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      let replaced = 0;
      const contents = source.replace(
        /^const (andFormatter|orFormatter) = (new Intl\.ListFormat\([^;]*\));$/gm,
        (_line, name, made) => {
          replaced++;
          return `let ${name}Made;\nconst ${name} = { format: (list) => (${name}Made ??= ${made}).format(list) };`;
        },
      );
      if (replaced !== 2) {
        throw new Error(
          `${args.path}: expected its two list formatters made as it loads (found ${replaced}); update lazyListFormat in scripts/bundle.mjs`,
        );
      }
      return { contents, loader: "js" };
    });
  },
};

const dist = path.join(root, "dist");
const outdir = path.join(dist, "bin");
rmSync(outdir, { recursive: true, force: true });

await build({
  entryPoints: {
    coursesync: path.join(dist, "cli", "bin.js"),
    main: path.join(dist, "cli", "main.js"),
    heap: path.join(dist, "cli", "heap.js"),
    // Found by its name beside the module that starts it (see tree/markdown/pool.ts).
    "convert-worker": path.join(dist, "tree", "markdown", "convert-worker.js"),
    // Likewise (see sync/pull/render-pool.ts).
    "render-worker": path.join(dist, "sync", "pull", "render-worker.js"),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  chunkNames: "chunk-[hash]",
  // Dependencies written as CommonJS call `require` and read `__filename` (write-file-atomic
  // hashes it into its temp files' names), which an ES module does not have.
  banner: {
    js: [
      'import { createRequire as __coursesyncRequire } from "node:module";',
      'import { fileURLToPath as __coursesyncPath } from "node:url";',
      "const require = __coursesyncRequire(import.meta.url);",
      "const __filename = __coursesyncPath(import.meta.url);",
      'const __dirname = __coursesyncPath(new URL(".", import.meta.url));',
    ].join(" "),
  },
  plugins: [lazyHttp2Wrapper, lazyListFormat],
  logLevel: "warning",
});
