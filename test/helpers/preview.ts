import { request } from "node:http";
import { afterEach } from "vitest";
import { type PreviewOptions, type RunningPreview, startPreview } from "../../src/preview/server.js";

/** One answer of the preview, read whole. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request to the preview over real HTTP, with the Host header given (default: the one served). */
export function get(
  url: string,
  options: { method?: string; host?: string; path?: string } = {},
): Promise<Answer> {
  const target = new URL(options.path ?? "/", url);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        agent: false,
        method: options.method ?? "GET",
        headers: options.host === undefined ? {} : { host: options.host },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/**
 * Register an afterEach that closes every preview the returned function started in the test;
 * previews listen on port 0.
 */
export function usePreviews(): (
  options: Omit<PreviewOptions, "port"> & { port?: number },
) => Promise<RunningPreview> {
  const running: RunningPreview[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((preview) => preview.close()));
  });
  return async (options) => {
    const preview = await startPreview({ port: 0, ...options });
    running.push(preview);
    return preview;
  };
}

/** The text an attribute holds, as the browser reads it (the five escapes of `esc` undone). */
export function unescapeAttribute(value: string): string {
  return value
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

/** The document of the chapter frame on a chapter page. */
export function frameDocument(page: string): string | undefined {
  const srcdoc = /<iframe class="chapter"[^>]*\ssrcdoc="([^"]*)"/.exec(page)?.[1];
  return srcdoc === undefined ? undefined : unescapeAttribute(srcdoc);
}
