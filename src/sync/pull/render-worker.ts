import { parentPort } from "node:worker_threads";
import { bodyCodec } from "../../tree/codecs.js";
import { renderChapter } from "../model/entities.js";
import type { RenderJob, RenderReply } from "./render-pool.js";

// One thread of the pull's render pool (see render-pool.ts): chapters' values in, their files'
// texts, hashes, body keys and blob ids out, in order; null for a chapter that cannot be
// rendered (the plan renders it again and says why).
const codecs = { markdown: bodyCodec("markdown"), html: bodyCodec("html") };

parentPort?.on("message", (job: RenderJob) => {
  const bodies = codecs[job.mode];
  const reply: RenderReply = job.chapters.map(([id, values]) => {
    try {
      return renderChapter(id, values, bodies);
    } catch {
      return null;
    }
  });
  parentPort?.postMessage(reply);
});
