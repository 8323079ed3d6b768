import { parentPort } from "node:worker_threads";
import { markdownBodies } from "./index.js";

// One worker of the conversion pool: chapter HTML in, file bodies out, in order.
parentPort?.on("message", (htmls: string[]) => {
  parentPort?.postMessage(htmls.map((html) => markdownBodies.fromHtml(html)));
});
