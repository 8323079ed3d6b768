import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { BodyFormat } from "../chapter-file.js";

/** Below this many chapters a first pull converts on the main thread: workers cost a start-up. */
export const POOL_THRESHOLD = 1000;

type Converted = { body: string; format: BodyFormat };

/**
 * Convert many chapters' HTML to file bodies, spread over worker threads (one per core, at
 * most four) when there are enough of them to pay for starting the workers; in order.
 */
export async function convertMany(
  htmls: readonly string[],
  convert: (html: string) => Converted,
  options: { threshold?: number; workers?: number } = {},
): Promise<Converted[]> {
  const threshold = options.threshold ?? POOL_THRESHOLD;
  const count = Math.min(options.workers ?? Math.min(availableParallelism(), 4), htmls.length);
  if (htmls.length < threshold || count < 2) return htmls.map(convert);
  const url = new URL("./convert-worker.js", import.meta.url);
  // Run from the TypeScript sources (no built worker beside this file): convert here.
  if (!existsSync(fileURLToPath(url))) return htmls.map(convert);
  const size = Math.ceil(htmls.length / count);
  const chunks = Array.from({ length: count }, (_, i) => htmls.slice(i * size, (i + 1) * size));
  const parts = await Promise.all(
    chunks.map(
      (chunk) =>
        new Promise<Converted[]>((resolve, reject) => {
          const worker = new Worker(url);
          worker.once("message", (result: Converted[]) => {
            resolve(result);
            void worker.terminate();
          });
          worker.once("error", reject);
          worker.postMessage(chunk);
        }),
    ),
  );
  return parts.flat();
}
